import NoiseClockAudio
import NoiseClockStreams
import Synchronization

/// An utterance in the mixer: what its `StreamBuffer` holds (the chime, then the voice as the
/// engine makes it), silence while the engine is behind, then a short pause, and the end.
/// `onEnd` is called once, on the audio thread, when the buffer is finished and drained (it must
/// only hand over: the speaker's is `NodeActor.onLoop`); the pause that follows keeps the input in
/// the mix meanwhile, so the next utterance joins a device that is still open (closed and opened
/// again between two sentences, a device would start each with the engine's silence ahead).
/// Ready (`isReady`) once a period is buffered or the engine is done: a closed device opens on
/// the voice itself.
public final class SpeechSource: SampleSource {
    public let buffer: StreamBuffer
    private let onEnd: @Sendable () -> Void
    private var ended = false
    /// Silence after the end, in frames, before the source leaves the mix.
    private var pause: Int

    public static let pauseFrames = AudioFormat.frames(milliseconds: 300)

    public init(buffer: StreamBuffer, pauseFrames: Int = SpeechSource.pauseFrames, onEnd: @escaping @Sendable () -> Void) {
        self.buffer = buffer
        self.onEnd = onEnd
        pause = pauseFrames
    }

    public var isReady: Bool { buffer.isFinished || buffer.bufferedFrames >= AudioEngine.periodFrames }

    public func render(into target: UnsafeMutableBufferPointer<Int16>) -> Int {
        let wanted = target.count / AudioFormat.channels
        let taken = buffer.read(into: target)
        guard taken < wanted else { return wanted }
        var silent = wanted - taken
        if buffer.isDrained {
            if !ended {
                ended = true
                onEnd()
            }
            silent = min(silent, pause)
            pause -= silent
        }
        UnsafeMutableBufferPointer(rebasing: target[(taken * AudioFormat.channels)..<((taken + silent) * AudioFormat.channels)]).update(repeating: 0)
        return taken + silent
    }
}

import NoiseClockAudio
import NoiseClockStreams
import Synchronization

/// An utterance in the mixer: what its `StreamBuffer` holds (the chime, then the voice as the
/// engine makes it), silence while the engine is behind, and the end once the buffer is finished
/// and drained, when `onEnd` is called once, on the audio thread (it must only hand over: the
/// speaker's is `NodeActor.onLoop`).
public final class SpeechSource: SampleSource {
    public let buffer: StreamBuffer
    private let onEnd: @Sendable () -> Void
    private var ended = false

    public init(buffer: StreamBuffer, onEnd: @escaping @Sendable () -> Void) {
        self.buffer = buffer
        self.onEnd = onEnd
    }

    public func render(into target: UnsafeMutableBufferPointer<Int16>) -> Int {
        let wanted = target.count / AudioFormat.channels
        let taken = buffer.read(into: target)
        guard taken < wanted else { return wanted }
        if buffer.isDrained {
            if !ended {
                ended = true
                onEnd()
            }
            return taken
        }
        UnsafeMutableBufferPointer(rebasing: target[(taken * AudioFormat.channels)...]).update(repeating: 0)
        return wanted
    }
}

/// An MP3 file played once from start to end (a guided meditation), which can be paused and moved
/// to another position. Decoded as it plays: nothing is kept in memory, so an hour-long recording
/// costs what one period costs. Like every source it is used under the engine's lock only.
public final class PlayOnceSource: SampleSource {
    private let decoder: MP3Decoder
    /// Frames played (or sought to) from the start of the file.
    public private(set) var positionFrames = 0
    /// While paused the source renders silence but stays in the mix (a full buffer each time),
    /// and its position does not move.
    public var isPaused = false
    /// Set once the file has played to its end (or failed); the mixer has then dropped the source.
    public private(set) var hasEnded = false
    /// Set when decoding failed part way; the source then ends.
    public private(set) var error: AudioError?

    public init(decoder: MP3Decoder, paused: Bool = false) {
        self.decoder = decoder
        isPaused = paused
    }

    public var lengthFrames: Int { decoder.lengthFrames }

    public var positionSeconds: Double { Double(positionFrames) / Double(AudioFormat.sampleRate) }

    /// Continues from `frame` (clamped to the file); paused or not, it stays so. At or past the end,
    /// the next render ends the source.
    public func seek(toFrame frame: Int) throws(AudioError) {
        positionFrames = try decoder.seek(toFrame: frame)
        hasEnded = false
    }

    public func render(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        let wanted = buffer.count / AudioFormat.channels
        if isPaused && !hasEnded {
            for i in 0..<(wanted * AudioFormat.channels) { buffer[i] = 0 }
            return wanted
        }
        guard !hasEnded else { return 0 }
        var written = 0
        while written < wanted {
            do {
                let rest = UnsafeMutableBufferPointer(rebasing: buffer[(written * AudioFormat.channels)..<(wanted * AudioFormat.channels)])
                let n = try decoder.read(into: rest)
                if n == 0 { break }
                written += n
            } catch {
                self.error = error
                break
            }
        }
        positionFrames += written
        if written < wanted { hasEnded = true }
        return written
    }
}

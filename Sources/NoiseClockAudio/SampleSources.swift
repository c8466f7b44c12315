/// Where a mixer input gets its samples (interleaved stereo `AudioFormat`).
public protocol SampleSource: AnyObject {
    /// Fills `buffer` and returns the frames written; fewer than asked means the source has ended.
    func render(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int
    /// Whether it has sound to give now. A source still being made (an utterance whose engine has
    /// not written its first period) is not: a closed device waits for it rather than opening on
    /// the 750 ms of silence the engine writes ahead, which would be heard before the sound.
    var isReady: Bool { get }
}

extension SampleSource {
    public var isReady: Bool { true }
}

/// Samples held in memory, played once or looped (previews, tests).
public final class BufferSource: SampleSource {
    private let samples: [Int16]
    private let loops: Int?
    private var position = 0
    private var played = 0

    /// `loops`: how many times to play; nil for ever.
    public init(samples: [Int16], loops: Int? = 1) {
        self.samples = samples
        self.loops = loops
    }

    public func render(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        var written = 0
        while written < buffer.count, !samples.isEmpty {
            if position == samples.count {
                played += 1
                if let loops, played >= loops { break }
                position = 0
            }
            let n = min(buffer.count - written, samples.count - position)
            for i in 0..<n { buffer[written + i] = samples[position + i] }
            written += n
            position += n
        }
        return written / AudioFormat.channels
    }
}

/// An MP3 file looped end to start without a gap. A loop kept in the `LoopCache` plays from
/// memory at once; otherwise the first pass is decoded as it plays while the cache decodes the
/// whole file on a thread of its own, and the source moves over to that copy at the frame it has
/// reached (the same decoder, so the same samples: the join cannot be heard). From then on a
/// period costs a copy, not an MP3 decode. A file the cache's budget cannot take is decoded
/// afresh on every pass.
public final class LoopingDecoderSource: SampleSource {
    private var decoder: MP3Decoder?
    private let loops: Int?
    private var played = 0
    /// Set when decoding failed mid-way; the source then ends.
    public private(set) var error: AudioError?

    private let ahead: LoopSlot?
    private var loop: DecodedLoop?
    /// The frame of the current pass: where the decoder is, or where the copy in memory plays.
    private var position = 0

    /// Plays `loop`, decoded before.
    public init(loop: DecodedLoop, loops: Int? = nil) {
        self.loop = loop
        self.loops = loops
        ahead = nil
    }

    /// Plays from `decoder`, moving to the copy `ahead` brings once it is there.
    public init(decoder: MP3Decoder, loops: Int? = nil, ahead: LoopSlot? = nil) {
        self.decoder = decoder
        self.loops = loops
        self.ahead = ahead
    }

    /// True once it plays from memory.
    public var isDecoded: Bool { loop != nil }

    public func render(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        if loop == nil, let decoded = ahead?.loop, decoded.frames > position {
            loop = decoded
            decoder = nil
        }
        return loop == nil ? renderDecoding(into: buffer) : renderFromMemory(into: buffer)
    }

    private func renderDecoding(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard let decoder else { return 0 }
        var written = 0
        var emptyReads = 0
        while written < buffer.count / AudioFormat.channels {
            do {
                let rest = UnsafeMutableBufferPointer(rebasing: buffer[(written * AudioFormat.channels)...])
                let n = try decoder.read(into: rest)
                if n > 0 {
                    written += n
                    position += n
                    emptyReads = 0
                    continue
                }
                played += 1
                emptyReads += 1
                if let loops, played >= loops { break }
                if emptyReads > 1 { break }  // an empty file would loop for ever
                try decoder.rewind()
                position = 0
            } catch {
                self.error = error
                break
            }
        }
        return written
    }

    private func renderFromMemory(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard let loop, loop.frames > 0 else { return 0 }
        var written = 0
        let wanted = buffer.count / AudioFormat.channels
        while written < wanted {
            if position >= loop.frames {
                played += 1
                if let loops, played >= loops { break }
                position = 0
            }
            let n = min(wanted - written, loop.frames - position)
            loop.samples.withUnsafeBufferPointer { source in
                if loop.isMono {
                    for i in 0..<n {
                        let sample = source[position + i]
                        buffer[(written + i) * 2] = sample
                        buffer[(written + i) * 2 + 1] = sample
                    }
                } else {
                    for i in 0..<(n * 2) { buffer[written * 2 + i] = source[position * 2 + i] }
                }
            }
            written += n
            position += n
        }
        return written
    }
}

/// Where a mixer input gets its samples (interleaved stereo `AudioFormat`).
public protocol SampleSource: AnyObject {
    /// Fills `buffer` and returns the frames written; fewer than asked means the source has ended.
    func render(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int
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

/// An MP3 file looped end to start without a gap. The first pass is decoded as it plays and
/// kept; later passes play from memory, so a sound looping all night costs a copy per period
/// rather than an MP3 decode (a 48 s mono noise loop keeps 4 MB; a stereo one 8.5 MB). Files
/// longer than `cacheLimitSeconds` are decoded afresh on every pass instead.
public final class LoopingDecoderSource: SampleSource {
    public static let cacheLimitSeconds = 120.0

    private var decoder: MP3Decoder?
    private let loops: Int?
    private var played = 0
    /// Set when decoding failed mid-way; the source then ends.
    public private(set) var error: AudioError?

    private let caching: Bool
    private var firstPass: [Int16] = []
    /// The whole file once the first pass is done: mono when both channels were equal, else stereo.
    private var cache: [Int16] = []
    private var cacheIsMono = false
    private var cached = false
    private var position = 0

    public init(decoder: MP3Decoder, loops: Int? = nil, cacheLimitSeconds: Double = LoopingDecoderSource.cacheLimitSeconds) {
        self.decoder = decoder
        self.loops = loops
        caching = decoder.duration <= cacheLimitSeconds
        if caching { firstPass.reserveCapacity(decoder.frameCount * AudioFormat.channels) }
    }

    public func render(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        cached ? renderFromCache(into: buffer) : renderDecoding(into: buffer)
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
                    if caching { firstPass.append(contentsOf: rest.prefix(n * AudioFormat.channels)) }
                    written += n
                    emptyReads = 0
                    continue
                }
                played += 1
                emptyReads += 1
                if let loops, played >= loops { break }
                if emptyReads > 1 { break }  // an empty file would loop for ever
                if caching {
                    finishCache()
                    let more = renderFromCache(into: UnsafeMutableBufferPointer(rebasing: buffer[(written * AudioFormat.channels)...]))
                    return written + more
                }
                try decoder.rewind()
            } catch {
                self.error = error
                break
            }
        }
        return written
    }

    private func finishCache() {
        var mono = true
        var index = 0
        while index + 1 < firstPass.count {
            if firstPass[index] != firstPass[index + 1] { mono = false; break }
            index += 2
        }
        cacheIsMono = mono
        cache = mono ? stride(from: 0, to: firstPass.count, by: 2).map { firstPass[$0] } : firstPass
        firstPass = []
        cached = true
        decoder = nil
        position = 0
    }

    private func renderFromCache(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        let framesInCache = cacheIsMono ? cache.count : cache.count / AudioFormat.channels
        guard framesInCache > 0 else { return 0 }
        var written = 0
        let wanted = buffer.count / AudioFormat.channels
        while written < wanted {
            if position == framesInCache {
                played += 1
                if let loops, played >= loops { break }
                position = 0
            }
            let n = min(wanted - written, framesInCache - position)
            cache.withUnsafeBufferPointer { source in
                if cacheIsMono {
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

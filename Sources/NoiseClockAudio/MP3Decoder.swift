#if canImport(Glibc)
import Glibc
#endif
import CMpg123
import FoundationEssentials

/// One MP3 file decoded with libmpg123 to `AudioFormat`, gapless (the encoder's delay and padding
/// from the LAME tag are dropped, so a loop joins end to start sample-exactly).
public final class MP3Decoder {
    public let path: String
    private let handle: OpaquePointer

    private static let initialized: Void = { _ = mpg123_init() }()

    public init(path: String) throws(AudioError) {
        Self.initialized
        self.path = path
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else {
            throw AudioError(subject: path, reason: String(cString: mpg123_plain_strerror(error)))
        }
        let flags = Int(MPG123_GAPLESS.rawValue | MPG123_QUIET.rawValue | MPG123_FORCE_STEREO.rawValue)
        _ = mpg123_param2(handle, Int32(MPG123_FLAGS.rawValue), flags, 0)
        // Any other sample rate is resampled by libmpg123's NtoM decoder to the engine's rate.
        _ = mpg123_param2(handle, Int32(MPG123_FORCE_RATE.rawValue), AudioFormat.sampleRate, 0)
        _ = mpg123_format_none(handle)
        _ = mpg123_format(handle, AudioFormat.sampleRate, Int32(MPG123_STEREO.rawValue), Int32(MPG123_ENC_SIGNED_16.rawValue))
        guard mpg123_open(handle, path) == MPG123_OK.rawValue else {
            let reason = String(cString: mpg123_strerror(handle))
            mpg123_delete(handle)
            throw AudioError(subject: path, reason: "cannot open: \(reason)")
        }
        // Reads the whole stream once, so the length is exact and a damaged file fails here, not mid-play.
        guard mpg123_scan(handle) == MPG123_OK.rawValue, mpg123_length(handle) > 0 else {
            mpg123_close(handle)
            mpg123_delete(handle)
            throw AudioError(subject: path, reason: "not a playable MP3 file")
        }
        // Assigned last: a throwing initializer that has set every stored property runs deinit too.
        self.handle = handle
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    /// The length in frames, after gapless trimming.
    public var frameCount: Int { Int(mpg123_length(handle)) }

    /// True when the file's current MPEG frame is mono (then both channels of what it decodes are
    /// equal); for a loop's memory estimate.
    public var isMonoFile: Bool {
        var info = mpg123_frameinfo2()
        guard mpg123_info2(handle, &info) == MPG123_OK.rawValue else { return false }
        return info.mode == Int32(MPG123_M_MONO.rawValue)
    }

    public var duration: Double { Double(frameCount) / Double(AudioFormat.sampleRate) }

    /// The length in frames at the engine's rate (the same as `frameCount`), the unit of `seek(toFrame:)`.
    public var lengthFrames: Int { frameCount }

    /// Moves the next `read` to frame `frame` (clamped to the file), through libmpg123's frame
    /// index (exact: the stream was scanned at open). Returns the frame reached. The decoder's
    /// overlap state is not reset, so the first frame after a seek may carry a trace of the old
    /// position: fine for a jump in a long recording, not for a sample-exact loop (see `rewind`).
    @discardableResult
    public func seek(toFrame frame: Int) throws(AudioError) -> Int {
        let target = max(0, min(frame, frameCount))
        let reached = mpg123_seek(handle, off_t(target), SEEK_SET)
        guard reached >= 0 else {
            throw AudioError(subject: path, reason: "cannot seek: \(String(cString: mpg123_strerror(handle)))")
        }
        return Int(reached)
    }

    /// Decodes up to `buffer.count / 2` frames; returns how many. 0 means the end of the file.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(AudioError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var total = 0
        let wantedBytes = buffer.count * MemoryLayout<Int16>.size
        while total < wantedBytes {
            var done = 0
            let rc = mpg123_read(handle, UnsafeMutableRawPointer(base).advanced(by: total), wantedBytes - total, &done)
            total += done
            if rc == MPG123_DONE.rawValue { break }
            if rc == MPG123_NEW_FORMAT.rawValue || rc == MPG123_OK.rawValue {
                if done == 0 && rc == MPG123_OK.rawValue { break }
                continue
            }
            if rc == MPG123_NEED_MORE.rawValue { break }
            throw AudioError(subject: path, reason: "decoding failed: \(String(cString: mpg123_strerror(handle)))")
        }
        return total / (MemoryLayout<Int16>.size * AudioFormat.channels)
    }

    /// Back to the first sample. The file is opened afresh rather than sought: after a seek the
    /// decoder's overlap state from the end of the file leaks into the first frames, and the loop
    /// point would not be sample-exact.
    public func rewind() throws(AudioError) {
        mpg123_close(handle)
        guard mpg123_open(handle, path) == MPG123_OK.rawValue else {
            throw AudioError(subject: path, reason: "cannot reopen: \(String(cString: mpg123_strerror(handle)))")
        }
    }

    /// The whole file, interleaved (for tests, previews and short alarm tones).
    public func decodeAll() throws(AudioError) -> [Int16] {
        try rewind()
        var samples = [Int16](repeating: 0, count: (frameCount + 4096) * AudioFormat.channels)
        var filled = 0
        while true {
            let frames = try samples.withUnsafeMutableBufferPointer { all throws(AudioError) -> Int in
                let rest = UnsafeMutableBufferPointer(rebasing: all[(filled * AudioFormat.channels)...])
                return try read(into: rest)
            }
            if frames == 0 { break }
            filled += frames
            if (filled + 1) * AudioFormat.channels > samples.count { samples += [Int16](repeating: 0, count: 8192) }
        }
        return Array(samples.prefix(filled * AudioFormat.channels))
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Whole small files, read with plain POSIX calls (so `/dev/null` and pipes read as what they
/// hold, not as their reported size).
public enum FileBytes {
    /// The bytes of `path`, or nil when it cannot be opened or read, or holds more than `limit`.
    public static func read(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk.prefix(n))
            if bytes.count > limit { return nil }
        }
    }
}

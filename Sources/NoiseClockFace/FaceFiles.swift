#if canImport(Glibc)
import Glibc
#endif
import NoiseClockCore
import NoiseClockSystem

/// A request path under `/static/`, checked before it comes near the file system.
public enum FacePath {
    /// The path's segments after percent-decoding, or nil when it could leave the face folder or is
    /// not a plain relative path: `..` or `.` segments (also encoded: `%2e%2e`), an absolute path
    /// (`//etc/passwd`), empty segments, backslashes, NUL or other control characters, a bad escape.
    public static func segments(_ raw: Substring) -> [String]? {
        guard let decoded = percentDecoded(raw) else { return nil }
        guard !decoded.isEmpty, !decoded.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) else {
            return nil
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        return parts.map(String.init)
    }

    /// `%XX` escapes decoded (`+` stays `+`: this is a path, not a form); nil for a broken escape.
    public static func percentDecoded(_ raw: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        var bytes = raw.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = bytes.next().flatMap(hexValue), let low = bytes.next().flatMap(hexValue) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The Content-Type of a file, by its extension.
    public static func contentType(of name: String) -> String {
        let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return switch suffix {
        case "html", "htm": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "woff": "font/woff"
        case "woff2": "font/woff2"
        case "ttf": "font/ttf"
        case "otf": "font/otf"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}

/// The face's folder: the only files the server hands out. Every file is found by its real path
/// (symlinks followed), which must lie inside the folder's real path.
public struct FaceFolder: Sendable, Hashable {
    /// The folder's real path, without a trailing slash.
    public let root: String

    /// Nil when `path` is not a folder holding `index.html`.
    public init?(_ path: String) {
        guard let real = Self.realPath(path), Self.regularFile(at: real + "/index.html") != nil else { return nil }
        root = real
    }

    /// The first of `candidates` that is a face folder.
    public static func locate(_ candidates: [String]) -> FaceFolder? {
        candidates.lazy.compactMap { FaceFolder($0) }.first
    }

    public struct File: Sendable, Hashable {
        public var path: String
        public var bytes: [UInt8]
        public var contentType: String
        /// Size and modification time: changes whenever the file does.
        public var etag: String
    }

    /// The file at `segments` (from `FacePath.segments`), or nil when it is missing, not a regular
    /// file, or outside the folder once symlinks are followed.
    public func file(_ segments: [String]) -> File? {
        guard !segments.isEmpty, let real = Self.realPath(root + "/" + segments.joined(separator: "/")),
            real.hasPrefix(root + "/"), let info = Self.regularFile(at: real),
            let bytes = FileBytes.read(real, limit: 16 << 20)
        else { return nil }
        let etag = "\"\(String(info.size, radix: 16))-\(String(info.modified, radix: 16))\""
        return File(path: real, bytes: bytes, contentType: FacePath.contentType(of: real), etag: etag)
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Size and modification time (nanoseconds) of a regular file; nil for anything else.
    static func regularFile(at path: String) -> (size: Int, modified: Int)? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return (Int(info.st_size), Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
    }
}

#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import NoiseClockCore

/// What reading a stored document found.
public enum StoredDocument: Sendable, Hashable {
    case missing
    case value(JSONValue)
    /// The file could not be read as JSON; it was renamed to `movedTo` and left there for the user.
    case movedAside(movedTo: String, reason: String)
}

/// The node's own state: one JSON document per name, written atomically.
public protocol Store: Sendable {
    func load(_ name: String) -> StoredDocument
    /// Returns once the document is durable on disk; throws and changes nothing when it cannot be.
    func save(_ name: String, _ value: JSONValue) throws
    /// Moves a document that could be parsed but not used out of the way, like a corrupt one.
    func moveAside(_ name: String, reason: String) -> StoredDocument
}

extension Store {
    /// Reads document `name` through `decode`: nil and no problem when there is none; nil and the
    /// problem when it cannot be read or used, in which case it is moved aside (never overwritten)
    /// and the node goes on without it.
    public func load<T>(_ name: String, decode: (JSONValue) throws -> T) -> (value: T?, problem: String?) {
        switch load(name) {
        case .missing:
            return (nil, nil)
        case .value(let value):
            do {
                return (try decode(value), nil)
            } catch {
                if case .movedAside(let target, let reason) = moveAside(name, reason: "\(error)") {
                    return (nil, "\(name) moved to \(target): \(reason)")
                }
                return (nil, "\(name) could not be used: \(error)")
            }
        case .movedAside(let target, let reason):
            return (nil, "\(name) moved to \(target): \(reason)")
        }
    }
}

public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var errno: Int32

    public var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
}

/// JSON files under `state.dir`: write a temporary file, fsync it, rename it over the old one, fsync
/// the folder. A crash at any instant leaves the old file or the new one, never a mix; a temporary
/// file left by a crash is removed on the next start.
public final class FileStore: Store {
    public let directory: String

    public init(directory: String) throws(StoreError) {
        self.directory = directory
        try Self.makeFolder(directory)
        for leftover in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where leftover.hasPrefix(".") && leftover.contains(".tmp-") {
            unlink(path(leftover))
        }
    }

    private func path(_ name: String) -> String { "\(directory)/\(name)" }

    /// `mkdir -p`, with the errno of the `mkdir` that failed (not of some later call), or
    /// ENOTDIR when a part of the path is a file.
    private static func makeFolder(_ folder: String) throws(StoreError) {
        var prefix = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            prefix += "/\(part)"
            if mkdir(prefix, 0o755) != 0 {
                let error = errno
                guard error == EEXIST else { throw StoreError(path: folder, operation: "create", errno: error) }
                var status = stat()
                guard stat(prefix, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                    throw StoreError(path: folder, operation: "create", errno: ENOTDIR)
                }
            }
        }
    }

    public func load(_ name: String) -> StoredDocument {
        guard let data = FileManager.default.contents(atPath: path(name)) else {
            return FileManager.default.fileExists(atPath: path(name))
                ? moveAside(name, reason: "cannot be read") : .missing
        }
        do {
            return .value(try JSONValue.parse(Array(data)))
        } catch {
            return moveAside(name, reason: "not valid JSON: \(error.reason)")
        }
    }

    public func moveAside(_ name: String, reason: String) -> StoredDocument {
        let stamp = ISOTime.string(Date(), in: .utc)
            .replacing(":", with: "")
        var target = path("\(name).unreadable-\(stamp)")
        var attempt = 1
        while FileManager.default.fileExists(atPath: target) {
            attempt += 1
            target = path("\(name).unreadable-\(stamp)-\(attempt)")
        }
        if rename(path(name), target) != 0 {
            return .movedAside(movedTo: path(name), reason: "\(reason); could not be moved aside either")
        }
        return .movedAside(movedTo: target, reason: reason)
    }

    /// Writes `value` as document `name`: a temporary file, `fsync`, `rename` over the old one,
    /// `fsync` of the folder. Throws when any step fails, and then what is on disk is what was
    /// there before: when only the folder's `fsync` fails, the rename has already happened, so the
    /// old document is put back (or the new one removed when there was none), and a restart finds
    /// what the node answered. Unless the old document cannot be read: then the new one stays.
    public func save(_ name: String, _ value: JSONValue) throws {
        let target = path(name)
        // What a failure after the rename must put back.
        let previous = Self.previous(at: target)
        try write(value.serializedBytes + [0x0A], to: target, name: name)
        do {
            try syncFolder()
        } catch {
            switch previous {
            case .bytes(let bytes):
                // When this write fails too, the new document stays: no worse, as below.
                try? write(bytes, to: target, name: name)
            case .none:
                unlink(target)
            case .unreadable:
                // Nothing can be put back, and removing the new document would leave none: every
                // change answered ok would be gone. The new one holds them all (it is built on
                // them) and is readable, so it stays. The save is still refused (the rename is not
                // known to be durable); the worst a restart can find is this refused change, until
                // the next write (built on what is current) replaces it. A crash at any instant
                // leaves the old file or the new one.
                break
            }
            try? syncFolder()
            throw error
        }
    }

    /// The document a failed save would put back.
    private enum Previous {
        case none
        case bytes([UInt8])
        /// It exists (or may), but could not be read.
        case unreadable
    }

    private static func previous(at target: String) -> Previous {
        let fd = open(target, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? .none : .unreadable }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return .bytes(bytes) }
            if n < 0 {
                if errno == EINTR { continue }
                return .unreadable
            }
            bytes += chunk[..<n]
        }
    }

    /// A temporary file, written and `fsync`ed, renamed over `target`.
    private func write(_ bytes: [UInt8], to target: String, name: String) throws(StoreError) {
        // A name of its own per save, so two saves at once never share (and truncate) one temporary file.
        let temporary = path(".\(name).tmp-\(getpid())-\(UUID().uuidString.prefix(8))")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError(path: temporary, operation: "create", errno: errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let failure = StoreError(path: temporary, operation: "write", errno: errno)
                close(fd)
                unlink(temporary)
                throw failure
            }
            written += n
        }
        if fsync(fd) != 0 {
            let failure = StoreError(path: temporary, operation: "fsync", errno: errno)
            close(fd)
            unlink(temporary)
            throw failure
        }
        close(fd)
        if rename(temporary, target) != 0 {
            let failure = StoreError(path: target, operation: "rename", errno: errno)
            unlink(temporary)
            throw failure
        }
    }

    private func syncFolder() throws(StoreError) {
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw StoreError(path: directory, operation: "open", errno: errno) }
        defer { close(folder) }
        if fsync(folder) != 0 { throw StoreError(path: directory, operation: "fsync", errno: errno) }
    }
}

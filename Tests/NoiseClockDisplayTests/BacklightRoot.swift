import Foundation
import Glibc

/// A fake `/sys/class/backlight` under the system's temporary directory, with files written as the
/// kernel shows them (a trailing newline).
struct BacklightRoot: Sendable {
    let path: String

    init(_ label: String = #function) throws {
        let name = "noiseclock-backlight-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
        path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The folder of device `name`, with `files`.
    @discardableResult
    func device(_ name: String, _ files: [String: String]) throws -> String {
        let directory = "\(path)/\(name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (file, value) in files { try Data("\(value)\n".utf8).write(to: URL(fileURLWithPath: "\(directory)/\(file)")) }
        return directory
    }

    /// What a file holds, without its newline.
    func read(_ name: String, _ file: String) -> String? {
        (try? String(contentsOfFile: "\(path)/\(name)/\(file)", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

func withBacklightRoot<T>(_ label: String = #function, _ body: (BacklightRoot) throws -> T) throws -> T {
    let root = try BacklightRoot(label)
    defer { root.remove() }
    return try body(root)
}

/// Runs `body` without the power to write other users' read-only files, as the node's service user
/// runs. The tests may run as root, whom a file's mode does not stop (CAP_DAC_OVERRIDE), so as root
/// the calling thread's filesystem user id is set to nobody for the call: the kernel then drops the
/// thread's file capabilities, and setting it back restores them. Only this thread is affected,
/// and `body` is synchronous, so no other test's work runs on it in between. (Swift's Glibc module
/// does not declare setfsuid, hence dlsym.)
func withoutFilePrivileges<T>(_ body: () throws -> T) rethrows -> T {
    guard geteuid() == 0, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setfsuid") else { return try body() }
    typealias SetFSUID = @convention(c) (UInt32) -> Int32
    let setfsuid = unsafeBitCast(symbol, to: SetFSUID.self)
    let previous = setfsuid(65534)
    defer { _ = setfsuid(UInt32(previous)) }
    return try body()
}

import Foundation

/// Slow or broken storage for a node process: the `LD_PRELOAD` shim of `Tests/FaultFS/faultfs.c`,
/// built once per source version with the C compiler beside the Swift toolchain (or `cc`).
public enum FaultFS {
    public enum Fault: String, Sendable {
        /// The folder's `fsync` fails (EIO), after the new document was renamed into place.
        case directorySync = "dirsync"
        /// Writes into the folder fail (ENOSPC).
        case full
        /// Creating or renaming in the folder fails (EROFS).
        case readOnly = "readonly"
        /// As `directorySync`, and opening a document only to read it fails (EIO): the old
        /// document a failed save would put back cannot be read.
        case unreadable
        case none
    }

    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FaultFS/faultfs.c").path

    /// The shared library, compiled when the source is newer than the last build.
    public static func library() async throws -> String {
        let text = try String(contentsOfFile: source, encoding: .utf8)
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("noiseclock-faultfs").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let library = "\(folder)/faultfs-\(String(hash, radix: 16)).so"
        if FileManager.default.fileExists(atPath: library) { return library }
        let partial = "\(library).\(UUID().uuidString.prefix(8))"
        let (code, output) = try await runToEnd(compiler(), ["-shared", "-fPIC", "-O2", "-o", partial, source, "-ldl"])
        guard code == 0 else { throw FaultFSError(message: "faultfs.c did not compile: \(output)") }
        // Renamed into place, so two test processes building it at once never load half a file.
        _ = rename(partial, library)
        return library
    }

    /// The environment that loads the shim into a node whose state folder is `stateDirectory`,
    /// with the fault named in `control` (see `set`), every `fsync` `delayMilliseconds` slower and
    /// every open of an `.mp3` `openDelayMilliseconds` slower.
    public static func environment(
        library: String, stateDirectory: String, control: String, delayMilliseconds: Int = 0, openDelayMilliseconds: Int = 0
    ) -> [String: String] {
        [
            "LD_PRELOAD": library, "FAULTFS_DIR": stateDirectory, "FAULTFS_CONTROL": control,
            "FAULTFS_FSYNC_DELAY_MS": "\(delayMilliseconds)", "FAULTFS_OPEN_DELAY_MS": "\(openDelayMilliseconds)",
        ]
    }

    /// Puts `fault` in force for the nodes whose control file is `control` (from their next call on).
    public static func set(_ fault: Fault, control: String) throws {
        try fault.rawValue.write(toFile: control, atomically: true, encoding: .utf8)
    }

    /// The clang of the Swift toolchain (beside `swift`, symlinks followed), else a `clang`, `cc`
    /// or `gcc` on PATH.
    private static func compiler() -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map(String.init) + ["/opt/swift/usr/bin"]
        for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/swift") {
            let beside = URL(fileURLWithPath: "\(folder)/swift").resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("clang").path
            if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        }
        for name in ["clang", "cc", "gcc"] {
            for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return "/usr/bin/cc"
    }
}

public struct FaultFSError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

import Foundation
import Synchronization

/// A wall clock for node processes that a test can set and jump, through libfaketime.
///
/// The node is started with `environment` merged into its own: libfaketime then adds the offset
/// held in a file to every wall-clock reading (`Date()`, `clock_gettime(CLOCK_REALTIME)`), and
/// reads that file again on every call (at most a second late), so rewriting it moves the node's
/// clock. Monotonic clocks stay real. Only relative offsets (`+33478.25`, `-120`) are written: an
/// absolute `@…` spec would stop the clock and break sleeps.
///
/// Uses `libfaketime.so.1`, never the `MT` variant, which breaks Swift's `CommandLine.arguments`.
///
/// libfaketime 0.9.10 also rewrites the deadline of every absolute `timerfd_settime` by the
/// offset, without knowing the timer's clock. libdispatch arms its timers that way on
/// CLOCK_MONOTONIC and CLOCK_BOOTTIME, so with any offset other than 0 every Swift
/// `Task.sleep` / `ContinuousClock.sleep` in the node ends far too late (or never) — the node
/// then misses its schedule and cannot stop on SIGTERM. A tiny preloaded shim, ahead of
/// libfaketime, passes `timerfd_settime`/`timerfd_gettime` straight to the kernel; it is built
/// once per run with the C compiler of the Swift toolchain.
public final class FakeTime: Sendable {
    public let library: String
    public let shim: String
    public let file: String
    private let directory: String
    private let current = Mutex<TimeInterval>(0)

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// The library under `/usr/lib/*/faketime/`, or nil.
    public static var installedLibrary: String? {
        let root = "/usr/lib"
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
            .map { "\(root)/\($0)/faketime/libfaketime.so.1" } + ["\(root)/faketime/libfaketime.so.1"]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// A clock that starts at `date` (the real time when nil). Throws `Missing`, naming what to
    /// install, without libfaketime or a C compiler.
    public init(at date: Date? = nil) async throws {
        guard let library = Self.installedLibrary else {
            throw Missing(
                description: "libfaketime is not installed (looked for /usr/lib/*/faketime/libfaketime.so.1); "
                    + "install the Debian package `faketime` (scripts/install-deps.sh does)")
        }
        self.library = library
        shim = try await Self.timerShim()
        directory = try makeTemporaryDirectory("faketime")
        file = "\(directory)/offset"
        try write(date?.timeIntervalSinceNow ?? 0)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What a node process needs (merge it into `NodeProcess`'s environment).
    public var environment: [String: String] {
        [
            "LD_PRELOAD": "\(shim):\(library)", "FAKETIME_TIMESTAMP_FILE": file, "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            "FAKETIME_CACHE_DURATION": "0",
        ]
    }

    /// The offset from the real wall clock, in seconds.
    public var offset: TimeInterval { current.withLock { $0 } }

    /// The instant the faked processes see now.
    public var now: Date { Date().addingTimeInterval(offset) }

    /// Sets the faked clock to `date` (offset = `date` − the real now).
    public func set(to date: Date) throws {
        try write(date.timeIntervalSinceNow)
    }

    /// Moves the faked clock by `seconds` (negative: back).
    public func jump(by seconds: TimeInterval) throws {
        try write(offset + seconds)
    }

    private func write(_ seconds: TimeInterval) throws {
        current.withLock { $0 = seconds }
        // Written to a new file and renamed, so the node never reads half a number.
        // No unit letters: libfaketime reads "m", "h", "d", "y" in the text as multipliers.
        let text = (seconds < 0 ? "-" : "+") + String(format: "%.6f", abs(seconds)) + "\n"
        let temporary = "\(file).tmp"
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        guard rename(temporary, file) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file])
        }
    }

    // MARK: The timerfd shim

    private static let shimSource = """
        #define _GNU_SOURCE
        #include <sys/syscall.h>
        #include <sys/timerfd.h>
        #include <unistd.h>
        /* Preloaded ahead of libfaketime: timers keep the kernel's meaning. */
        int timerfd_settime(int fd, int flags, const struct itimerspec *new_value, struct itimerspec *old_value) {
            return (int)syscall(SYS_timerfd_settime, fd, flags, new_value, old_value);
        }
        int timerfd_gettime(int fd, struct itimerspec *curr_value) {
            return (int)syscall(SYS_timerfd_gettime, fd, curr_value);
        }

        """

    private static let shimBuild = Mutex<Task<String, any Error>?>(nil)

    /// The shim's path, built on first use (once per test process).
    static func timerShim() async throws -> String {
        let build = shimBuild.withLock { build in
            if let build { return build }
            let task = Task { try await buildShim() }
            build = task
            return task
        }
        return try await build.value
    }

    private static func buildShim() async throws -> String {
        let compilers = ["clang", "cc", "gcc"]
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/opt/swift/usr/bin", "/usr/bin", "/usr/local/bin"]
        guard let compiler = compilers.lazy.flatMap({ name in searchPath.lazy.map { "\($0)/\(name)" } })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            throw Missing(description: "no C compiler (clang, cc or gcc) to build the timerfd shim FakeTime needs next to libfaketime")
        }
        // One copy per source text and user, kept between runs; built aside and renamed into place,
        // so test processes running side by side never load a half-written file.
        let hash = shimSource.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        let target = FileManager.default.temporaryDirectory
            .appendingPathComponent("noiseclock-timerfd-shim-\(getuid())-\(String(hash, radix: 16)).so").path
        if FileManager.default.fileExists(atPath: target) { return target }
        let directory = try makeTemporaryDirectory("faketime-shim")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try shimSource.write(toFile: "\(directory)/shim.c", atomically: true, encoding: .utf8)
        let output = "\(directory)/timerfd-shim.so"
        let result = try await runToEnd(compiler, ["-shared", "-fPIC", "-O1", "-o", output, "\(directory)/shim.c"])
        guard result.code == 0, FileManager.default.fileExists(atPath: output), rename(output, target) == 0 else {
            throw Missing(description: "building the timerfd shim with \(compiler) failed:\n\(result.output)")
        }
        return target
    }
}

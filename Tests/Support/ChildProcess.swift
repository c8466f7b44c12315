#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import NoiseClockSystem

/// A child process started with posix_spawn and a clean signal mask. (Foundation's Process hands
/// children of `swift test` a mask in which SIGTERM is blocked, so a clean-stop test could not work.)
public final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `pid` is immutable; `exitStatus` is only touched under `lock`.
    public let pid: pid_t
    public let logPath: String
    private let lock = NSLock()
    private var exitStatus: Int32?

    struct SpawnError: Error, CustomStringConvertible {
        var executable: String
        var code: Int32
        var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], logPath: String) throws {
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of the test process: SwiftNIO opens its sockets without FD_CLOEXEC, and a
        // child holding a copy of a test's connection keeps it open after the test closes it.
        _ = closeFrom?(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("NOISECLOCK_") }
        env.merge(environment) { _, new in new }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw SpawnError(executable: executable, code: rc) }
        pid = child
    }

    deinit {
        if status() == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Sends `signal` while the child is ours: not once it has been reaped (by `isRunning` or a
    /// wait), when its number may already be another process's. With the kernel's pid_max of
    /// 32768 and a suite that spawns thousands of processes, numbers come round within minutes; a
    /// late SIGKILL to a reaped child once killed another test's Icecast as it started. The lock
    /// is the one `status()` reaps under, so nothing reaps between the look and the kill.
    public func signal(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        guard exitStatus == nil else { return }
        kill(pid, signal)
    }

    /// The raw wait status once the child has exited, else nil.
    private func status() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
        }
        return exitStatus
    }

    public var isRunning: Bool { status() == nil }

    /// Waits for the exit; its code (or 128+signal) then, nil on timeout.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while true {
            // Looked at once more after the deadline: on a busy machine the sleep may end well past
            // it, and a child that exited meanwhile has exited.
            if let status = status() {
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module
/// does not declare: looked up once by name.
private let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()

/// A fresh folder under the system's temporary directory.
public func makeTemporaryDirectory(_ prefix: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private let handedOutPorts = Mutex<Set<Int>>([])

/// A TCP port on 127.0.0.1 that was free a moment ago, never the same twice in one run, and below
/// the kernel's ephemeral range (32768-60999), so no client connection can take it before the
/// broker binds it.
public func freeLoopbackPort() -> Int {
    while true {
        let port = Int.random(in: 20_000..<32_000)
        let fresh = handedOutPorts.withLock { $0.insert(port).inserted }
        if fresh && canBind(port) { return port }
    }
}

private func canBind(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let length = socklen_t(MemoryLayout<sockaddr_in>.size)
    return withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    } == 0
}

/// How long a wait for an event (a message, an answer, a count reached) goes on when no timeout is
/// given: the wait is for the event, and this only ends one that never comes, so that the test
/// fails instead of hanging. Not a time budget: at the start of a whole `make test` dozens of nodes,
/// brokers and browsers start at once on two cores (beside two busy loops in the ten-run check),
/// and budgets of 5 and 10 s, met on an idle machine, ran out there while the event was on its way.
/// A test about time sets its own window.
public let eventHangGuard = Duration.seconds(300)

/// Polls `condition` until it holds or `timeout` passes.
public func eventually(timeout: Duration = eventHangGuard, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// `runToEnd` for the work a test makes its files with (an encoder, a script over every zone): at
/// most two run at once in the test process, the others waiting without a thread. Two cores, and a
/// suite that starts a hundred tests together must not also start twenty encoders together, or
/// every test waiting on the real clock at that moment starves (what blocking calls on the test
/// pool's two threads used to limit, by holding them).
public func runTool(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws
    -> (code: Int32, output: String)
{
    await childGate.enter()
    defer { childGate.leave() }
    return try await runToEnd(executable, arguments, environment: environment)
}

/// Runs a program to its end and returns its exit code and output.
public func runToEnd(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws
    -> (code: Int32, output: String)
{
    let directory = try makeTemporaryDirectory("run")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let process = try ChildProcess(executable, arguments, environment: environment, logPath: "\(directory)/out.log")
    let code = await process.waitForExit(timeout: .seconds(60)) ?? -1
    return (code, process.log)
}

/// The places `runTool` takes: at most two tools at once.
let childGate = AsyncGate(size: 2)

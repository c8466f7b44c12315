import Foundation

/// A Mosquitto broker on a free 127.0.0.1 port, private to one test.
public final class Broker: @unchecked Sendable {
    // @unchecked Sendable: `process` is replaced only by `restart`/`kill`, called from the owning test.
    public let port: Int
    public let directory: String
    private let configuration: String
    private var process: ChildProcess?
    /// The running broker's process id (for a benchmark's counters).
    public var pid: pid_t? { process?.pid }

    public static let executable = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? "/usr/sbin/mosquitto"

    /// `listeners` replaces the default anonymous listener (use `{port}` for the broker's port).
    public init(extraConfiguration: String = "", listeners: String? = nil) async throws {
        port = freeLoopbackPort()
        directory = try makeTemporaryDirectory("broker")
        let listener = (listeners ?? "listener {port} 127.0.0.1\nallow_anonymous true\n")
            .replacingOccurrences(of: "{port}", with: "\(port)")
        configuration = """
            per_listener_settings true
            persistence false
            set_tcp_nodelay true
            \(getuid() == 0 ? "user root" : "")
            \(listener)
            \(extraConfiguration)
            """
        try configuration.write(toFile: "\(directory)/mosquitto.conf", atomically: true, encoding: .utf8)
        try await start()
    }

    deinit {
        process?.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }

    public func start() async throws {
        let log = "\(directory)/mosquitto-\(UUID().uuidString.prefix(4)).log"
        let process = try ChildProcess(Self.executable, ["-c", "\(directory)/mosquitto.conf"], logPath: log)
        self.process = process
        let running = await eventually {
            process.log.contains(" running") || !process.isRunning
        }
        guard running, process.isRunning, process.log.contains(" running") else {
            throw BrokerError(log: process.log)
        }
    }

    /// Kills the broker at once (no clean shutdown), as a crash or a power cut would.
    public func kill() async {
        process?.signal(SIGKILL)
        _ = await process?.waitForExit(timeout: eventHangGuard)
        process = nil
    }

    struct BrokerError: Error, CustomStringConvertible {
        var log: String
        var description: String { "mosquitto did not start:\n\(log)" }
    }
}

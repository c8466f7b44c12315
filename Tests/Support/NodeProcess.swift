import Foundation
import NoiseClockCore

/// The `noiseclock` executable built beside the tests.
public enum NoiseClockBinary {
    public static var path: String {
        if let explicit = ProcessInfo.processInfo.environment["NOISECLOCK_BINARY"] { return explicit }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("noiseclock").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/noiseclock").path
    }
}

/// A node started as its own process against a test broker, with its own state folder.
public final class NodeProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is replaced only by `start`, called from the owning test.
    public let nodeID: String
    /// The broker's port on 127.0.0.1.
    public let port: Int
    public let stateDirectory: String
    public let environment: [String: String]
    public let topics: Topics
    public private(set) var process: ChildProcess?
    private let configFile: String

    /// `nodeID` nil: a random `node-xxxxxx`.
    public init(port: Int, nodeID: String? = nil, stateDirectory: String? = nil,
         environment: [String: String] = [:], configuration: String = "") throws {
        let nodeID = nodeID ?? "node-\(UUID().uuidString.prefix(6).lowercased())"
        self.nodeID = nodeID
        self.port = port
        self.stateDirectory = try stateDirectory ?? makeTemporaryDirectory("state")
        self.environment = [
            "NOISECLOCK_MQTT_PORT": "\(port)", "NOISECLOCK_NODE_ID": nodeID, "NOISECLOCK_STATE_DIR": self.stateDirectory,
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin",
            // Hermetic unless a test asks for a battery: no look at this machine's UPower or sysfs.
            "NOISECLOCK_BATTERY_SOURCE": "none",
            // No face unless a test asks for one (`FaceFixture.environment`): parallel nodes would share port 8080.
            "NOISECLOCK_FACE_ENABLED": "false",
        ].merging(environment) { _, new in new }
        topics = Topics(base: self.environment["NOISECLOCK_MQTT_BASE_TOPIC"] ?? "noiseclock", nodeID: nodeID)
        configFile = "\(self.stateDirectory)/../\(nodeID).yaml"
        try configuration.write(toFile: configFile, atomically: true, encoding: .utf8)
    }

    @discardableResult
    public func start(logLevel: String = "debug") throws -> ChildProcess {
        let process = try ChildProcess(
            NoiseClockBinary.path, ["run", "--config", configFile, "--log-level", logLevel], environment: environment,
            logPath: "\(stateDirectory)/../\(nodeID)-\(UUID().uuidString.prefix(4)).log")
        self.process = process
        return process
    }

    /// Runs `noiseclock ctl` against this node.
    public func ctl(_ arguments: [String]) async throws -> (code: Int32, output: String) {
        try await runToEnd(NoiseClockBinary.path, ["ctl"] + arguments + ["--config", configFile], environment: environment)
    }

    deinit {
        process?.signal(SIGKILL)
    }
}

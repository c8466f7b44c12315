import Foundation

/// lnxlink (PyPI) with only its battery module, against a loopback broker and a mocked UPower: the
/// peer of the idle row in the benchmarks (SPEC §7). Each run has its own folder, because lnxlink
/// rewrites its configuration and keeps a `discovery_registry.json` beside it. With `modules:
/// [battery]` none of the modules that reach the network (`statistics`, `update`, `docker`) loads,
/// and `transport: mqtt` keeps it off the Home Assistant API.
public final class LnxlinkPeer: @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable; `watcher` is Sendable.
    public static let version = "2026.10.0"

    public let process: ChildProcess
    public let directory: String
    /// Where lnxlink publishes its battery module's reading.
    public let batteryTopic: String
    private let watcher: TestClient

    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// How many battery messages reached the broker (and this watcher) so far.
    public var batteryMessages: Int { watcher.messages(on: batteryTopic).count }

    private init(process: ChildProcess, directory: String, batteryTopic: String, watcher: TestClient) {
        self.process = process
        self.directory = directory
        self.batteryTopic = batteryTopic
        self.watcher = watcher
    }

    /// The lnxlink executable: `explicit` when given (`none` or `none:WHY` leaves lnxlink out), else the one in the
    /// venv that bench/lnxlink.sh makes once (or finds cached).
    public static func executable(explicit: String?) async throws -> String {
        if let explicit {
            // `none`, or `none:WHY` (what bench/run.sh passes when bench/lnxlink.sh fails).
            if explicit == "none" { throw Unavailable(description: "left out (--lnxlink none)") }
            if explicit.hasPrefix("none:") { throw Unavailable(description: String(explicit.dropFirst(5))) }
            guard FileManager.default.isExecutableFile(atPath: explicit) else {
                throw Unavailable(description: "\(explicit) is not an executable (bench/lnxlink.sh failed?)")
            }
            return explicit
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("bench/lnxlink.sh").path
        guard FileManager.default.fileExists(atPath: script) else { throw Unavailable(description: "\(script) not found") }
        let (code, output) = try await runToEnd("/bin/bash", [script])
        let lines = output.split(separator: "\n").map(String.init)
        guard code == 0, let venv = lines.last, FileManager.default.isExecutableFile(atPath: "\(venv)/bin/lnxlink") else {
            throw Unavailable(description: "bench/lnxlink.sh exited \(code): \(lines.suffix(2).joined(separator: " "))")
        }
        return "\(venv)/bin/lnxlink"
    }

    /// Starts lnxlink and returns once its first battery message has reached the broker.
    public static func start(brokerPort: Int, upower: UPowerMock, executable explicit: String? = nil) async throws -> LnxlinkPeer {
        let executable = try await executable(explicit: explicit)
        let directory = try makeTemporaryDirectory("lnxlink")
        let clientID = "bench-lnxlink-\(UUID().uuidString.prefix(6).lowercased())"
        try """
            mqtt:
              transport: mqtt
              prefix: lnxlink
              clientId: \(clientID)
              server: 127.0.0.1
              port: \(brokerPort)
              auth: {user: '', pass: '', tls: false, tls_allow_insecure: false, keyfile: '', certfile: '', ca_certs: ''}
              discovery: {enabled: true, prefix: homeassistant}
              lwt: {enabled: true, qos: 1}
              clear_on_off: true
              homeassistant: {url: '', token: '', timeout: 20, verify_ssl: true, subscribe_commands: false}
            update_interval: 5
            update_on_change: false
            modules: [battery]
            custom_modules: []
            exclude: []
            settings: {}

            """.write(toFile: "\(directory)/config.yaml", atomically: true, encoding: .utf8)
        let batteryTopic = "lnxlink/\(clientID)/monitor_controls/battery"
        let watcher = try await TestClient(port: brokerPort, subscriptions: ["lnxlink/\(clientID)/#"])
        let process = try ChildProcess(
            executable, ["-c", "\(directory)/config.yaml", "-i", "-d", directory, "-l", "WARNING"],
            environment: upower.environment, logPath: "\(directory)/output.log")
        let peer = LnxlinkPeer(process: process, directory: directory, batteryTopic: batteryTopic, watcher: watcher)
        let published = await eventually(timeout: .seconds(30)) { peer.batteryMessages > 0 || !process.isRunning }
        guard published, process.isRunning else {
            let log = (process.log + ((try? String(contentsOfFile: "\(directory)/lnxlink.log", encoding: .utf8)) ?? ""))
                .split(separator: "\n").suffix(3).joined(separator: " | ")
            await peer.stop()
            throw Unavailable(description: "lnxlink published no battery message within 30 s (\(log))")
        }
        return peer
    }

    /// SIGTERM (lnxlink stops cleanly on it), SIGKILL after 5 s; then its folder goes.
    public func stop() async {
        process.signal(SIGTERM)
        if await process.waitForExit(timeout: .seconds(5)) == nil {
            process.signal(SIGKILL)
            _ = await process.waitForExit(timeout: .seconds(2))
        }
        await watcher.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

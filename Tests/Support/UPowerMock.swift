import Foundation

/// A private D-Bus posing as the system bus, with python-dbusmock's `upower` template on it.
public final class UPowerMock: @unchecked Sendable {
    // @unchecked Sendable: the processes are replaced only by `start`/`kill`, called from the owning test.
    public let directory: String
    public let busAddress: String
    private var bus: ChildProcess?
    private var mock: ChildProcess?

    /// The environment a node (or lnxlink) needs to find this UPower.
    public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": busAddress] }

    public init() async throws {
        directory = try makeTemporaryDirectory("upower")
        busAddress = "unix:path=\(directory)/bus"
        bus = try ChildProcess(
            "/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=\(busAddress)"], logPath: "\(directory)/bus.log")
        let ready = await eventually(timeout: .seconds(10)) { FileManager.default.fileExists(atPath: "\(self.directory)/bus") }
        guard ready else { throw MockError(what: "dbus-daemon did not start", log: bus?.log ?? "") }
        try await start()
    }

    deinit {
        mock?.signal(SIGKILL)
        bus?.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the mocked UPower and waits until it answers. Its display device is "unknown, 0 %" until `setupDisplayDevice`.
    public func start() async throws {
        let mock = try ChildProcess(
            "/usr/bin/python3", ["-m", "dbusmock", "--template", "upower"], environment: environment,
            logPath: "\(directory)/mock-\(UUID().uuidString.prefix(4)).log")
        self.mock = mock
        let up = await eventually(timeout: .seconds(15)) {
            (try? await self.gdbus(["introspect", "--system", "-d", "org.freedesktop.UPower", "-o", "/org/freedesktop/UPower"]))?.code == 0
        }
        guard up else { throw MockError(what: "the UPower mock did not start", log: mock.log) }
    }

    /// Kills the mocked UPower: it leaves the bus.
    public func kill() async {
        mock?.signal(SIGKILL)
        _ = await mock?.waitForExit(timeout: .seconds(5))
        mock = nil
    }

    /// Stops the mock and its bus (a program that ends with `exit` never runs `deinit`).
    public func shutDown() async {
        await kill()
        bus?.signal(SIGKILL)
        _ = await bus?.waitForExit(timeout: .seconds(5))
        bus = nil
    }

    /// UPower states: 1 charging, 2 discharging, 3 empty, 4 fully charged, 5 pending charge, 6 pending discharge.
    public func setupDisplayDevice(state: Int, percentage: Double, timeToEmpty: Int = 0, timeToFull: Int = 0) async throws {
        try await call([
            "org.freedesktop.DBus.Mock.SetupDisplayDevice", "2", "\(state)", String(format: "%.1f", percentage), "18.0", "60.0",
            "10.0", "\(timeToEmpty)", "\(timeToFull)", "true", "battery-symbolic", "1",
        ])
    }

    public func set(percentage: Double, state: Int) async throws {
        try await call([
            "org.freedesktop.DBus.Mock.SetDeviceProperties", "/org/freedesktop/UPower/devices/DisplayDevice",
            "{'Percentage': <\(String(format: "%.1f", percentage))>, 'State': <uint32 \(state)>}",
        ])
    }

    private func call(_ method: [String]) async throws {
        let result = try await gdbus(["call", "--system", "-d", "org.freedesktop.UPower", "-o", "/org/freedesktop/UPower", "-m"] + method)
        guard result.code == 0 else { throw MockError(what: "gdbus \(method[0]) failed", log: result.output) }
    }

    private func gdbus(_ arguments: [String]) async throws -> (code: Int32, output: String) {
        try await runToEnd("/usr/bin/gdbus", arguments, environment: environment)
    }

    public struct MockError: Error, CustomStringConvertible {
        public var what: String
        public var log: String
        public var description: String { "\(what):\n\(log)" }
    }
}

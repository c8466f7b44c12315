import FoundationEssentials
import NoiseClockCore

/// The kernel's view of a battery: `<root>/<name>/{type,capacity,status,energy_*,power_now,charge_*,current_now}`.
public enum SysfsBattery {
    /// The first supply (by name) whose `type` is `Battery`.
    public static func find(in root: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root))?.sorted() ?? []
        return names.map { "\(root)/\($0)" }.first { read($0, "type") == "Battery" }
    }

    /// A reading of the battery in `directory`. A missing or unreadable `capacity` gives a
    /// present battery with an unknown percentage.
    public static func reading(of directory: String) -> BatteryReading {
        let state = read(directory, "status").map(BatteryState.init(sysfsStatus:)) ?? .unknown
        var percentage = read(directory, "capacity").flatMap(Double.init)
        if let p = percentage, !(0...100).contains(p) { percentage = nil }
        // Energy in µWh with power in µW, or charge in µAh with current in µA: the ratio is hours either way.
        let now = number(directory, "energy_now") ?? number(directory, "charge_now")
        let full = number(directory, "energy_full") ?? number(directory, "charge_full")
        let rate = (number(directory, "power_now") ?? number(directory, "current_now")).map(abs)
        var toEmpty: Int?
        var toFull: Int?
        if let now, let rate, rate > 0 {
            if state == .discharging { toEmpty = Int((now / rate * 3600).rounded()) }
            if state == .charging, let full, full > now { toFull = Int(((full - now) / rate * 3600).rounded()) }
        }
        return BatteryReading(
            present: read(directory, "present").map { $0 != "0" } ?? true, percentage: percentage, state: state,
            timeToEmptySeconds: toEmpty, timeToFullSeconds: toFull, source: "sysfs")
    }

    static func read(_ directory: String, _ file: String) -> String? {
        guard let data = FileManager.default.contents(atPath: "\(directory)/\(file)") else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingWhitespace()
    }

    static func number(_ directory: String, _ file: String) -> Double? {
        read(directory, file).flatMap(Double.init)
    }
}

/// Polls sysfs: the battery may appear (a hot-plugged pack) or vanish between polls.
public struct SysfsSource: BatterySource {
    public let name = "sysfs"
    public let root: String
    public let interval: Duration
    let sleep: @Sendable (Duration) async throws -> Void

    public init(root: String, interval: Duration = .seconds(30), sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.root = root
        self.interval = interval
        self.sleep = sleep
    }

    public func run(report: @escaping @Sendable (BatteryReading) -> Void) async {
        while !Task.isCancelled {
            report(SysfsBattery.find(in: root).map(SysfsBattery.reading(of:)) ?? .absent(source: name))
            do { try await sleep(interval) } catch { return }
        }
    }
}

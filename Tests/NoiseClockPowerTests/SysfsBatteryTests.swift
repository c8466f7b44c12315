import Foundation
import NoiseClockCore
import NoiseClockPower
import Synchronization
import Testing

/// A fake `/sys/class/power_supply` under the system's temporary directory.
struct PowerSupplyRoot: Sendable {
    let path: String

    init(_ label: String = #function) throws {
        let name = "noiseclock-power-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
        path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The folder of supply `name`, with `files` written as the kernel writes them (a trailing newline).
    @discardableResult
    func supply(_ name: String, _ files: [String: String]) throws -> String {
        let directory = "\(path)/\(name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (file, value) in files { try write(name, file, value) }
        return directory
    }

    func write(_ name: String, _ file: String, _ value: String) throws {
        try Data("\(value)\n".utf8).write(to: URL(fileURLWithPath: "\(path)/\(name)/\(file)"))
    }

    func removeSupply(_ name: String) throws {
        try FileManager.default.removeItem(atPath: "\(path)/\(name)")
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

func withPowerSupplyRoot<T>(_ label: String = #function, _ body: (PowerSupplyRoot) async throws -> T) async throws -> T {
    let root = try PowerSupplyRoot(label)
    defer { root.remove() }
    return try await body(root)
}

@Suite("SysfsBattery.find")
struct SysfsBatteryFindTests {
    @Test("skips a supply whose type is Mains and takes the first battery by name")
    func firstBattery() async throws {
        try await withPowerSupplyRoot { root in
            try root.supply("AC", ["type": "Mains", "online": "1"])
            try root.supply("BAT1", ["type": "Battery", "capacity": "40"])
            try root.supply("BAT0", ["type": "Battery", "capacity": "90"])
            try root.supply("ucsi-source-psy-USBC000:001", ["type": "USB"])
            #expect(SysfsBattery.find(in: root.path) == "\(root.path)/BAT0")
        }
    }

    @Test("a Mains supply that sorts first is not taken for the battery")
    func mainsFirst() async throws {
        try await withPowerSupplyRoot { root in
            try root.supply("AAA", ["type": "Mains", "capacity": "100"])
            try root.supply("notype", ["capacity": "100"])
            try root.supply("battery", ["type": "Battery"])
            #expect(SysfsBattery.find(in: root.path) == "\(root.path)/battery")
        }
    }

    @Test("only mains power: no battery")
    func onlyMains() async throws {
        try await withPowerSupplyRoot { root in
            try root.supply("AC", ["type": "Mains"])
            #expect(SysfsBattery.find(in: root.path) == nil)
        }
    }

    @Test("an empty root has no battery")
    func emptyRoot() async throws {
        try await withPowerSupplyRoot { root in
            #expect(SysfsBattery.find(in: root.path) == nil)
        }
    }

    @Test("a missing root has no battery")
    func missingRoot() async throws {
        try await withPowerSupplyRoot { root in
            #expect(SysfsBattery.find(in: "\(root.path)/does-not-exist") == nil)
        }
    }
}

@Suite("SysfsBattery.reading")
struct SysfsBatteryReadingTests {
    @Test("capacity and status give the percentage and state, from source sysfs")
    func capacityAndStatus() async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply("BAT0", ["type": "Battery", "capacity": "87", "status": "Discharging"])
            let reading = SysfsBattery.reading(of: battery)
            #expect(reading.present)
            #expect(reading.percentage == 87)
            #expect(reading.state == .discharging)
            #expect(reading.source == "sysfs")
            #expect(reading.level == .green)
            // Without energy or charge files there is no estimate.
            #expect(reading.timeToEmptySeconds == nil)
            #expect(reading.timeToFullSeconds == nil)
        }
    }

    @Test(
        "every kernel status is read",
        arguments: [
            ("Charging", BatteryState.charging), ("Discharging", .discharging), ("Full", .full),
            ("Not charging", .notCharging), ("Unknown", .unknown),
        ])
    func statuses(status: String, state: BatteryState) async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply("BAT0", ["type": "Battery", "capacity": "55", "status": status])
            #expect(SysfsBattery.reading(of: battery).state == state)
        }
    }

    @Test("a missing status file gives state unknown")
    func missingStatus() async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply("BAT0", ["type": "Battery", "capacity": "55"])
            #expect(SysfsBattery.reading(of: battery).state == .unknown)
        }
    }

    @Test("a missing capacity gives a present battery of unknown percentage")
    func missingCapacity() async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply("BAT0", ["type": "Battery", "status": "Discharging"])
            let reading = SysfsBattery.reading(of: battery)
            #expect(reading.present)
            #expect(reading.percentage == nil)
            #expect(reading.level == nil)
            #expect(reading.state == .discharging)
        }
    }

    @Test("a garbage capacity gives a present battery of unknown percentage", arguments: ["abc", "150", "", "nan", "101"])
    func garbageCapacity(capacity: String) async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply("BAT0", ["type": "Battery", "capacity": capacity, "status": "Discharging"])
            let reading = SysfsBattery.reading(of: battery)
            #expect(reading.present)
            #expect(reading.percentage == nil)
        }
    }

    @Test("the capacity's edges 0 and 100 are real percentages")
    func capacityEdges() async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply("BAT0", ["type": "Battery", "capacity": "0", "status": "Discharging"])
            #expect(SysfsBattery.reading(of: battery).percentage == 0)
            try root.write("BAT0", "capacity", "100")
            #expect(SysfsBattery.reading(of: battery).percentage == 100)
        }
    }

    @Test("discharging with energy_now and power_now: time to empty is energy over power")
    func timeToEmptyFromEnergy() async throws {
        try await withPowerSupplyRoot { root in
            // 20 Wh left at 10 W: 2 h = 7200 s.
            let battery = try root.supply(
                "BAT0",
                [
                    "type": "Battery", "capacity": "40", "status": "Discharging", "energy_now": "20000000",
                    "energy_full": "50000000", "power_now": "10000000",
                ])
            let reading = SysfsBattery.reading(of: battery)
            #expect(reading.timeToEmptySeconds == 7200)
            #expect(reading.timeToFullSeconds == nil)
        }
    }

    @Test("discharging with charge_now and current_now: time to empty is charge over current")
    func timeToEmptyFromCharge() async throws {
        try await withPowerSupplyRoot { root in
            // 2.5 Ah left at 1 A: 2.5 h = 9000 s.
            let battery = try root.supply(
                "BAT0",
                [
                    "type": "Battery", "capacity": "50", "status": "Discharging", "charge_now": "2500000",
                    "charge_full": "5000000", "current_now": "1000000",
                ])
            let reading = SysfsBattery.reading(of: battery)
            #expect(reading.timeToEmptySeconds == 9000)
            #expect(reading.timeToFullSeconds == nil)
        }
    }

    @Test("a negative current_now (some drivers sign it) gives the same time to empty")
    func negativeCurrent() async throws {
        try await withPowerSupplyRoot { root in
            // 3 Ah left at 1.5 A: 2 h = 7200 s.
            let battery = try root.supply(
                "BAT0",
                ["type": "Battery", "capacity": "60", "status": "Discharging", "charge_now": "3000000", "current_now": "-1500000"])
            #expect(SysfsBattery.reading(of: battery).timeToEmptySeconds == 7200)
        }
    }

    @Test("charging with energy_full: time to full is the missing energy over power")
    func timeToFullFromEnergy() async throws {
        try await withPowerSupplyRoot { root in
            // 30 Wh missing at 12 W: 2.5 h = 9000 s.
            let battery = try root.supply(
                "BAT0",
                [
                    "type": "Battery", "capacity": "40", "status": "Charging", "energy_now": "20000000",
                    "energy_full": "50000000", "power_now": "12000000",
                ])
            let reading = SysfsBattery.reading(of: battery)
            #expect(reading.state == .charging)
            #expect(reading.timeToFullSeconds == 9000)
            #expect(reading.timeToEmptySeconds == nil)
        }
    }

    @Test("charging with charge_full: time to full is the missing charge over current")
    func timeToFullFromCharge() async throws {
        try await withPowerSupplyRoot { root in
            // 1 Ah missing at 0.5 A: 2 h = 7200 s.
            let battery = try root.supply(
                "BAT0",
                [
                    "type": "Battery", "capacity": "75", "status": "Charging", "charge_now": "3000000",
                    "charge_full": "4000000", "current_now": "500000",
                ])
            #expect(SysfsBattery.reading(of: battery).timeToFullSeconds == 7200)
        }
    }

    @Test("no power flowing gives no estimate, rather than a division by zero")
    func zeroPower() async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply(
                "BAT0",
                [
                    "type": "Battery", "capacity": "40", "status": "Discharging", "energy_now": "20000000",
                    "energy_full": "50000000", "power_now": "0",
                ])
            let reading = SysfsBattery.reading(of: battery)
            #expect(reading.timeToEmptySeconds == nil)
            #expect(reading.timeToFullSeconds == nil)
        }
    }

    @Test("a full battery has neither time to empty nor time to full")
    func fullHasNoEstimate() async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply(
                "BAT0",
                [
                    "type": "Battery", "capacity": "100", "status": "Full", "energy_now": "50000000",
                    "energy_full": "50000000", "power_now": "1000000",
                ])
            let reading = SysfsBattery.reading(of: battery)
            #expect(reading.state == .full)
            #expect(reading.timeToEmptySeconds == nil)
            #expect(reading.timeToFullSeconds == nil)
        }
    }

    @Test("a present file of 0 means the battery is not there")
    func notPresent() async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply("BAT0", ["type": "Battery", "present": "0", "status": "Unknown"])
            let reading = SysfsBattery.reading(of: battery)
            #expect(!reading.present)
            #expect(reading.level == nil)
            #expect(reading.json[member: "present"] == .bool(false))
        }
    }

    @Test("a present file of 1 means the battery is there")
    func present() async throws {
        try await withPowerSupplyRoot { root in
            let battery = try root.supply("BAT0", ["type": "Battery", "present": "1", "capacity": "30"])
            let reading = SysfsBattery.reading(of: battery)
            #expect(reading.present)
            #expect(reading.percentage == 30)
        }
    }
}

@Suite("SysfsSource", .timeLimit(.minutes(1)))
struct SysfsSourceTests {
    @Test("is named sysfs")
    func name() {
        #expect(SysfsSource(root: "/nonexistent", sleep: { _ in }).name == "sysfs")
    }

    @Test("reports a reading, then sleeps the interval, before every poll")
    func pollsEveryInterval() async throws {
        try await withPowerSupplyRoot { root in
            try root.supply("BAT0", ["type": "Battery", "capacity": "80", "status": "Discharging"])
            let sleeps = Mutex<[Duration]>([])
            let reports = Mutex<[BatteryReading]>([])
            let source = SysfsSource(root: root.path, interval: .seconds(7)) { duration in
                let count = sleeps.withLock {
                    $0.append(duration)
                    return $0.count
                }
                if count == 3 { throw CancellationError() }
            }

            // Returns once the third sleep throws.
            await source.run { reading in reports.withLock { $0.append(reading) } }

            #expect(sleeps.withLock { $0 } == [.seconds(7), .seconds(7), .seconds(7)])
            let readings = reports.withLock { $0 }
            #expect(readings.count == 3)
            #expect(readings.allSatisfy { $0.present && $0.percentage == 80 && $0.state == .discharging && $0.source == "sysfs" })
        }
    }

    /// Runs a source over `root` in a task whose sleeps each wait for one tick from the test.
    private func drive(root: String) -> (readings: AsyncStream<BatteryReading>, ticks: AsyncStream<Void>.Continuation, task: Task<Void, Never>) {
        let (ticks, tick) = AsyncStream.makeStream(of: Void.self)
        let (readings, report) = AsyncStream.makeStream(of: BatteryReading.self)
        let source = SysfsSource(root: root, interval: .seconds(30)) { _ in
            var iterator = ticks.makeAsyncIterator()
            guard await iterator.next() != nil else { throw CancellationError() }
        }
        let task = Task {
            await source.run { report.yield($0) }
            report.finish()
        }
        return (readings, tick, task)
    }

    @Test("a changed capacity is reported at the next poll")
    func capacityChange() async throws {
        try await withPowerSupplyRoot { root in
            try root.supply("BAT0", ["type": "Battery", "capacity": "80", "status": "Discharging"])
            let (readings, ticks, task) = drive(root: root.path)
            var iterator = readings.makeAsyncIterator()

            let first = try #require(await iterator.next())
            #expect(first.percentage == 80)
            #expect(first.state == .discharging)

            ticks.yield()
            let second = try #require(await iterator.next())
            #expect(second.percentage == 80)

            try root.write("BAT0", "capacity", "79")
            try root.write("BAT0", "status", "Charging")
            ticks.yield()
            let third = try #require(await iterator.next())
            #expect(third.percentage == 79)
            #expect(third.state == .charging)

            task.cancel()
            ticks.finish()
            await task.value
            // Once cancelled, the source stops polling and reports nothing more.
            #expect(await iterator.next() == nil)
        }
    }

    @Test("a battery that appears or vanishes between polls is followed")
    func hotPlug() async throws {
        try await withPowerSupplyRoot { root in
            try root.supply("AC", ["type": "Mains"])
            let (readings, ticks, task) = drive(root: root.path)
            var iterator = readings.makeAsyncIterator()

            let before = try #require(await iterator.next())
            #expect(before == .absent(source: "sysfs"))
            #expect(!before.present)

            try root.supply("BAT0", ["type": "Battery", "capacity": "64", "status": "Charging"])
            ticks.yield()
            let plugged = try #require(await iterator.next())
            #expect(plugged.present)
            #expect(plugged.percentage == 64)
            #expect(plugged.state == .charging)

            try root.removeSupply("BAT0")
            ticks.yield()
            let unplugged = try #require(await iterator.next())
            #expect(!unplugged.present)
            #expect(unplugged.source == "sysfs")

            task.cancel()
            ticks.finish()
            await task.value
        }
    }

    @Test("a missing root reports no battery")
    func missingRoot() async throws {
        let reports = Mutex<[BatteryReading]>([])
        let source = SysfsSource(root: "/nonexistent/noiseclock-\(UUID().uuidString)") { _ in throw CancellationError() }
        await source.run { reading in reports.withLock { $0.append(reading) } }
        #expect(reports.withLock { $0 } == [.absent(source: "sysfs")])
    }
}

extension JSONValue {
    subscript(member member: String) -> JSONValue? { objectValue?[member] }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

@Suite("Battery through a mocked UPower and sysfs, over a real Mosquitto")
struct BatteryTests {
    @Test("UPower: initial values, changes within a second, charging/full, battery_low once, and UPower leaving and returning")
    func upowerFollowed() async throws {
        let upower = try await UPowerMock()
        try await upower.setupDisplayDevice(state: 2, percentage: 30, timeToEmpty: 1200)
        let environment = upower.environment.merging(["NOISECLOCK_BATTERY_SOURCE": "auto"]) { _, b in b }
        try await withNode(environment: environment) { node, process, client in
            let first = try #require(await client.waitFor(node.topics.battery), "log:\n\(process.log)")
            let initial = try JSONValue.parse(first.payload)
            #expect(initial["present"] == true)
            #expect(initial["percentage"] == 30)
            #expect(initial["state"] == "discharging")
            #expect(initial["charging"] == false)
            #expect(initial["level"] == "yellow")
            #expect(initial["time_to_empty_s"] == 1200)
            #expect(initial["source"] == "upower")
            let status = try #require(await client.waitFor(node.topics.status))
            #expect(try JSONValue.parse(status.payload)["battery_source"] == "upower")

            // A change reaches B/battery at once (UPower's notifications, no polling); the two
            // properties of one change are coalesced (20 ms) into one reading, or, when a loaded
            // machine spreads their notifications wider, two.
            client.clear()
            let changed = ContinuousClock.now
            try await upower.set(percentage: 55.5, state: 1)
            let charging = try #require(await client.waitFor(node.topics.battery, timeout: .seconds(10)) {
                let json = try? JSONValue.parse($0.payload)
                return json?["percentage"] == 55.5 && json?["state"] == "charging"
            })
            print("BatteryTests: UPower change → B/battery in \(ContinuousClock.now - changed)")
            let chargingJSON = try JSONValue.parse(charging.payload)
            #expect(chargingJSON["charging"] == true)
            #expect(chargingJSON["level"] == "green")
            #expect((1...2).contains(client.messages(on: node.topics.battery).count), "one reading per change, not one per property")

            try await upower.set(percentage: 100, state: 4)
            let full = await client.waitFor(node.topics.battery) { (try? JSONValue.parse($0.payload)["state"]) == "full" }
            #expect(full.flatMap { try? JSONValue.parse($0.payload)["percentage"] } == 100)

            // Falling below the threshold (20) while discharging warns once.
            try await upower.set(percentage: 19.0, state: 2)
            _ = await client.waitFor(node.topics.battery) { (try? JSONValue.parse($0.payload)["percentage"]) == 19 }
            try await upower.set(percentage: 12.0, state: 2)
            _ = await client.waitFor(node.topics.battery) { (try? JSONValue.parse($0.payload)["percentage"]) == 12 }
            try await Task.sleep(for: .milliseconds(300))
            let lows = client.messages(on: node.topics.event).filter { (try? JSONValue.parse($0.payload)["event"]) == "battery_low" }
            #expect(lows.count == 1)
            #expect(lows.first.flatMap { try? JSONValue.parse($0.payload)["percentage"] } == 19)

            // UPower leaves the bus: the node stays up and says the battery is not known.
            client.clear()
            await upower.kill()
            let gone = await client.waitFor(node.topics.battery) { (try? JSONValue.parse($0.payload)["present"]) == false }
            #expect(gone.flatMap { try? JSONValue.parse($0.payload)["source"] } == "upower")
            #expect(process.isRunning)
            let ping = try await client.request(node.topics, "ping")
            #expect(ping["status"] == "ok")

            // UPower comes back: the values come back, without a restart.
            try await upower.start()
            try await upower.setupDisplayDevice(state: 2, percentage: 42, timeToEmpty: 3000)
            let back = await client.waitFor(node.topics.battery) { (try? JSONValue.parse($0.payload)["percentage"]) == 42 }
            #expect(back.flatMap { try? JSONValue.parse($0.payload)["present"] } == true)
            #expect(back.flatMap { try? JSONValue.parse($0.payload)["time_to_empty_s"] } == 3000)

            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("sysfs: auto falls back to the first battery under battery.sysfs_root when UPower does not answer")
    func sysfsFallback() async throws {
        let root = try makeTemporaryDirectory("power_supply")
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (name, files) in [("AC", ["type": "Mains", "online": "1"]),
                              ("BAT0", ["type": "Battery", "capacity": "64", "status": "Discharging", "energy_now": "30000000", "power_now": "10000000"])] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(name)", withIntermediateDirectories: true)
            for (file, value) in files { try "\(value)\n".write(toFile: "\(root)/\(name)/\(file)", atomically: true, encoding: .utf8) }
        }
        let environment = [
            "NOISECLOCK_BATTERY_SOURCE": "auto", "NOISECLOCK_BATTERY_SYSFS_ROOT": root,
            "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(root)/no-bus-here",
        ]
        try await withNode(environment: environment) { node, process, client in
            let message = try #require(await client.waitFor(node.topics.battery), "log:\n\(process.log)")
            let reading = try JSONValue.parse(message.payload)
            #expect(reading["source"] == "sysfs")
            #expect(reading["percentage"] == 64)
            #expect(reading["state"] == "discharging")
            #expect(reading["level"] == "green")
            #expect(reading["time_to_empty_s"] == 10800)
        }
    }

    @Test("a machine with no battery and no UPower reports present:false; battery.source none publishes nothing")
    func noBattery() async throws {
        let root = try makeTemporaryDirectory("empty_supply")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let environment = [
            "NOISECLOCK_BATTERY_SOURCE": "auto", "NOISECLOCK_BATTERY_SYSFS_ROOT": root,
            "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(root)/no-bus-here",
        ]
        try await withBroker { broker in
            try await withNode(on: broker, environment: environment, subscriptions: { _ in ["noiseclock/#"] }) { auto, _, client in
                let off = try NodeProcess(
                    port: broker.port, environment: environment.merging(["NOISECLOCK_BATTERY_SOURCE": "none"]) { _, b in b })
                try await withStopping(off) { off in
                    try await off.startOnline(seenBy: client)

                    let reading = try #require(await client.waitFor(auto.topics.battery))
                    let json = try JSONValue.parse(reading.payload)
                    #expect(json["present"] == false)
                    #expect(json["source"] == "none")
                    #expect(json["level"] == .null)
                    #expect(json["percentage"] == .null)

                    let offStatus = try #require(await client.waitFor(off.topics.status))
                    #expect(try JSONValue.parse(offStatus.payload)["battery_source"] == "none")
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(client.messages(on: off.topics.battery).isEmpty)
                }
            }
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func read(_ path: String) -> String {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("Night by the node's own light sensor in a real node process: a fake iio tree, display.light_sensor")
struct LightSensorIntegrationTests {
    @Test("2 lux for 35 s turns the night on, 20 lux for 35 s turns it off; the sensor is read on its own thread only while below_lux is set; Home Assistant gets the Illuminance sensor")
    func lightSensor() async throws {
        let root = try makeTemporaryDirectory("iio")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let panel = try makePanel(in: root, steps: 100), sensor = "\(root)/iio:device0"
        try FileManager.default.createDirectory(atPath: sensor, withIntermediateDirectories: true)
        // As a TSL2561 shows it: raw counts and the scale to lux.
        func light(_ lux: Int) throws {
            try "\(lux * 4)\n".write(toFile: "\(sensor)/in_illuminance_raw", atomically: true, encoding: .utf8)
        }
        try "0.25\n".write(toFile: "\(sensor)/in_illuminance_scale", atomically: true, encoding: .utf8)
        try light(120)
        let clock = try await FakeTime(at: at("2026-06-15T13:00:00+02:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_DISPLAY_BACKLIGHT": panel,
            "NOISECLOCK_DISPLAY_LIGHT_SENSOR": sensor,
        ]) { _, new in new }
        try await withNode(environment: environment, subscriptions: { ["\($0.node)/#", "homeassistant/device/#"] }) { node, process, client in
            let discovery = try #require(await client.latest("homeassistant/device/\(node.nodeID)/config") { _ in true }, "no discovery")
            #expect(discovery["cmps"]?["illuminance"]?["device_class"] == "illuminance", "the sensor gives Home Assistant its Illuminance sensor")
            // Not read while the night does not follow the light.
            #expect(!(try ThreadListTests.threadNames(process.pid)).contains("light sensor"))
            // B/display may come after the discovery: wait for its first message, then look.
            #expect(await client.latest(node.topics.display) { _ in true }?["lux"] == .null)

            let set = try await client.request(node.topics, "settings", #"{"face":{"day_brightness":90,"night":{"brightness":7,"below_lux":5}}}"#)
            try #require(set["status"] == "ok", "\(set.serialized)")
            #expect(await client.latest(node.topics.display) { $0["lux"] == 120 && $0["night"] == false } != nil, "log:\n\(process.log)")
            #expect(try ThreadListTests.threadNames(process.pid).contains("light sensor"))
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "90" })

            try light(2)
            #expect(await client.latest(node.topics.display) { $0["lux"] == 2 }?["night"] == false, "not at once")
            let darkAt = clock.now
            try clock.set(to: darkAt.addingTimeInterval(25))
            #expect(await client.latest(node.topics.display) { _ in true }?["night"] == false)
            try clock.set(to: darkAt.addingTimeInterval(35))
            #expect(await client.latest(node.topics.display) { $0["night"] == true && $0["brightness"] == 7 } != nil)
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "7" })

            try light(20)
            #expect(await client.latest(node.topics.display) { $0["lux"] == 20 } != nil)
            let brightAt = clock.now
            try clock.set(to: brightAt.addingTimeInterval(35))
            #expect(await client.latest(node.topics.display) { $0["night"] == false && $0["brightness"] == 90 } != nil)
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "90" })

            // below_lux taken away: the reading thread ends.
            #expect(try await client.request(node.topics, "settings", #"{"face":{"night":{"below_lux":null}}}"#)["status"] == "ok")
            #expect(await eventually(timeout: .seconds(20)) { !((try? ThreadListTests.threadNames(process.pid)) ?? []).contains("light sensor") })
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// A sunrise (SPEC §12) in a real node process against a real Mosquitto: a backlight in a fake
// sysfs tree, a fake Zigbee2MQTT lamp (its `…/set` topic read by the test), the wall clock driven
// by libfaketime.

private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

extension JSONValue {
    fileprivate var numeric: Double? {
        if case .number(let value) = self { return value }
        return nil
    }
}

private func read(_ path: String) -> String {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("A sunrise in a real node process: the screen, a Zigbee2MQTT lamp, B/wake")
struct SunriseTests {
    @Test("the night screen climbs along the curve, the lamp gets its ramp, B/wake and the events follow; the alarm switched off ends it and the lamp goes off")
    func sunrise() async throws {
        let root = try makeTemporaryDirectory("sunrise")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let panel = "\(root)/panel"
        try FileManager.default.createDirectory(atPath: panel, withIntermediateDirectories: true)
        for (file, value) in [("max_brightness", "1000"), ("brightness", "500"), ("bl_power", "0"), ("actual_brightness", "500")] {
            try "\(value)\n".write(toFile: "\(panel)/\(file)", atomically: true, encoding: .utf8)
        }
        let clock = try await FakeTime(at: at("2026-06-15T05:50:00+02:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_DISPLAY_BACKLIGHT": panel,
        ]) { _, new in new }
        let configuration = """
            wake:
              lights:
                - topic: zigbee2mqtt/bedroom-lamp/set
                  color_temp: [2000, 4000]
                  min_interval_s: 5
            """
        try await withNode(
            environment: environment, configuration: configuration, subscriptions: { ["\($0.node)/#", "zigbee2mqtt/#"] }
        ) { node, process, client in
            // Night from 22:00 to 07:00 at 5 %.
            let night = try await client.request(node.topics, "settings", #"{"face":{"night":{"enabled":true,"start":"22:00","end":"07:00","brightness":5}}}"#)
            try #require(night["status"] == "ok", "\(night.serialized)")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "50" }, "5 % of 1000: \(read("\(panel)/brightness"))")
            let added = try await client.request(node.topics, "alarm/add", #"{"time":"06:30","label":"Work","sunrise_min":30,"lights":true}"#)
            let id = try #require(added["data"]?["id"]?.stringValue, "\(added.serialized)")

            // Halfway through the sunrise: the screen at the curve's 32 % from 5 %, the lamp on its ramp.
            try clock.set(to: at("2026-06-15T06:15:00+02:00"))
            let began = try #require(
                await client.waitFor(node.topics.event, timeout: .seconds(20)) { json($0)?["event"] == "wake_sunrise" }.flatMap(json),
                "no wake_sunrise; log:\n\(process.log)")
            #expect(began["ring_at"] == "2026-06-15T06:30:00+02:00")
            let rising = try #require(await client.latest(node.topics.state(StateTopic.wake)) { $0["phase"] == "sunrise" })
            #expect(rising["alarm_id"] == .string(id))
            let progress = try #require(rising["progress"]?.numeric)
            #expect(progress >= 0.49 && progress <= 0.56, "\(rising.serialized)")
            let expected = SunriseCurve.backlight(progress, from: 5)
            #expect(await eventually(timeout: .seconds(20)) {
                let now = Int(read("\(panel)/brightness")) ?? 0
                return abs(now - expected * 10) <= 20
            }, "the screen at \(read("\(panel)/brightness")) / 1000, the curve says \(expected) %")
            let lamp = try #require(
                await client.waitFor("zigbee2mqtt/bedroom-lamp/set", timeout: .seconds(20)) { json($0)?["state"] == "ON" }.flatMap(json),
                "no lamp command; log:\n\(process.log)")
            #expect(lamp["transition"] == 5)
            let brightness = try #require(lamp["brightness"]?.numeric)
            #expect(abs(brightness - SunriseCurve.level(progress) * 254) <= 8, "\(lamp.serialized) at progress \(progress)")
            let mireds = try #require(lamp["color_temp"]?.numeric)
            #expect(mireds < 500 && mireds > 250, "between 2000 K and 4000 K: \(mireds)")
            // A later step is brighter.
            let later = await client.waitFor("zigbee2mqtt/bedroom-lamp/set", timeout: .seconds(20)) {
                (json($0)?["brightness"]?.numeric ?? 0) > brightness
            }
            #expect(later != nil, "the lamp's ramp does not go on")

            // Switched off during its sunrise: idle, the screen back to the night level, the lamp off.
            #expect(try await client.request(node.topics, "alarm/disable", id)["status"] == "ok")
            #expect(await client.latest(node.topics.state(StateTopic.wake)) { $0["phase"] == "idle" } != nil)
            #expect(await client.waitFor("zigbee2mqtt/bedroom-lamp/set", timeout: .seconds(20)) { json($0)?["state"] == "OFF" } != nil)
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "50" }, "\(read("\(panel)/brightness"))")
        }
    }

    @Test("a one-minute sunrise: the lamp's commands start at ring − sunrise_min (± 1 s), rise monotonically every min_interval_s, and reach full at the ring")
    func lampRamp() async throws {
        let clock = try await FakeTime(at: at("2026-06-15T06:50:00+02:00"))
        let environment = clock.environment.merging(["NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "null"]) { _, new in new }
        let configuration = "wake:\n  lights:\n    - topic: zigbee2mqtt/lamp/set\n      min_interval_s: 5\n"
        try await withNode(
            environment: environment, configuration: configuration, subscriptions: { ["\($0.node)/#", "zigbee2mqtt/#"] }
        ) { node, process, client in
            let added = try await client.request(node.topics, "alarm/add", #"{"time":"07:00","sunrise_min":1,"lights":true}"#)
            try #require(added["status"] == "ok", "\(added.serialized)")
            let start = at("2026-06-15T06:59:00+02:00"), ring = at("2026-06-15T07:00:00+02:00")
            // Each command stamped by a subscriber's network loop as it arrives (the test itself may
            // look seconds later on a busy machine), in the node's faked time: the real arrival
            // plus the clock's offset, which stays as set from here on.
            let stamps = try await StampedSubscriber(brokerPort: node.port, topics: ["zigbee2mqtt/lamp/set"])
            try clock.set(to: start.addingTimeInterval(-3))
            let offset = clock.offset
            // Until the ring, 63 s on (the node sends the ring's lamp command in the same look as
            // `alarm_ringing`; the subscriber reads on for half a second after).
            let rang = await client.waitFor(node.topics.event, timeout: .seconds(90)) { json($0)?["event"] == "alarm_ringing" }
            #expect(rang != nil, "no alarm_ringing")
            let seen = try await stamps.finish().map { (at: Date(timeIntervalSince1970: $0.received + offset), brightness: $0.payload["brightness"]?.numeric ?? -1) }
            try #require(!seen.isEmpty, "no lamp command; log:\n\(process.log)")
            #expect(abs(seen[0].at.timeIntervalSince(start)) <= 1, "the first command at \(seen[0].at), the sunrise began at \(start)")
            let levels = seen.map(\.brightness)
            #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 <= $1 }, "not monotonic: \(levels)")
            #expect(seen.count >= 12 && seen.count <= 15, "one every 5 s over a minute, then full: \(seen.count)")
            for (earlier, later) in zip(seen, seen.dropFirst()).dropLast() {
                let gap = later.at.timeIntervalSince(earlier.at)
                #expect(gap >= 4 && gap <= 6, "commands \(gap) s apart")
            }
            let last = try #require(seen.last)
            #expect(last.brightness == 254, "\(levels)")
            #expect(abs(last.at.timeIntervalSince(ring)) <= 1, "full at \(last.at), the ring at \(ring): \(seen.map { "\($0.at.timeIntervalSince(ring)) s: \($0.brightness)" })")
        }
    }
}

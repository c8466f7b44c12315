import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// The night light (SPEC §13) in a real node process against a real Mosquitto: a backlight in a
// fake sysfs tree, the wall clock driven by libfaketime.

private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func read(_ path: String) -> String {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("The night light in a real node process: the nightlight verb, B/nightlight, the backlight, its minutes, a sunrise taking the screen, a restart")
struct NightLightIntegrationTests {
    @Test("on in a colour at a brightness (the node's form and Home Assistant's), the backlight follows; bad input changes nothing; a sunrise takes the screen and the lamp comes back after; a restart keeps it; off after its minutes, a clock set back does not make it last longer")
    func nightLight() async throws {
        let root = try makeTemporaryDirectory("nightlight")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let panel = try makePanel(in: root, steps: 100)
        let clock = try await FakeTime(at: at("2026-06-15T21:00:00+02:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_DISPLAY_BACKLIGHT": panel,
        ]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let topic = node.topics.state(StateTopic.nightLight)
            let set = try await client.request(node.topics, "settings", #"{"face":{"day_brightness":80,"night":{"enabled":true,"start":"21:05","end":"07:00","brightness":5}}}"#)
            try #require(set["status"] == "ok", "\(set.serialized)")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "80" }, "\(read("\(panel)/brightness"))")
            #expect(await client.latest(topic) { $0["state"] == "OFF" && $0["hex"] == "#FF8A3D" } != nil, "B/nightlight at the start")

            let asked = clock.now
            let on = try await client.request(node.topics, "nightlight", ##"{"on":true,"color":"#ffb070","brightness":15,"off_after_min":20}"##)
            let answered = clock.now
            try #require(on["status"] == "ok", "\(on.serialized)")
            #expect(on["data"]?["state"] == "ON" && on["data"]?["hex"] == "#FFB070" && on["data"]?["color"] == ["r": 255, "g": 176, "b": 112])
            // off_at is 20 minutes after the node took the command, which it did between the
            // request and its answer, however long a loaded machine made that (a second's leeway
            // each side: off_at is to the second, and so is libfaketime's look at the offset).
            let lit = at(try #require(on["data"]?["off_at"]?.stringValue, "\(on.serialized)")).addingTimeInterval(-1200)
            #expect(lit > asked.addingTimeInterval(-2) && lit < answered.addingTimeInterval(1), "off_at is 20 minutes from the command: \(on.serialized), asked \(asked), answered \(answered)")
            #expect(await client.latest(topic) { $0["on"] == true && $0["brightness"] == 15 } != nil)
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "15" }, "the lamp's brightness: \(read("\(panel)/brightness"))")

            // Home Assistant's JSON light: its colour and brightness.
            let ha = try await client.request(node.topics, "nightlight", #"{"state":"ON","color":{"r":0,"g":64,"b":255},"brightness":25,"transition":1}"#)
            #expect(ha["status"] == "ok" && ha["data"]?["hex"] == "#0040FF" && ha["data"]?["color_mode"] == "rgb", "\(ha.serialized)")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "25" })

            // Bad input names the field and changes nothing.
            for (payload, field) in [(#"{"brightness":0}"#, "brightness"), (##"{"color":"#00ff"}"##, "color"), (#"{"on":true,"state":"OFF"}"#, "state")] {
                let bad = try await client.request(node.topics, "nightlight", payload)
                #expect(bad["status"] == "error" && bad["error"]?["field"] == .string(field), "\(payload): \(bad.serialized)")
            }
            #expect(client.latest(topic)?["hex"] == "#0040FF" && client.latest(topic)?["brightness"] == 25)

            // An alarm's sunrise takes the screen (from the night level, night since 21:05, up), and gives it back.
            let always = try await client.request(node.topics, "nightlight", #"{"off_after_min":0}"#)
            #expect(always["data"]?["off_at"] == .null, "\(always.serialized)")
            let alarm = try await client.request(node.topics, "alarm/add", #"{"time":"21:40","sunrise_min":30}"#)
            let id = try #require(alarm["data"]?["id"]?.stringValue, "\(alarm.serialized)")
            try clock.set(to: at("2026-06-15T21:11:00+02:00"))
            #expect(await client.latest(node.topics.state(StateTopic.wake)) { $0["phase"] == "sunrise" } != nil)
            #expect(await eventually(timeout: .seconds(20)) { (Int(read("\(panel)/brightness")) ?? 100) < 25 },
                    "the sunrise's start, not the lamp: \(read("\(panel)/brightness"))")
            let deleted = try await client.request(node.topics, "alarm/delete", JSONValue.object(["id": .string(id)]).serialized)
            #expect(deleted["status"] == "ok")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "25" }, "the lamp is back: \(read("\(panel)/brightness"))")

            // A restart keeps it on, in its colour.
            let timed = try await client.request(node.topics, "nightlight", #"{"off_after_min":20}"#)
            let offAt = try #require(timed["data"]?["off_at"]?.stringValue, "\(timed.serialized)")
            client.clear()
            await process.stop()
            try await node.startOnline(seenBy: client)
            #expect(await client.latest(topic) { $0["on"] == true && $0["hex"] == "#0040FF" && $0["off_at"] == .string(offAt) } != nil,
                    "after the restart: \(client.latest(topic)?.serialized ?? "nothing")")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "25" })

            // The clock set back by an hour: the end moves back with it (20 minutes are 20 minutes).
            let end = at(offAt)
            try clock.set(to: clock.now.addingTimeInterval(-3600))
            #expect(await client.latest(topic) { $0["off_at"].flatMap(\.stringValue).map { abs(at($0).timeIntervalSince(end) + 3600) < 5 } ?? false } != nil,
                    "off_at after the set-back: \(client.latest(topic)?.serialized ?? "nothing"), was \(offAt)")
            // Off at its end; the day's brightness is back.
            let moved = at(try #require(client.latest(topic)?["off_at"]?.stringValue))
            try clock.set(to: moved.addingTimeInterval(1))
            #expect(await client.latest(topic) { $0["on"] == false && $0["state"] == "OFF" } != nil, "log:\n\(process.log)")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "80" }, "\(read("\(panel)/brightness"))")
        }
    }
}

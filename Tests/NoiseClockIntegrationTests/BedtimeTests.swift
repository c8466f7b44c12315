import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// Bedtime (SPEC §13) in a real node process against a real Mosquitto: a backlight in a fake
// sysfs tree, an ALSA file sink, the wall clock driven by libfaketime.

private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

/// A backlight of `steps` steps in a fake sysfs tree under `root`, at half (also for the night
/// light's and the light sensor's tests).
func makePanel(in root: String, steps: Int) throws -> String {
    let panel = "\(root)/panel"
    try FileManager.default.createDirectory(atPath: panel, withIntermediateDirectories: true)
    for (file, value) in [("max_brightness", steps), ("brightness", steps / 2), ("bl_power", 0), ("actual_brightness", steps / 2)] {
        try "\(value)\n".write(toFile: "\(panel)/\(file)", atomically: true, encoding: .utf8)
    }
    return panel
}

private func read(_ path: String) -> String {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("Bedtime in a real node process: the wind-down's sunset on a fake backlight, its sounds in an ALSA file sink, B/bedtime")
struct BedtimeTests {
    @Test("bedtime/start: the sounds start with the sleep timer, the screen falls along the curve to the night level in the night's theme and stays there after; bedtime/stop stops the sounds and gives the day back")
    func startAndStop() async throws {
        let root = try makeTemporaryDirectory("bedtime")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let panel = try makePanel(in: root, steps: 1000), sink = "\(root)/out.raw"
        let clock = try await FakeTime(at: at("2026-06-15T21:00:00+02:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "100",
            "NOISECLOCK_DISPLAY_BACKLIGHT": panel,
        ]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let set = try await client.request(
                node.topics, "settings",
                #"{"face":{"day_brightness":80,"night":{"enabled":false,"brightness":5,"end":"07:00","theme":"red"}},"bedtime":{"time":"23:30","wind_down_min":30,"sounds":["Heavy rain"],"volume":50,"sleep_min":45}}"#)
            try #require(set["status"] == "ok", "\(set.serialized)")
            #expect(set["data"]?["bedtime"]?["sounds"] == ["heavy-rain-white-noise"], "stored by id")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "800" }, "day at 80 %: \(read("\(panel)/brightness"))")
            let idle = try #require(await client.latest(node.topics.state(StateTopic.bedtime)) { $0["phase"] == "idle" })
            #expect(idle["next_at"] == "2026-06-15T23:30:00+02:00")

            let started = try await client.request(node.topics, "bedtime/start")
            try #require(started["status"] == "ok", "\(started.serialized)")
            #expect(started["data"]?["phase"] == "winding_down")
            let event = try #require(await client.waitFor(node.topics.event) { json($0)?["event"] == "bedtime_started" }.flatMap(json))
            #expect(event["by_hand"] == true && event["bedtime_at"] == "2026-06-15T23:30:00+02:00", "\(event.serialized)")
            // The faked clock runs on from 21:00: the wind-down lasts 30 minutes from when it began.
            let began = at(try #require(event["at"]?.stringValue))
            let ends = at(try #require(started["data"]?["ends_at"]?.stringValue))
            #expect(abs(ends.timeIntervalSince(began) - 1800) <= 1, "\(started.serialized), \(event.serialized)")
            let noise = try #require(await client.latest(node.topics.noise) { $0["playing"] == true }, "the sounds did not start; log:\n\(process.log)")
            #expect(noise["sounds"] == [["id": "heavy-rain-white-noise", "volume": 100]] && noise["volume"] == 50, "\(noise.serialized)")
            let sleepEnds = at(try #require(noise["sleep_timer_ends_at"]?.stringValue, "\(noise.serialized)"))
            #expect(abs(sleepEnds.timeIntervalSince(began) - 45 * 60) <= 2, "the sleep timer of 45 minutes: \(noise.serialized)")

            // Halfway: the curve's level between 80 % and 5 %, in the night's theme.
            try clock.set(to: began.addingTimeInterval(900))
            let halfway = SunriseCurve.brightness(0.5, from: 80, to: 5)
            #expect(halfway > 20 && halfway < 45, "lightness halfway, not brightness halfway: \(halfway)")
            #expect(await eventually(timeout: .seconds(20)) { abs((Int(read("\(panel)/brightness")) ?? 0) - halfway * 10) <= 20 },
                    "the screen at \(read("\(panel)/brightness")) / 1000, the curve says \(halfway) %")
            let dimming = try #require(await client.latest(node.topics.display) { $0["night"] == true })
            #expect(dimming["theme"] == "red", "\(dimming.serialized)")

            // At its end: the night level, idle, and the night holds (the schedule is off).
            try clock.set(to: ends.addingTimeInterval(1))
            #expect(await client.latest(node.topics.state(StateTopic.bedtime)) { $0["phase"] == "idle" } != nil)
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "50" }, "\(read("\(panel)/brightness"))")
            #expect(await client.waitFor(node.topics.event) { json($0)?["event"] == "bedtime_ended" && json($0)?["reason"] == "end" } != nil)
            try clock.set(to: at("2026-06-15T23:50:00+02:00"))
            #expect(await client.latest(node.topics.display) { $0["night"] == true && $0["brightness"] == 5 } != nil, "the night after it")

            // The sink has the rain.
            #expect(await eventually(timeout: .seconds(10)) { samples(sink).count > 44_100 * 2 })
            #expect(windowedRMS(samples(sink)).max() ?? 0 > 100, "the wind-down's rain reached the sink")

            // Stopped: the sounds stop and the day is back (the schedule is off).
            let stopped = try await client.request(node.topics, "bedtime/stop")
            #expect(stopped["status"] == "ok" && stopped["data"]?["phase"] == "idle", "\(stopped.serialized)")
            #expect(await client.latest(node.topics.noise) { $0["playing"] == false } != nil)
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "800" }, "\(read("\(panel)/brightness"))")
        }
    }

    @Test("the schedule: the reminder at time − reminder_min, the wind-down at time − wind_down_min, B/bedtime's phases; a restart in the middle resumes without a second start")
    func scheduled() async throws {
        let clock = try await FakeTime(at: at("2026-06-15T22:00:00+02:00"))
        let environment = clock.environment.merging(["NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "null"]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let set = try await client.request(node.topics, "settings", #"{"bedtime":{"time":{"mon":"22:30"},"reminder_min":15,"wind_down_min":10,"sounds":[]}}"#)
            try #require(set["status"] == "ok", "\(set.serialized)")
            #expect(set["data"]?["bedtime"]?["time"] == ["mon": "22:30"])
            try clock.set(to: at("2026-06-15T22:15:00+02:00"))
            let reminder = try #require(await client.waitFor(node.topics.event) { json($0)?["event"] == "bedtime_reminder" }.flatMap(json),
                                        "no reminder; log:\n\(process.log)")
            #expect(reminder["bedtime_at"] == "2026-06-15T22:30:00+02:00")
            #expect(await client.latest(node.topics.state(StateTopic.bedtime)) { $0["phase"] == "reminder" } != nil)
            try clock.set(to: at("2026-06-15T22:22:00+02:00"))
            let winding = try #require(await client.latest(node.topics.state(StateTopic.bedtime)) { $0["phase"] == "winding_down" })
            #expect(winding["ends_at"] == "2026-06-15T22:30:00+02:00" && winding["next_at"] == "2026-06-15T22:30:00+02:00")

            // A restart in the middle: still winding down, no second start, no second reminder.
            client.clear()
            await process.stop()
            try await node.startOnline(seenBy: client)
            #expect(await client.latest(node.topics.state(StateTopic.bedtime)) { $0["phase"] == "winding_down" } != nil)
            try clock.set(to: at("2026-06-15T22:30:00+02:00"))
            let after = try #require(await client.latest(node.topics.state(StateTopic.bedtime)) { $0["phase"] == "idle" })
            #expect(after["next_at"] == "2026-06-22T22:30:00+02:00", "next Monday")
            let names = client.messages(on: node.topics.event).compactMap { json($0)?["event"]?.stringValue }
            #expect(!names.contains("bedtime_started") && !names.contains("bedtime_reminder"), "\(names)")
            #expect(names.contains("bedtime_ended"), "\(names)")

            // Bad input names the field and changes nothing.
            let bad = try await client.request(node.topics, "settings", #"{"bedtime":{"time":{"mon":"22:30","fry":"23:00"}}}"#)
            #expect(bad["status"] == "error" && bad["error"]?["field"] == "bedtime.time.fry", "\(bad.serialized)")
            let unknown = try await client.request(node.topics, "settings", #"{"bedtime":{"sounds":["no such sound"]}}"#)
            #expect(unknown["status"] == "error" && unknown["error"]?["field"] == "bedtime.sounds", "\(unknown.serialized)")
            let settings = try #require(client.latest(node.topics.settings))
            #expect(settings["bedtime"]?["time"] == ["mon": "22:30"])
        }
    }
}

@Suite("The kids' clock in a real node process, its wall clock driven by libfaketime")
struct KidsClockIntegrationTests {
    @Test("through a night: stay in bed, almost, you can get up (kids_ok once), then the normal face; the screen stays at the night level while it shows; a restart in the morning announces nothing twice")
    func night() async throws {
        let root = try makeTemporaryDirectory("kids")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let panel = try makePanel(in: root, steps: 100)
        // Sunday 25 October 2026, the night the clocks go back in Berlin: 03:00 CEST becomes 02:00 CET.
        let clock = try await FakeTime(at: at("2026-10-24T18:00:00+02:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_DISPLAY_BACKLIGHT": panel,
        ]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let kids = node.topics.state(StateTopic.kids)
            let set = try await client.request(
                node.topics, "settings",
                #"{"face":{"day_brightness":90,"night":{"brightness":7}},"kids":{"enabled":true,"wake":{"sun":"07:30"},"warn_min":15,"ok_min":60,"sleep_from":"19:00"}}"#)
            try #require(set["status"] == "ok", "\(set.serialized)")
            let off = try #require(await client.latest(kids) { $0["state"] == "off" }, "log:\n\(process.log)")
            #expect(off["next_change_at"] == "2026-10-24T19:00:00+02:00", "\(off.serialized)")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "90" })

            try clock.set(to: at("2026-10-24T19:00:00+02:00"))
            let sleep = try #require(await client.latest(kids) { $0["state"] == "sleep" })
            // 07:15 CET on the Sunday: the night is an hour longer.
            #expect(sleep["next_change_at"] == "2026-10-25T07:15:00+01:00" && sleep["wake_at"] == "2026-10-25T07:30:00+01:00", "\(sleep.serialized)")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "7" }, "the night level: \(read("\(panel)/brightness"))")
            // Home Assistant's brightness does not light the child's room.
            #expect(try await client.request(node.topics, "display/brightness", "80")["status"] == "ok")
            #expect(await client.latest(node.topics.display) { $0["brightness"] == 7 } != nil)
            #expect(read("\(panel)/brightness") == "7")

            try clock.set(to: at("2026-10-25T07:15:00+01:00"))
            #expect(await client.latest(kids) { $0["state"] == "almost" && $0["next_change_at"] == "2026-10-25T07:30:00+01:00" } != nil)
            try clock.set(to: at("2026-10-25T07:30:00+01:00"))
            #expect(await client.latest(kids) { $0["state"] == "ok" && $0["next_change_at"] == "2026-10-25T08:30:00+01:00" } != nil)
            let ok = try #require(await client.waitFor(node.topics.event) { json($0)?["event"] == "kids_ok" }.flatMap(json))
            #expect(ok["wake_at"] == "2026-10-25T07:30:00+01:00")

            // A restart in the "you can get up" hour: no second kids_ok.
            client.clear()
            await process.stop()
            try await node.startOnline(seenBy: client)
            #expect(await client.latest(kids) { $0["state"] == "ok" } != nil)
            try clock.set(to: at("2026-10-25T08:30:00+01:00"))
            #expect(await client.latest(kids) { $0["state"] == "off" } != nil)
            #expect(!client.messages(on: node.topics.event).contains { json($0)?["event"] == "kids_ok" }, "kids_ok again after a restart")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "90" }, "the day's level: \(read("\(panel)/brightness"))")
        }
    }
}

@Suite("Night by the room's light in a real node process: display.lux_topic and face.night.below_lux")
struct LuxTopicTests {
    @Test("2 lux for 35 s turns the night on (at the 30th second), 20 lux for 35 s turns it off; B/display says the lux; a reading in between changes nothing")
    func luxTopic() async throws {
        let root = try makeTemporaryDirectory("lux")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let panel = try makePanel(in: root, steps: 100)
        let clock = try await FakeTime(at: at("2026-06-15T13:00:00+02:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_DISPLAY_BACKLIGHT": panel,
        ]) { _, new in new }
        let configuration = "display:\n  lux_topic: home/bedroom/illuminance\n"
        try await withNode(environment: environment, configuration: configuration) { node, process, client in
            let set = try await client.request(node.topics, "settings", #"{"face":{"day_brightness":90,"night":{"brightness":7,"below_lux":5}}}"#)
            try #require(set["status"] == "ok", "\(set.serialized)")
            // The first reading decides at once: day.
            client.publish("home/bedroom/illuminance", #"{"illuminance":120}"#)
            #expect(await client.latest(node.topics.display) { $0["lux"] == 120 && $0["night"] == false } != nil, "log:\n\(process.log)")
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "90" })

            // Dark: night only once it has stayed dark for 30 s.
            client.publish("home/bedroom/illuminance", "2")
            let dark = try #require(await client.latest(node.topics.display) { $0["lux"] == 2 })
            #expect(dark["night"] == false, "not at once: \(dark.serialized)")
            let darkAt = clock.now
            try clock.set(to: darkAt.addingTimeInterval(25))
            #expect(await client.latest(node.topics.display) { _ in true }?["night"] == false)
            try clock.set(to: darkAt.addingTimeInterval(35))
            #expect(await client.latest(node.topics.display) { $0["night"] == true && $0["brightness"] == 7 } != nil)
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "7" })

            // 8 lux is between 5 and 10: the night stays, however long.
            client.publish("home/bedroom/illuminance", "8")
            #expect(await client.latest(node.topics.display) { $0["lux"] == 8 } != nil)
            try clock.set(to: darkAt.addingTimeInterval(600))
            #expect(await client.latest(node.topics.display) { _ in true }?["night"] == true)

            // Bright again: day after 30 s above 10 lux.
            client.publish("home/bedroom/illuminance", "20")
            #expect(await client.latest(node.topics.display) { $0["lux"] == 20 } != nil)
            let brightAt = clock.now
            try clock.set(to: brightAt.addingTimeInterval(35))
            #expect(await client.latest(node.topics.display) { $0["night"] == false && $0["brightness"] == 90 } != nil)
            #expect(await eventually(timeout: .seconds(20)) { read("\(panel)/brightness") == "90" })
        }
    }
}

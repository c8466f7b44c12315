import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// Alarms that wake to a station (SPEC §15), in real node processes whose wall clock is driven by
// libfaketime, with a real Icecast fed by ffmpeg and an ALSA file sink.

private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

/// The events `name` received so far.
private func events(_ client: TestClient, _ topics: Topics, _ name: String) -> [JSONValue] {
    client.messages(on: topics.event).compactMap(json).filter { $0["event"]?.stringValue == name }
}

/// The first event `name` with `to` (for `alarm_fallback`) when given.
private func event(_ client: TestClient, _ topics: Topics, _ name: String, to: String? = nil) async -> JSONValue? {
    await client.waitFor(topics.event, timeout: .seconds(30)) { message in
        guard let value = json(message), value["event"]?.stringValue == name else { return false }
        return to == nil || value["to"]?.stringValue == to
    }.flatMap(json)
}

/// The pitch and level of each half second of the sink from sample `from` on, once it holds
/// `seconds` more than that.
private func halves(_ sink: String, after from: Int, seconds: Double) async -> [(pitch: Double, rms: Double)] {
    let wanted = from + Int(seconds * 88_200)
    guard await eventually(timeout: .seconds(30), { samples(sink).count >= wanted }) else { return [] }
    let audio = Array(samples(sink)[from..<wanted])
    return stride(from: 0, to: audio.count - 44_100 + 1, by: 44_100).map { start in
        let half = Array(audio[start..<(start + 44_100)])
        return (pitch(half), rms(half, from: 0, to: 0.5))
    }
}

@Suite("Alarms that wake to a station, from a real Icecast", .serialized)
struct RadioAlarmTests {
    func environment(_ clock: FakeTime, sink: String) -> [String: String] {
        clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "100",
        ]) { _, new in new }
    }

    func configuration(_ stations: [(id: String, url: String, fallback: String?)], startTimeout: Int = 3) -> String {
        "radio:\n  buffer_s: 2\n  start_timeout_s: \(startTimeout)\n  stations:\n"
            + stations.map { station in
                "    - {id: \(station.id), name: \"\(station.id.uppercased())\", url: \"\(station.url)\""
                    + (station.fallback.map { ", fallback: \($0)" } ?? "") + "}\n"
            }.joined()
    }

    func add(_ client: TestClient, _ node: NodeProcess, _ payload: String) async throws -> String {
        let answer = try await client.request(node.topics, "alarm/add", payload)
        try #require(answer["status"] == "ok", "alarm/add \(payload): \(answer.serialized)")
        return try #require(answer["data"]?["id"]?.stringValue)
    }

    @Test("an alarm with a station rings it at its minute (connected ahead): its tone at the sink, no fallback; dismiss ends it")
    func ringsStation() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("a", .mp3, frequency: 440)
        let directory = try makeTemporaryDirectory("radio-alarm")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        try await withNode(environment: environment(clock, sink: sink), configuration: configuration([("a", icecast.url("a"), nil)], startTimeout: 10)) {
            node, process, client in
            let unknown = try await client.request(node.topics, "alarm/add", #"{"time":"07:30","sound":"radio:nowhere"}"#)
            #expect(unknown["error"]?["field"] == "sound", "\(unknown.serialized)")
            let id = try await add(client, node, #"{"time":"07:30","sound":"radio:A","fade_in_s":0,"volume":100}"#)
            let alarms = await client.latest(node.topics.alarms) { _ in true }
            #expect(alarms.map { "\($0)" }?.contains("radio:a") == true, "the station's id is stored: \(alarms?.serialized ?? "")")

            // Within the minute before: the station connects ahead.
            try clock.set(to: at("2026-06-15T07:29:30+02:00"))
            #expect(await eventually(timeout: .seconds(20)) { process.log.contains("alarm station ready ahead") }, "log:\n\(process.log)")
            try clock.set(to: at("2026-06-15T07:29:59+02:00"))
            let ringing = try #require(await event(client, node.topics, "alarm_ringing"), "log:\n\(process.log)")
            #expect(ringing["alarm_id"]?.stringValue == id)
            // Heard from the ring on (how soon is the bench's radio row; a loaded machine's sink lags).
            let heard = await halves(sink, after: samples(sink).count, seconds: 3)
            #expect(heard.filter { abs($0.pitch - 440) < 10 && $0.rms > 1_000 }.count >= 3, "the station at the sink: \(heard)")
            #expect(events(client, node.topics, "alarm_fallback").isEmpty, "\(events(client, node.topics, "alarm_fallback"))")

            _ = try await client.request(node.topics, "dismiss")
            #expect(await event(client, node.topics, "alarm_dismissed") != nil)
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("a station killed mid-alarm gives way to its fallback station, and that one to the built-in tone, each an alarm_fallback")
    func fallsBack() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("a", .mp3, frequency: 440)
        try await icecast.feed("b", .mp3, frequency: 660)
        let directory = try makeTemporaryDirectory("radio-fallback")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        let stations = configuration([("a", icecast.url("a"), "b"), ("b", icecast.url("b"), nil)], startTimeout: 10)
        try await withNode(environment: environment(clock, sink: sink), configuration: stations) { node, process, client in
            let id = try await add(client, node, #"{"time":"07:30","sound":"radio:a","fade_in_s":0,"volume":100}"#)
            // Connected ahead (as at home), so the station is what rings: a station still
            // connecting at the minute may be silent up to start_timeout_s, which is not this test's.
            try clock.set(to: at("2026-06-15T07:29:30+02:00"))
            #expect(await eventually(timeout: .seconds(20)) { process.log.contains("alarm station ready ahead") }, "log:\n\(process.log)")
            try clock.set(to: at("2026-06-15T07:29:58+02:00"))
            #expect(await event(client, node.topics, "alarm_ringing") != nil, "log:\n\(process.log)")
            var start = samples(sink).count
            let opening = await halves(sink, after: start, seconds: 4)
            #expect(opening.contains { abs($0.pitch - 440) < 10 }, "the station at the sink: \(opening)")

            await icecast.cut("a")
            let first = try #require(await event(client, node.topics, "alarm_fallback", to: "radio:b"), "log:\n\(process.log)")
            #expect(first["alarm_id"]?.stringValue == id)
            #expect(first["from"] == "radio:a")
            #expect(first["reason"]?.stringValue?.isEmpty == false)
            // The fallback connects, then is heard: within start_timeout_s (10 s) of the change.
            start = samples(sink).count
            let afterFirst = await halves(sink, after: start, seconds: 10)
            #expect(afterFirst.contains { abs($0.pitch - 660) < 10 }, "the fallback station at the sink: \(afterFirst)")

            await icecast.cut("b")
            let second = try #require(await event(client, node.topics, "alarm_fallback", to: "tone"), "log:\n\(process.log)")
            #expect(second["from"] == "radio:b")
            start = samples(sink).count
            let afterSecond = await halves(sink, after: start, seconds: 3)
            // The built-in tone (a beeping one, kept decoded) starts at once; the station is gone after its fade.
            let later = afterSecond.dropFirst()
            #expect(later.filter { $0.rms > 1_000 && abs($0.pitch - 660) > 100 }.count >= 2, "the built-in tone: \(afterSecond)")
            #expect(!later.contains { abs($0.pitch - 660) < 10 }, "the dead station is not heard: \(afterSecond)")
            #expect(await client.latest(node.topics.alarmState) { $0["state"] == "ringing" } != nil)

            _ = try await client.request(node.topics, "dismiss")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("stations that never answer (a chain of two) give way to the tone within one start_timeout_s of the ring, not one each")
    func silentChain() async throws {
        let first = try FaultServer(.silent), second = try FaultServer(.silent)
        let directory = try makeTemporaryDirectory("radio-silent")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        let stations = configuration([("a", first.url + "/a.mp3", "b"), ("b", second.url + "/b.mp3", nil)], startTimeout: 3)
        try await withNode(environment: environment(clock, sink: "\(directory)/out.raw"), configuration: stations) { node, process, client in
            _ = try await add(client, node, #"{"time":"07:30","sound":"radio:a","fade_in_s":0,"volume":100}"#)
            try clock.set(to: at("2026-06-15T07:29:58+02:00"))
            let ringing = try #require(await event(client, node.topics, "alarm_ringing"), "log:\n\(process.log)")
            let tone = try #require(await event(client, node.topics, "alarm_fallback", to: "tone"), "log:\n\(process.log)")
            let rangAt = at(try #require(ringing["at"]?.stringValue)), toneAt = at(try #require(tone["at"]?.stringValue))
            #expect(toneAt.timeIntervalSince(rangAt) < 3 + 1.5, "the tone came \(toneAt.timeIntervalSince(rangAt)) s after the ring")
            #expect(tone["reason"]?.stringValue?.contains("no sound within 3 s") == true, "\(tone.serialized)")
            _ = try await client.request(node.topics, "dismiss")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("an alarm whose station was deleted since rings its tone and says why")
    func deletedStation() async throws {
        let directory = try makeTemporaryDirectory("radio-deleted")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        try await withNode(environment: environment(clock, sink: "\(directory)/out.raw"), configuration: configuration([])) { node, process, client in
            let added = try await client.request(node.topics, "radio/station/add", #"{"name":"Gone FM","url":"http://127.0.0.1:1/x.mp3"}"#)
            #expect(added["data"]?["id"] == "gone-fm")
            _ = try await add(client, node, #"{"time":"07:30","sound":"radio:gone-fm"}"#)
            _ = try await client.request(node.topics, "radio/station/delete", "gone-fm")
            try clock.set(to: at("2026-06-15T07:29:58+02:00"))
            let fallback = try #require(await event(client, node.topics, "alarm_fallback", to: "tone"), "log:\n\(process.log)")
            #expect(fallback["from"] == "radio:gone-fm")
            #expect(fallback["reason"] == "no station gone-fm")
            _ = try await client.request(node.topics, "dismiss")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("with no network (the station's server refuses), the alarm rings its tone at the minute and says why")
    func noNetwork() async throws {
        let directory = try makeTemporaryDirectory("radio-offline")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        let closed = "http://127.0.0.1:\(freeLoopbackPort())/stream.mp3"
        try await withNode(environment: environment(clock, sink: sink), configuration: configuration([("a", closed, nil)])) {
            node, process, client in
            _ = try await add(client, node, #"{"time":"07:30","sound":"radio:a","fade_in_s":0,"volume":100}"#)
            try clock.set(to: at("2026-06-15T07:29:58+02:00"))
            #expect(await event(client, node.topics, "alarm_ringing") != nil, "log:\n\(process.log)")
            let fallback = try #require(await event(client, node.topics, "alarm_fallback", to: "tone"), "log:\n\(process.log)")
            #expect(fallback["reason"]?.stringValue?.contains("refused") == true, "\(fallback.serialized)")
            let start = samples(sink).count
            let tone = await halves(sink, after: start, seconds: 3)
            #expect(tone.contains { $0.rms > 1_000 }, "the tone is heard: \(tone)")
            _ = try await client.request(node.topics, "dismiss")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }
}

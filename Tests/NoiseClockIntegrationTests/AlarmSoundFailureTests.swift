import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// An alarm that cannot sound at all (SPEC §15): a real node whose ALSA file sink cannot be opened
// (its folder does not exist yet), its wall clock driven by libfaketime.

private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

@Suite("An alarm that cannot sound says so at once and keeps trying the device")
struct AlarmSoundFailureTests {
    @Test("no audio device at the ring: alarm_failed at once, B/alarm/state's sound_failed; the device back, the tone is heard and sound_failed is null")
    func noDevice() async throws {
        let directory = try makeTemporaryDirectory("alarm-failed")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The sink's folder is made only later: until then the device cannot be opened.
        let folder = "\(directory)/card", sink = "\(folder)/out.raw"
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "100",
        ]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let answer = try await client.request(node.topics, "alarm/add", #"{"time":"07:30","label":"Work","fade_in_s":0,"volume":100}"#)
            let id = try #require(answer["data"]?["id"]?.stringValue, "\(answer.serialized)")
            let idle = await client.latest(node.topics.state(StateTopic.alarmState)) { _ in true }
            #expect(idle?["sound_failed"] == .null, "\(idle?.serialized ?? "")")

            try clock.set(to: at("2026-06-15T07:29:59+02:00"))
            let ringing = try #require(
                await client.waitFor(node.topics.event, timeout: .seconds(30)) { json($0)?["event"] == "alarm_ringing" }.flatMap(json),
                "log:\n\(process.log)")
            let failed = try #require(
                await client.waitFor(node.topics.event, timeout: .seconds(30)) { json($0)?["event"] == "alarm_failed" }.flatMap(json),
                "log:\n\(process.log)")
            #expect(failed["alarm_id"]?.stringValue == id)
            #expect(failed["label"] == "Work")
            let reason = try #require(failed["reason"]?.stringValue)
            #expect(reason.contains(sink) || reason.lowercased().contains("no such file"), "the reason names what failed: \(reason)")
            // At once: within a second of the ring, by the events' own stamps (the node's clock).
            let rang = try #require(ringing["at"]?.stringValue.map(at)), told = try #require(failed["at"]?.stringValue.map(at))
            #expect(told.timeIntervalSince(rang) <= 1, "alarm_failed at \(told), the ring at \(rang)")
            let state = await client.waitFor(node.topics.state(StateTopic.alarmState)) { message in
                json(message)?["state"] == "ringing" && json(message)?["sound_failed"]?.stringValue == reason
            }
            #expect(state != nil, "B/alarm/state says why it cannot sound")

            // The device comes back (the folder appears): the engine's next try opens it.
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // The latest state, not the first ringing one (null before the failure): the engine says
            // it works once a second of sound is written after a failure.
            let back = await client.latest(node.topics.state(StateTopic.alarmState), timeout: .seconds(30)) { state in
                state["state"] == "ringing" && state["sound_failed"] == .null
            }
            #expect(back?["sound_failed"] == .null, "sound_failed is null once the device works; log:\n\(process.log)")
            #expect(await eventually(timeout: .seconds(20)) { rms(samples(sink), from: 0, to: 1) > 1_000 }, "the tone is heard")
            let failures = client.messages(on: node.topics.event).compactMap(json).filter { $0["event"] == "alarm_failed" }
            #expect(failures.count == 1, "one alarm_failed for the ring: \(failures.map(\.serialized))")
            // The sink's file cannot be written until its folder exists, though the device opens:
            // the engine waits between tries, so the ring's state turns back once, not at each try.
            let rings = client.messages(on: node.topics.state(StateTopic.alarmState)).compactMap(json).filter { $0["state"] == "ringing" }
            let turns = zip(rings, rings.dropFirst()).filter { $0.0["sound_failed"] != .null && $0.1["sound_failed"] == .null }
            #expect(turns.count == 1, "sound_failed cleared once: \(rings.map { $0["sound_failed"]?.serialized ?? "-" })")
            let errors = client.messages(on: node.topics.event).compactMap(json).filter { $0["event"] == "audio_error" }
            #expect(errors.count <= 3, "one audio_error a try at most, tries 2 s apart: \(errors.count)")

            _ = try await client.request(node.topics, "dismiss")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }
}

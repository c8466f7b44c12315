import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// An alarm that gets firm (SPEC §12 escalate_after_s) in a real node process, heard in an ALSA file
// sink; its wall clock driven by libfaketime.

private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

@Suite("Escalation in a real node process, heard in an ALSA file sink")
struct EscalationTests {
    @Test("a quiet ring still going after escalate_after_s sends alarm_escalated and goes on several times louder")
    func louder() async throws {
        let directory = try makeTemporaryDirectory("escalation")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "200",
        ]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let added = try await client.request(
                node.topics, "alarm/add", #"{"time":"07:30","sound":"classic-alarm","volume":15,"fade_in_s":0,"escalate_after_s":4}"#)
            try #require(added["status"] == "ok", "\(added.serialized)")
            try clock.set(to: at("2026-06-15T07:29:59+02:00"))
            let ringing = try #require(
                await client.waitFor(node.topics.event, timeout: .seconds(20)) { json($0)?["event"] == "alarm_ringing" }.flatMap(json),
                "no alarm_ringing; log:\n\(process.log)")
            let escalated = try #require(
                await client.waitFor(node.topics.event, timeout: .seconds(20)) { json($0)?["event"] == "alarm_escalated" }.flatMap(json),
                "no alarm_escalated; log:\n\(process.log)")
            #expect(escalated["after_s"] == 4)
            #expect(escalated["sound"] == "classic-alarm")
            let rang = at(try #require(ringing["at"]?.stringValue)), firm = at(try #require(escalated["at"]?.stringValue))
            #expect(firm.timeIntervalSince(rang) >= 3.9 && firm.timeIntervalSince(rang) <= 5, "\(ringing.serialized) → \(escalated.serialized)")
            #expect(await client.latest(node.topics.alarmState) { $0["escalated"] == true } != nil)

            // The ring starts where the sink stops being silent (it opens a moment before); then
            // 2 s of the quiet ring, and 2 s of the firm one once its 3 s rise is over.
            let start = await eventually(timeout: .seconds(20)) { samples(sink).contains { abs(Int($0)) > 50 } }
            try #require(start, "the sink stayed silent; log:\n\(process.log)")
            let onset = Double(samples(sink).firstIndex { abs(Int($0)) > 50 } ?? 0) / 88_200
            let enough = await eventually(timeout: .seconds(20)) { Double(samples(sink).count) / 88_200 >= onset + 9.5 }
            #expect(enough, "the sink got \(samples(sink).count / 88_200) s; log:\n\(process.log)")
            let audio = samples(sink)
            let quiet = rms(audio, from: onset + 0.5, to: onset + 2.5), loud = rms(audio, from: onset + 7.5, to: onset + 9.5)
            #expect(quiet > 100, "the quiet ring is silent: \(quiet)")
            #expect(loud > 4 * quiet, "volume 15 → 100 is several times louder; quiet RMS \(quiet), loud RMS \(loud)")
            #expect(try await client.request(node.topics, "dismiss")["status"] == "ok")
        }
    }
}

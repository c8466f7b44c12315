import Foundation
import NoiseClockAudio
import NoiseClockCore
import Testing

@testable import NoiseClockNode

@Suite("An alarm that gets firm (escalate_after_s, escalate_sound)")
struct AlarmEscalationTests {
    @Test("still ringing after escalate_after_s: alarm_escalated, the escalation tone at volume 100 on a new input, the gentle one fading out")
    func escalates() async throws {
        let f = try await AlarmFixture()
        let (id, alarm) = try await f.add(
            #"{"time":"08:10","label":"Work","sound":"Siren","volume":30,"fade_in_s":0,"escalate_after_s":90,"escalate_sound":"classic-alarm"}"#)
        #expect(alarm["escalate_after_s"] == 90)
        #expect(alarm["escalate_sound"] == "classic-alarm")
        await f.advance(to: fire)
        #expect(f.toneInputs == ["alarm:1"])
        #expect(f.output.gain(of: "alarm:1") == Volume.gain(30))

        await f.advance(to: fire.addingTimeInterval(89))
        #expect(f.events("alarm_escalated").isEmpty)
        await f.advance(to: fire.addingTimeInterval(90))
        #expect(f.events("alarm_escalated") == [[
            "event": "alarm_escalated", "at": "2026-03-10T08:11:30+01:00", "alarm_id": .string(id), "label": "Work",
            "after_s": 90, "sound": "classic-alarm",
        ]])
        #expect(f.alarmState == ringState("ringing", id, "Work", since: fire, escalated: true))
        #expect(f.toneInputs.contains("alarm:2"), "the escalation is a tone of its own")
        #expect(f.output.gain(of: "alarm:2") == Volume.gain(100))
        #expect(f.output.gain(of: "alarm:1") == 0, "the gentle tone fades out")
        #expect(await f.storedDocument()?["ringing"]?["current"]?["escalated"] == true)

        // Dismissed, it is over; the next ring starts gentle.
        #expect(await f.respond("dismiss").isOK)
        #expect(f.alarmState == idleState)
    }

    @Test("without escalate_sound it escalates its own tone; settings.wake.escalate_after_s is the default of a new alarm")
    func defaults() async throws {
        let f = try await AlarmFixture()
        #expect(await f.respond("settings", #"{"wake":{"escalate_after_s":60}}"#).isOK)
        let (id, alarm) = try await f.add(#"{"time":"08:10","sound":"Siren"}"#)
        #expect(alarm["escalate_after_s"] == 60)
        #expect(alarm["escalate_sound"] == .null)
        let (_, off) = try await f.add(#"{"time":"09:10","escalate_after_s":0}"#)
        #expect(off["escalate_after_s"] == 0)
        await f.advance(to: fire)
        await f.advance(to: fire.addingTimeInterval(60))
        #expect(f.events("alarm_escalated").first?["sound"] == "siren-alarm")
        #expect(f.events("alarm_escalated").first?["alarm_id"] == .string(id))
    }

    @Test("an unknown escalate_sound is refused naming it, and changes nothing")
    func badSound() async throws {
        let f = try await AlarmFixture()
        let answer = await f.respond("alarm/add", #"{"time":"08:10","escalate_sound":"no-such-tone"}"#)
        #expect(answer.error?.field == "escalate_sound")
        #expect(f.alarms?.items.isEmpty != false)
    }
}

import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("Alarm scheduler: ringing, snooze, dismiss, timeout")
struct AlarmRingingTests {
    @Test("an alarm rings at its time, not a moment before: alarm_ringing with fires_at, B/alarm/state ringing; the wait ends exactly at the fire")
    func ringsOnTime() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work"}"#)

        let second = await f.advance(to: fire.addingTimeInterval(-1))
        #expect(second == .seconds(1))
        let quarter = await f.advance(to: fire.addingTimeInterval(-0.25))
        #expect(quarter == .milliseconds(250), "the scheduler must wake exactly at the fire instant")
        #expect(f.events("alarm_ringing").isEmpty)
        #expect(f.alarmState == idleState)
        #expect(f.toneInputs.isEmpty)

        await f.advance(to: fire)

        #expect(f.events("alarm_ringing") == [ringingEvent(id, "Work", at: fire)])
        #expect(f.transport.published(on: f.topics.event).allSatisfy { !$0.retain })
        #expect(f.alarmState == ringState("ringing", id, "Work", since: fire))
        #expect(await f.storedDocument()?["ringing"]?["current"]?["alarm_id"] == .string(id))
        #expect(await f.toneSounding())
        #expect(f.eventNames == ["alarm_ringing"], "no alarm_upcoming with upcoming_min 0")

        // Looking again (and again) does not ring it twice.
        await f.advance(to: fire.addingTimeInterval(1))
        await f.advance(to: fire.addingTimeInterval(30))
        #expect(f.events("alarm_ringing").count == 1)
    }

    @Test("the tone is the alarm's own, on its own mixer input, rising from silence to Volume.gain(volume) over fade_in_s")
    func toneRises() async throws {
        let f = try await AlarmFixture()
        try await f.add(#"{"time":"08:10","sound":"siren-alarm","volume":70,"fade_in_s":2}"#)

        await f.advance(to: fire)

        #expect(f.toneInputs == ["alarm:1"])
        #expect(f.output.gain(of: "alarm:1") == Volume.gain(70))
        let early = f.output.render(milliseconds: 100)
        f.output.render(milliseconds: 2000)
        let late = f.output.render(milliseconds: 1000)
        #expect(late > 4 * early, "early \(early), late \(late)")
    }

    @Test("noise that plays when an alarm rings fades to 0 (and still plays); it comes back when the alarm is dismissed")
    func noiseDucked() async throws {
        let f = try await AlarmFixture()
        try await f.ok("noise/play", "white-noise")
        try await f.add(#"{"time":"08:10"}"#)
        f.output.render(milliseconds: 600)

        await f.advance(to: fire)

        #expect(f.output.gain(of: "noise:white-noise") == 0)
        #expect(f.output.gain(of: "alarm:1") == Volume.gain(80))
        #expect(f.transport.published(on: f.topics.noise).last?.json?["playing"] == true)

        try await f.ok("dismiss")

        #expect(f.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(f.output.gain(of: "alarm:1") == 0)
        f.output.render(milliseconds: 700)
        #expect(f.output.ids == ["noise:white-noise"])
        #expect(!(await f.toneSounding()))
    }

    @Test("snooze (PRESS: the alarm's snooze_min) → alarm_snoozed, snoozed; rings again at snoozed_until with snooze_count 1; dismiss → idle, one-shot off")
    func snoozeDefault() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work"}"#)
        await f.advance(to: fire)
        let snoozedAt = fire.addingTimeInterval(30)
        await f.advance(to: snoozedAt)

        let data = try await f.ok("snooze", "PRESS")

        let until = snoozedAt.addingTimeInterval(9 * 60)
        let snoozed = ringState("snoozed", id, "Work", since: snoozedAt, snoozedUntil: until, snoozeCount: 1)
        #expect(data == snoozed)
        #expect(f.alarmState == snoozed)
        #expect(f.events("alarm_snoozed") == [[
            "event": "alarm_snoozed", "at": .string(berlinISO(snoozedAt)), "alarm_id": .string(id), "label": "Work",
            "until": "2026-03-10T08:19:30+01:00",
        ]])
        #expect(!(await f.toneSounding()))
        #expect(f.output.gain(of: "alarm:1") == 0)
        #expect(await f.storedDocument()?["ringing"]?["current"]?["phase"] == "snoozed")

        await f.advance(to: until.addingTimeInterval(-1))
        #expect(f.events("alarm_ringing").count == 1)
        #expect(f.alarmState?["state"] == "snoozed")

        await f.advance(to: until)
        #expect(f.events("alarm_ringing").last == ringingEvent(id, "Work", at: until, snoozeCount: 1))
        #expect(f.events("alarm_ringing").count == 2)
        #expect(f.alarmState == ringState("ringing", id, "Work", since: until, snoozeCount: 1))
        #expect(await f.toneSounding())
        #expect(f.output.gain(of: "alarm:2") == Volume.gain(80))

        let dismissed = try await f.ok("dismiss")
        #expect(dismissed == idleState)
        #expect(f.alarmState == idleState)
        #expect(f.events("alarm_dismissed") == [[
            "event": "alarm_dismissed", "at": .string(berlinISO(until)), "alarm_id": .string(id), "label": "Work",
        ]])
        #expect(!(await f.toneSounding()))
        // A one-shot alarm switches itself off once it has finished ringing.
        #expect(f.publishedAlarm(id)?["enabled"] == false)
        #expect(f.publishedAlarm(id)?["next_fire"] == JSONValue.null)
        #expect(f.alarmNext == noNextAlarm)
    }

    @Test("snooze for the minutes asked (object or bare number) rings again exactly then", arguments: [#"{"minutes":2}"#, "2"])
    func snoozeMinutes(payload: String) async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work"}"#)
        await f.advance(to: fire)

        let data = try await f.ok("snooze", payload)

        let until = fire.addingTimeInterval(120)
        #expect(data["snoozed_until"] == .string(berlinISO(until)))
        #expect(f.events("alarm_snoozed").last?["until"] == "2026-03-10T08:12:00+01:00")
        await f.advance(to: until.addingTimeInterval(-1))
        #expect(f.events("alarm_ringing").count == 1)
        await f.advance(to: until)
        #expect(f.events("alarm_ringing").last == ringingEvent(id, "Work", at: until, snoozeCount: 1))
    }

    @Test("snooze or dismiss with nothing ringing is a conflict; a snoozed alarm cannot be snoozed again; bad minutes are named")
    func nothingToSnooze() async throws {
        let f = try await AlarmFixture()
        #expect(await f.respond("snooze").error?.code == .conflict)
        #expect(await f.respond("dismiss").error?.code == .conflict)

        try await f.add(#"{"time":"08:10"}"#)
        await f.advance(to: fire)
        for (payload, field) in [(#"{"minutes":0}"#, "minutes"), ("61", "minutes"), (#"{"minutes":5,"x":1}"#, "x")] {
            let error = await f.respond("snooze", payload).error
            #expect(error?.code == .invalidField, "\(payload)")
            #expect(error?.field == field, "\(payload)")
        }
        #expect(f.alarmState?["state"] == "ringing")
        try await f.ok("snooze")
        let published = f.transport.published.count
        #expect(await f.respond("snooze", "5").error?.code == .conflict)
        #expect(f.transport.published.count == published)
        // Dismiss cancels the pending snooze; then there is nothing left.
        try await f.ok("dismiss")
        #expect(f.alarmState == idleState)
        #expect(await f.respond("dismiss").error?.code == .conflict)
        await f.advance(to: fire.addingTimeInterval(3600))
        #expect(f.events("alarm_ringing").count == 1)
    }

    @Test("an unanswered one-shot alarm stops after ring_timeout_min: alarm_auto_silenced, idle, switched off")
    func timeoutOneShot() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work","ring_timeout_min":1}"#)
        await f.advance(to: fire)

        await f.advance(to: fire.addingTimeInterval(59))
        #expect(f.events("alarm_auto_silenced").isEmpty)
        #expect(await f.toneSounding())

        await f.advance(to: fire.addingTimeInterval(60))
        #expect(f.events("alarm_auto_silenced") == [[
            "event": "alarm_auto_silenced", "at": "2026-03-10T08:11:00+01:00", "alarm_id": .string(id), "label": "Work",
            "after_min": 1,
        ]])
        #expect(f.alarmState == idleState)
        #expect(!(await f.toneSounding()))
        #expect(f.publishedAlarm(id)?["enabled"] == false)
        #expect(f.publishedAlarm(id)?["next_fire"] == JSONValue.null)
        #expect(f.alarmNext == noNextAlarm)
        #expect(await f.storedDocument()?["alarms"]?.items.first?["enabled"] == false)
    }

    @Test("an unanswered repeating alarm stops after ring_timeout_min and stays on, next on its next allowed day")
    func timeoutRepeating() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work","days":["tue","thu"]}"#)
        await f.advance(to: fire)
        await f.advance(to: fire.addingTimeInterval(599))
        #expect(f.events("alarm_auto_silenced").isEmpty)

        await f.advance(to: fire.addingTimeInterval(600))

        #expect(f.events("alarm_auto_silenced").map { $0["after_min"] } == [10])
        #expect(f.alarmState == idleState)
        #expect(f.publishedAlarm(id)?["enabled"] == true)
        #expect(f.publishedAlarm(id)?["next_fire"] == "2026-03-12T08:10:00+01:00")
        #expect(f.alarmNext?["fires_at"] == "2026-03-12T08:10:00+01:00")
    }

    @Test("two alarms due the same minute: one rings, the other is listed as waiting and rings once the first is dismissed")
    func twoAtOnce() async throws {
        let f = try await AlarmFixture()
        let (a, _) = try await f.add(#"{"time":"08:10","label":"A"}"#)
        let (b, _) = try await f.add(#"{"time":"08:10","label":"B"}"#)
        let labels = [a: "A", b: "B"]

        await f.advance(to: fire)

        let rung = f.events("alarm_ringing")
        try #require(rung.count == 1)
        let first = try #require(rung[0]["alarm_id"]?.stringValue)
        let second = first == a ? b : a
        #expect(Set([first, second]) == Set([a, b]))
        let waiting: JSONValue = ["alarm_id": .string(second), "label": .string(labels[second] ?? ""), "fires_at": .string(fireISO)]
        #expect(f.alarmState == ringState("ringing", first, labels[first] ?? "", since: fire, waiting: [waiting]))
        await f.advance(to: fire.addingTimeInterval(20))
        #expect(f.events("alarm_ringing").count == 1)

        try await f.ok("dismiss")

        // (The dismiss is also someone awake: wake_awake comes with it, SPEC §12.)
        #expect(Array(f.eventNames.suffix(3)) == ["alarm_dismissed", "wake_awake", "alarm_ringing"])
        #expect(f.events("alarm_dismissed").map { $0["alarm_id"] } == [.string(first)])
        #expect(f.events("alarm_ringing").last == ringingEvent(second, labels[second] ?? "", at: fire.addingTimeInterval(20)))
        #expect(f.alarmState == ringState("ringing", second, labels[second] ?? "", since: fire.addingTimeInterval(20)))
        #expect(await f.toneSounding())
        #expect(f.output.gain(of: "alarm:1") == 0)
        #expect(f.output.gain(of: "alarm:2") == Volume.gain(80))

        try await f.ok("dismiss")
        #expect(f.alarmState == idleState)
        #expect(!(await f.toneSounding()))
        #expect(f.alarms?.items.map { $0["enabled"] } == [false, false])
    }
}

// MARK: - Clock jumps and restarts

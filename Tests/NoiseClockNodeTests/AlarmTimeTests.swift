import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("Alarm scheduler: wall-clock jumps and restarts")
struct AlarmTimeTests {
    @Test("the wall clock jumps forward past a fire time: within the grace (≤ 10 min) it rings at once, beyond it is missed, silently",
          arguments: [(300.0, true), (600.0, true), (601.0, false), (7200.0, false)])
    func jumpForward(pastFire: Double, rings: Bool) async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work"}"#)

        await f.jump(by: fire.timeIntervalSince(AlarmFixture.start) + pastFire)

        let now = fire.addingTimeInterval(pastFire)
        if rings {
            #expect(f.events("alarm_ringing") == [ringingEvent(id, "Work", at: now)])
            #expect(f.events("alarm_missed").isEmpty)
            #expect(f.alarmState == ringState("ringing", id, "Work", since: now))
            #expect(await f.toneSounding())
        } else {
            #expect(f.events("alarm_missed") == [[
                "event": "alarm_missed", "at": .string(berlinISO(now)), "alarm_id": .string(id), "label": "Work",
                "fires_at": .string(fireISO),
            ]])
            #expect(f.events("alarm_ringing").isEmpty)
            #expect(f.alarmState == idleState)
            #expect(!(await f.toneSounding()))
            #expect(f.toneInputs.isEmpty)
            // A missed one-shot alarm is over: it switches itself off.
            #expect(f.publishedAlarm(id)?["enabled"] == false)
            #expect(f.alarmNext == noNextAlarm)
        }
        // Looking again changes nothing.
        await f.advance(to: now.addingTimeInterval(2))
        #expect(f.events("alarm_ringing").count == (rings ? 1 : 0))
        #expect(f.events("alarm_missed").count == (rings ? 0 : 1))
    }

    @Test("a repeating alarm missed by a jump stays on, next on its next day")
    func jumpForwardRepeating() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)
        await f.jump(by: 3600)
        #expect(f.events("alarm_missed").count == 1)
        #expect(f.publishedAlarm(id)?["enabled"] == true)
        #expect(f.publishedAlarm(id)?["next_fire"] == "2026-03-11T08:10:00+01:00")
    }

    @Test("the wall clock is set back after an alarm rang: when the time passes again it does not ring again")
    func jumpBack() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)
        await f.advance(to: fire)
        await f.advance(to: fire.addingTimeInterval(10))
        try await f.ok("dismiss")

        await f.jump(by: -15 * 60)
        #expect(f.now == instant(2026, 3, 10, 7, 55, 10, in: berlin))
        #expect(f.publishedAlarm(id)?["next_fire"] == "2026-03-11T08:10:00+01:00")

        await f.advance(to: fire.addingTimeInterval(-1))
        await f.advance(to: fire)
        await f.advance(to: fire.addingTimeInterval(120))
        #expect(f.events("alarm_ringing").count == 1)
        #expect(f.events("alarm_missed").isEmpty)
        #expect(f.alarmState == idleState)
        #expect(f.alarmNext?["fires_at"] == "2026-03-11T08:10:00+01:00")
    }

    @Test("restart across a fire time: back within the grace it rings at once; back later it is missed, silently",
          arguments: [(5, true), (15, false)])
    func restartAcrossFire(minutesLate: Int, rings: Bool) async throws {
        let first = try await AlarmFixture()
        let (id, _) = try await first.add(#"{"time":"08:10","label":"Work"}"#)
        await first.advance(to: fire.addingTimeInterval(-300))
        // The node is down at 08:10 and comes back `minutesLate` minutes later.
        let back = fire.addingTimeInterval(Double(minutesLate * 60))

        let second = try await AlarmFixture(start: back, store: await first.flushedStore())

        if rings {
            #expect(second.events("alarm_ringing") == [ringingEvent(id, "Work", at: back)])
            #expect(second.alarmState == ringState("ringing", id, "Work", since: back))
            #expect(await second.toneSounding())
        } else {
            #expect(second.events("alarm_missed").map { $0["fires_at"] } == [.string(fireISO)])
            #expect(second.events("alarm_ringing").isEmpty)
            #expect(!(await second.toneSounding()))
            #expect(second.publishedAlarm(id)?["enabled"] == false)
        }
    }

    @Test("restart during a snooze: still snoozed, and it rings at snoozed_until, not earlier")
    func restartSnoozed() async throws {
        let first = try await AlarmFixture()
        let (id, _) = try await first.add(#"{"time":"08:10","label":"Work"}"#)
        await first.advance(to: fire)
        try await first.ok("snooze")
        let until = fire.addingTimeInterval(9 * 60)

        let second = try await AlarmFixture(start: fire.addingTimeInterval(5 * 60), store: await first.flushedStore())

        #expect(second.events.isEmpty, "\(second.eventNames)")
        #expect(second.alarmState == ringState("snoozed", id, "Work", since: fire, snoozedUntil: until, snoozeCount: 1))
        #expect(!(await second.toneSounding()))
        await second.advance(to: until.addingTimeInterval(-1))
        #expect(second.events("alarm_ringing").isEmpty)
        await second.advance(to: until)
        #expect(second.events("alarm_ringing") == [ringingEvent(id, "Work", at: until, snoozeCount: 1)])
        #expect(await second.toneSounding())
    }

    @Test("restart while ringing, before its timeout: it rings again at once, its timeout still counted from the first ring")
    func restartRinging() async throws {
        let first = try await AlarmFixture()
        let (id, _) = try await first.add(#"{"time":"08:10","label":"Work"}"#)
        await first.advance(to: fire)
        let back = fire.addingTimeInterval(5 * 60)

        let second = try await AlarmFixture(start: back, store: await first.flushedStore())

        #expect(second.events("alarm_ringing") == [ringingEvent(id, "Work", at: back)])
        #expect(second.alarmState == ringState("ringing", id, "Work", since: fire))
        #expect(await second.toneSounding())
        await second.advance(to: fire.addingTimeInterval(599))
        #expect(second.events("alarm_auto_silenced").isEmpty)
        await second.advance(to: fire.addingTimeInterval(600))
        #expect(second.events("alarm_auto_silenced").count == 1)
        #expect(!(await second.toneSounding()))
    }

    @Test("restart while ringing, after its timeout: auto-silenced at start, no ring, one-shot off")
    func restartRingingTimedOut() async throws {
        let first = try await AlarmFixture()
        let (id, _) = try await first.add(#"{"time":"08:10","label":"Work"}"#)
        await first.advance(to: fire)

        let second = try await AlarmFixture(start: fire.addingTimeInterval(11 * 60), store: await first.flushedStore())

        #expect(second.eventNames == ["alarm_auto_silenced"])
        #expect(second.alarmState == idleState)
        #expect(!(await second.toneSounding()))
        #expect(second.publishedAlarm(id)?["enabled"] == false)
    }

    @Test("restart after a snooze ended more than the grace ago: it does not ring hours late (SPEC §3 missed alarms)")
    func restartLongAfterSnooze() async throws {
        let first = try await AlarmFixture()
        let (id, _) = try await first.add(#"{"time":"08:10","label":"Work"}"#)
        await first.advance(to: fire)
        try await first.ok("snooze")
        // The snooze ends at 08:19; the node is down from 08:11 until 11:00.
        let second = try await AlarmFixture(start: instant(2026, 3, 10, 11, 0, in: berlin), store: await first.flushedStore())

        #expect(second.events("alarm_ringing").isEmpty, "rang \(second.events("alarm_ringing"))")
        #expect(!(await second.toneSounding()))
        #expect(second.alarmState?["state"] != "ringing")
        #expect(second.events("alarm_missed").map { $0["alarm_id"] } == [.string(id)])
    }

    @Test("the wall clock jumps hours past the end of a snooze: it does not ring hours late (SPEC §3 missed alarms)")
    func jumpLongAfterSnooze() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work"}"#)
        await f.advance(to: fire)
        try await f.ok("snooze")

        await f.jump(by: 3 * 3600)

        #expect(f.events("alarm_ringing").count == 1, "rang again \(f.events("alarm_ringing").dropFirst())")
        #expect(!(await f.toneSounding()))
        #expect(f.events("alarm_missed").map { $0["alarm_id"] } == [.string(id)])
        #expect(f.alarmState?["state"] == "idle")
    }

    @Test("the wall clock jumps a few minutes past the end of a snooze (within the grace): it rings at once")
    func jumpJustPastSnooze() async throws {
        let f = try await AlarmFixture()
        try await f.add(#"{"time":"08:10","label":"Work"}"#)
        await f.advance(to: fire)
        try await f.ok("snooze", "5")

        await f.jump(by: 8 * 60)

        #expect(f.events("alarm_ringing").count == 2)
        #expect(f.events("alarm_missed").isEmpty)
        #expect(await f.toneSounding())
    }

    @Test("the wall clock is set back an hour while an alarm rings: it still stops after ring_timeout_min (10 real minutes), not 70")
    func jumpBackWhileRinging() async throws {
        let f = try await AlarmFixture()
        try await f.add(#"{"time":"08:10","label":"Work"}"#)
        await f.advance(to: fire)
        await f.advance(to: fire.addingTimeInterval(60))

        await f.jump(by: -3600)
        // Nine more real minutes: ten since it began to ring.
        await f.advance(to: f.now.addingTimeInterval(9 * 60 - 1))
        #expect(f.events("alarm_auto_silenced").isEmpty)
        await f.advance(to: f.now.addingTimeInterval(1))

        #expect(f.events("alarm_auto_silenced").count == 1, "still ringing at \(berlinISO(f.now))")
        #expect(!(await f.toneSounding()))
    }

    @Test("the wall clock is set back an hour during a snooze: it rings again after the snooze minutes (real time), not an hour later")
    func jumpBackWhileSnoozed() async throws {
        let f = try await AlarmFixture()
        try await f.add(#"{"time":"08:10","label":"Work"}"#)
        await f.advance(to: fire)
        try await f.ok("snooze", "5")
        await f.advance(to: fire.addingTimeInterval(60))

        await f.jump(by: -3600)
        // Four more real minutes: five since the snooze.
        await f.advance(to: f.now.addingTimeInterval(4 * 60))

        #expect(f.events("alarm_ringing").count == 2, "still snoozed at \(berlinISO(f.now))")
    }

    @Test("DST spring forward: a daily 02:30 alarm in Berlin on 2026-03-29 fires at 03:30 CEST (+02:00)")
    func springForward() async throws {
        let f = try await AlarmFixture(start: instant(2026, 3, 28, 12, 0))
        let (id, alarm) = try await f.add(#"{"time":"02:30","label":"Night","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)
        #expect(alarm["next_fire"] == "2026-03-29T03:30:00+02:00")

        await f.advance(to: instant(2026, 3, 29, 1, 29, 59))
        #expect(f.events("alarm_ringing").isEmpty)
        let ringsAt = instant(2026, 3, 29, 1, 30)
        await f.advance(to: ringsAt)
        #expect(f.events("alarm_ringing") == [ringingEvent(id, "Night", at: ringsAt, firesAt: "2026-03-29T03:30:00+02:00")])
        #expect(f.events("alarm_ringing").first?["at"] == "2026-03-29T03:30:00+02:00")
        try await f.ok("dismiss")
        #expect(f.publishedAlarm(id)?["next_fire"] == "2026-03-30T02:30:00+02:00")
    }

    @Test("DST fall back: a daily 02:30 alarm in Berlin on 2026-10-25 fires once, at the first 02:30 (+02:00), not an hour later")
    func fallBack() async throws {
        let f = try await AlarmFixture(start: instant(2026, 10, 24, 12, 0))
        let (id, alarm) = try await f.add(#"{"time":"02:30","label":"Night","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)
        #expect(alarm["next_fire"] == "2026-10-25T02:30:00+02:00")

        let first = instant(2026, 10, 25, 0, 30)
        await f.advance(to: first.addingTimeInterval(-1))
        #expect(f.events("alarm_ringing").isEmpty)
        await f.advance(to: first)
        #expect(f.events("alarm_ringing") == [ringingEvent(id, "Night", at: first, firesAt: "2026-10-25T02:30:00+02:00")])
        await f.advance(to: first.addingTimeInterval(60))
        try await f.ok("dismiss")

        // 02:30 again, now +01:00.
        let second = instant(2026, 10, 25, 1, 30)
        await f.advance(to: second)
        await f.advance(to: second.addingTimeInterval(60))
        #expect(f.events("alarm_ringing").count == 1)
        #expect(f.events("alarm_missed").isEmpty)
        #expect(f.alarmState == idleState)
        #expect(f.publishedAlarm(id)?["next_fire"] == "2026-10-26T02:30:00+01:00")
    }
}

// MARK: - Changes to ringing alarms, switches, copies, skips

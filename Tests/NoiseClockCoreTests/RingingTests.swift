import Foundation
import NoiseClockCore
import Testing

@Suite("Ringing state machine")
struct RingingTests {
    let t0 = Date(timeIntervalSince1970: 1_795_000_000)

    func due(_ id: String, snooze: Int = 9, timeout: Int = 10) -> Ringing.Due {
        Ringing.Due(alarmID: id, label: id.uppercased(), firesAt: t0, snoozeMinutes: snooze, ringTimeoutMinutes: timeout)
    }

    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    @Test("a due alarm rings; snooze waits its own snooze minutes, then it rings again; dismiss ends it")
    func snoozeThenDismiss() {
        var ringing = Ringing()
        let outcome1 = ringing.due(due("a", snooze: 9), at: at(0))
        #expect(outcome1 == [.ring(due("a", snooze: 9))])
        #expect(ringing.phase == .ringing)
        let snoozed = ringing.snooze(minutes: nil, at: at(30))
        #expect(snoozed == [.snoozed(due("a", snooze: 9), until: at(30 + 9 * 60))])
        #expect(ringing.phase == .snoozed)
        let outcome2 = ringing.tick(at: at(30 + 9 * 60 - 1))
        #expect(outcome2.isEmpty)
        let outcome3 = ringing.tick(at: at(30 + 9 * 60))
        #expect(outcome3 == [.ring(due("a", snooze: 9))])
        #expect(ringing.current?.snoozeCount == 1)
        let outcome4 = ringing.dismiss(at: at(600))
        #expect(outcome4 == [.dismissed(due("a", snooze: 9))])
        #expect(ringing.phase == .idle)
    }

    @Test("a snooze that ended more than the grace ago is missed, not rung; within the grace it rings")
    func staleSnooze() {
        var late = Ringing()
        _ = late.due(due("a", snooze: 5), at: at(0))
        _ = late.snooze(minutes: nil, at: at(0))
        #expect(late.tick(at: at(300 + 601), grace: 600) == [.missed(due("a", snooze: 5), at: at(300))])
        #expect(late.phase == .idle)

        var inTime = Ringing()
        _ = inTime.due(due("a", snooze: 5), at: at(0))
        _ = inTime.snooze(minutes: nil, at: at(0))
        #expect(inTime.tick(at: at(300 + 600), grace: 600) == [.ring(due("a", snooze: 5))])
    }

    @Test("shift moves rings and snoozes with a clock set back; a session that began in the future begins now")
    func shiftAndKeepInThePast() {
        var ringing = Ringing()
        _ = ringing.due(due("a", timeout: 10), at: at(0))
        ringing.shift(by: -3600)
        #expect(ringing.current?.since == at(-3600))
        // Ten minutes after the (shifted) start it times out, not an hour later.
        #expect(ringing.tick(at: at(-3600 + 599)).isEmpty)
        #expect(ringing.tick(at: at(-3600 + 600)) == [.autoSilenced(due("a", timeout: 10))])

        var snoozed = Ringing()
        _ = snoozed.due(due("b", snooze: 5), at: at(0))
        _ = snoozed.snooze(minutes: nil, at: at(0))
        // Seen first an hour before the snooze began (no shift told): it begins now, keeping its 5 minutes.
        #expect(snoozed.tick(at: at(-3600)).isEmpty)
        #expect(snoozed.current?.since == at(-3600))
        #expect(snoozed.current?.snoozedUntil == at(-3600 + 300))
    }

    @Test("snooze takes the minutes asked for; without a ringing alarm there is nothing to snooze or dismiss")
    func snoozeMinutesAndNothing() {
        var ringing = Ringing()
        let outcome1 = ringing.snooze(minutes: 5, at: at(0))
        #expect(outcome1 == nil)
        let outcome2 = ringing.dismiss(at: at(0))
        #expect(outcome2 == nil)
        _ = ringing.due(due("a"), at: at(0))
        let snoozed = ringing.snooze(minutes: 1, at: at(10))
        #expect(snoozed == [.snoozed(due("a"), until: at(70))])
        let outcome3 = ringing.snooze(minutes: 1, at: at(20))
        #expect(outcome3 == nil, "a snoozed alarm is not ringing")
    }

    @Test("dismiss cancels a pending snooze")
    func dismissSnoozed() {
        var ringing = Ringing()
        _ = ringing.due(due("a"), at: at(0))
        _ = ringing.snooze(minutes: nil, at: at(5))
        let outcome1 = ringing.dismiss(at: at(60))
        #expect(outcome1 == [.dismissed(due("a"))])
        let outcome2 = ringing.tick(at: at(3600))
        #expect(outcome2.isEmpty)
    }

    @Test("a ring left unanswered stops itself after ring_timeout_min")
    func timeout() {
        var ringing = Ringing()
        _ = ringing.due(due("a", timeout: 10), at: at(0))
        let outcome1 = ringing.tick(at: at(599))
        #expect(outcome1.isEmpty)
        let outcome2 = ringing.tick(at: at(600))
        #expect(outcome2 == [.autoSilenced(due("a", timeout: 10))])
        #expect(ringing.phase == .idle)
    }

    @Test("two alarms due together: one rings, the other waits and rings when the first is dismissed")
    func twoDue() {
        var ringing = Ringing()
        let outcome1 = ringing.due(due("a"), at: at(0))
        #expect(outcome1 == [.ring(due("a"))])
        let outcome2 = ringing.due(due("b"), at: at(0))
        #expect(outcome2 == [.waiting(due("b"))])
        #expect(ringing.current?.due.alarmID == "a")
        let outcome3 = ringing.dismiss(at: at(30))
        #expect(outcome3 == [.dismissed(due("a")), .ring(due("b"))])
        #expect(ringing.current?.due.alarmID == "b")
        #expect(ringing.current?.since == at(30))
    }

    @Test("snoozing while another alarm waits rings that one; the snoozed one rings when its snooze ends after it")
    func snoozeWithWaiting() {
        var ringing = Ringing()
        _ = ringing.due(due("a", snooze: 5), at: at(0))
        _ = ringing.due(due("b"), at: at(1))
        let outcomes = ringing.snooze(minutes: nil, at: at(10))
        #expect(outcomes == [.snoozed(due("a", snooze: 5), until: at(310)), .ring(due("b"))])
        let outcome1 = ringing.dismiss(at: at(20))
        #expect(outcome1 == [.dismissed(due("b"))])
        #expect(ringing.phase == .snoozed)
        let outcome2 = ringing.tick(at: at(310))
        #expect(outcome2 == [.ring(due("a", snooze: 5))])
    }

    @Test("an alarm due while another is snoozed rings at once; the snoozed one comes back after it")
    func dueWhileSnoozed() {
        var ringing = Ringing()
        _ = ringing.due(due("a", snooze: 5), at: at(0))
        _ = ringing.snooze(minutes: nil, at: at(10))
        let outcome1 = ringing.due(due("b"), at: at(20))
        #expect(outcome1 == [.ring(due("b"))])
        // b is dismissed after a's snooze is over: a rings at once.
        let outcome2 = ringing.dismiss(at: at(400))
        #expect(outcome2 == [.dismissed(due("b")), .ring(due("a", snooze: 5))])
    }

    @Test("B/alarm/state carries SPEC §2's fields, idle with nulls")
    func stateJSON() {
        var ringing = Ringing()
        let iso: (Date) -> String = { "T\(Int($0.timeIntervalSince(self.t0)))" }
        #expect(ringing.json(isoTime: iso) == [
            "state": "idle", "alarm_id": nil, "label": nil, "since": nil, "snoozed_until": nil, "snooze_count": 0,
            "escalated": false, "waiting": [],
        ])
        _ = ringing.due(due("a"), at: at(0))
        _ = ringing.snooze(minutes: 5, at: at(60))
        #expect(ringing.json(isoTime: iso) == [
            "state": "snoozed", "alarm_id": "a", "label": "A", "since": "T60", "snoozed_until": "T360", "snooze_count": 1,
            "escalated": false, "waiting": [],
        ])
        // An alarm due meanwhile rings; a waits behind it and is listed.
        _ = ringing.due(due("b"), at: at(120))
        #expect(ringing.json(isoTime: iso)[member: "waiting"] == [["alarm_id": "a", "label": "A", "fires_at": "T0"]])
    }
}

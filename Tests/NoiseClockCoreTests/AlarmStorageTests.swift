import Foundation
import NoiseClockCore
import Testing

/// Parses JSON text written in a test; a test that gets it wrong fails.
private func json(_ text: String) throws -> JSONValue {
    try JSONValue.parse(Array(text.utf8))
}

/// Runs `body` and returns the field named by the CommandError it throws; records an issue when it
/// throws nothing.
private func rejectedField(_ body: () throws(CommandError) -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    do {
        try body()
        Issue.record("an invalid stored document was accepted", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.code == .invalidField, sourceLocation: sourceLocation)
        return error.field
    }
}

@Suite("Stored forms: Alarm, AlarmBook and Ringing in alarms.json")
struct AlarmStorageTests {
    /// An instant with a fraction of a second, which the stored form must keep exactly.
    let t0 = Date(timeIntervalSince1970: 1_795_000_000.125)

    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    func due(_ id: String, snooze: Int = 9, timeout: Int = 10, firesAt: Double = 0) -> Ringing.Due {
        Ringing.Due(alarmID: id, label: "Label \(id)", firesAt: at(firesAt), snoozeMinutes: snooze, ringTimeoutMinutes: timeout)
    }

    let plain = Alarm(id: "a1", time: AlarmTime(hour: 6, minute: 45) ?? .midnight, sound: "digital-alarm")
    let everything = Alarm(
        id: "b2", time: AlarmTime(hour: 23, minute: 5) ?? .midnight, days: [.sun, .mon, .fri], label: "Späte \"Schicht\" ⏰",
        enabled: false, sound: "siren-alarm", volume: 0, snoozeMinutes: 20, fadeInSeconds: 0, ringTimeoutMinutes: 120,
        skipNext: "2026-11-23", lights: true, briefing: true, earlierIf: EarlierIf(snow: 30, ice: 15),
        calendar: AlarmCalendar(feed: "school", leadMinutes: 90, keyword: "Schule", noEvent: .skip))

    // MARK: Round trips

    @Test("an alarm round-trips through its stored form and through the text on disk; next_fire is not stored")
    func alarmRoundTrip() throws {
        for alarm in [plain, everything] {
            let stored = alarm.stored
            #expect(Set(stored.objectValue.map { Array($0.keys) } ?? []) == [
                "id", "time", "days", "label", "enabled", "sound", "volume", "snooze_min", "fade_in_s", "ring_timeout_min",
                "skip_next", "skip_holidays", "escalate_after_s", "escalate_sound", "sunrise_min", "lights", "briefing", "earlier_if", "calendar",
            ])
            #expect(try Alarm(stored: stored) == alarm)
            #expect(try Alarm(stored: JSONValue.parse(stored.serializedBytes)) == alarm)
        }
    }

    @Test("an alarm book round-trips with its alarms in order and the last handled instant of each, to the fraction of a second")
    func bookRoundTrip() throws {
        let book = AlarmBook(alarms: [everything, plain], lastHandled: ["a1": at(0), "b2": at(-86_400.5)])
        #expect(try AlarmBook(stored: book.stored) == book)
        #expect(try AlarmBook(stored: JSONValue.parse(book.stored.serializedBytes)) == book)
        #expect(try AlarmBook(stored: AlarmBook().stored) == AlarmBook())
        // Older documents without last_handled still load.
        #expect(try AlarmBook(stored: ["alarms": [plain.stored]]) == AlarmBook(alarms: [plain]))
    }

    @Test("idle ring state round-trips, with current null")
    func idleRoundTrip() throws {
        let idle = Ringing()
        #expect(idle.stored == ["current": nil, "waiting": []])
        #expect(try Ringing(stored: idle.stored) == idle)
    }

    @Test("ring state round-trips with a current session and waiting sessions, ringing and snoozed, instants exact")
    func ringingRoundTrip() throws {
        var ringing = Ringing()
        _ = ringing.due(due("a", snooze: 5), at: at(0))
        _ = ringing.due(due("b", firesAt: 0.5), at: at(0.5))
        // a is snoozed and waits behind b, which rings; c comes due and waits too.
        _ = ringing.snooze(minutes: 7, at: at(10.25))
        _ = ringing.due(due("c", timeout: 3, firesAt: 20), at: at(20))
        #expect(ringing.current?.due.alarmID == "b")
        #expect(ringing.waiting.map(\.due.alarmID) == ["a", "c"])
        #expect(ringing.waiting.map(\.phase) == [.snoozed, .ringing])

        let restored = try Ringing(stored: ringing.stored)
        #expect(restored == ringing)
        #expect(try Ringing(stored: JSONValue.parse(ringing.stored.serializedBytes)) == ringing)
        #expect(restored.waiting.first?.snoozedUntil == at(10.25 + 7 * 60))
        #expect(restored.waiting.first?.snoozeCount == 1)

        // A snoozed current session too.
        var snoozed = Ringing()
        _ = snoozed.due(due("a"), at: at(0))
        _ = snoozed.snooze(minutes: nil, at: at(1))
        #expect(try Ringing(stored: snoozed.stored) == snoozed)
    }

    // MARK: Rejections

    @Test("an invalid stored alarm is rejected, naming the field", arguments: [
        (#"{"id":"x","time":"99:99"}"#, "time"),
        (#"{"time":"07:00"}"#, "id"),
        (#"{"id":5,"time":"07:00"}"#, "id"),
        (#"{"id":"x","time":"07:00","volume":101}"#, "volume"),
        (#"{"id":"x","time":"07:00","days":["funday"]}"#, "days"),
        (#"{"id":"x","time":"07:00","snooze_min":6}"#, "snooze_min"),
        (#"{"id":"x","time":"07:00","label":""}"#, "label"),
        (#"{"id":"x","time":"07:00","sound":""}"#, "sound"),
        (#"{"id":"x","time":"07:00","enabled":"perhaps"}"#, "enabled"),
        (#"{"id":"x","time":"07:00","skip_next":5}"#, "skip_next"),
    ])
    func invalidAlarm(text: String, field: String) throws {
        let value = try json(text)
        #expect(rejectedField { () throws(CommandError) in _ = try Alarm(stored: value) } == field)
    }

    @Test("a stored alarm without a time is rejected, naming time (it must not become a 00:00 alarm)")
    func alarmWithoutTime() throws {
        let value = try json(#"{"id":"x","label":"Work","sound":"digital-alarm","days":[],"enabled":true}"#)
        #expect(rejectedField { () throws(CommandError) in _ = try Alarm(stored: value) } == "time")
    }

    @Test("a stored alarm that is not an object is rejected")
    func alarmNotObject() {
        #expect(rejectedField { () throws(CommandError) in _ = try Alarm(stored: "07:00") } == "alarm")
    }

    @Test("an invalid stored alarm book is rejected, naming the field", arguments: [
        (#"[]"#, "alarms document"),
        (#"{"alarms":{}}"#, "alarms"),
        (#"{"alarms":[{"id":"x","time":"07:00"},{"id":"x","time":"08:00"}]}"#, "id"),
        (#"{"alarms":[{"id":"x","time":"25:00"}]}"#, "time"),
        (#"{"alarms":[],"last_handled":[]}"#, "last_handled"),
        (#"{"alarms":[],"last_handled":{"x":"yesterday"}}"#, "last_handled"),
    ])
    func invalidBook(text: String, field: String) throws {
        let value = try json(text)
        #expect(rejectedField { () throws(CommandError) in _ = try AlarmBook(stored: value) } == field)
    }

    /// A stored session with `member` replaced by `value` (removed when nil).
    func session(_ member: String, _ value: JSONValue?) -> JSONValue {
        var members: [String: JSONValue] = [
            "alarm_id": "a", "label": "A", "fires_at": 1_795_000_000, "snooze_min": 9, "ring_timeout_min": 10,
            "phase": "ringing", "since": 1_795_000_000, "snoozed_until": nil, "snooze_count": 0,
        ]
        members[member] = value
        return .object(members)
    }

    @Test("an invalid stored ring session is rejected, naming the field", arguments: [
        ("phase", "idle", "phase"),
        ("phase", "dancing", "phase"),
        ("phase", nil, "phase"),
        ("alarm_id", nil, "alarm_id"),
        ("label", 3, "label"),
        ("fires_at", "2026-03-10T08:10:00+01:00", "fires_at"),
        ("since", nil, "since"),
        ("snooze_min", "nine", "snooze_min"),
        ("ring_timeout_min", nil, "ring_timeout_min"),
        ("snoozed_until", "soon", "snoozed_until"),
        ("snooze_count", 1.5, "snooze_count"),
    ] as [(String, JSONValue?, String)])
    func invalidSession(member: String, value: JSONValue?, field: String) {
        let stored: JSONValue = ["current": session(member, value), "waiting": []]
        #expect(rejectedField { () throws(CommandError) in _ = try Ringing(stored: stored) } == field)
        let waiting: JSONValue = ["current": nil, "waiting": [session(member, value)]]
        #expect(rejectedField { () throws(CommandError) in _ = try Ringing(stored: waiting) } == field)
    }

    @Test("a snoozed session without snoozed_until is rejected (it could never ring again nor time out)")
    func snoozedWithoutEnd() {
        let withNull: JSONValue = ["current": session("phase", "snoozed"), "waiting": []]
        #expect(rejectedField { () throws(CommandError) in _ = try Ringing(stored: withNull) } == "snoozed_until")
    }

    @Test("invalid ring state documents are rejected, naming the field")
    func invalidRinging() {
        #expect(rejectedField { () throws(CommandError) in _ = try Ringing(stored: "idle") } == "ringing")
        #expect(rejectedField { () throws(CommandError) in _ = try Ringing(stored: ["current": nil, "waiting": "a"]) } == "waiting")
        #expect(rejectedField { () throws(CommandError) in _ = try Ringing(stored: ["current": 3, "waiting": []]) } == "ringing session")
    }

    // MARK: cancel, resume, nextChange

    @Test("cancel of the ringing alarm dismisses it and rings the next waiting one from now")
    func cancelCurrent() {
        var ringing = Ringing()
        _ = ringing.due(due("a"), at: at(0))
        _ = ringing.due(due("b"), at: at(1))
        let outcomes = ringing.cancel(alarmID: "a", at: at(30))
        #expect(outcomes == [.dismissed(due("a")), .ring(due("b"))])
        #expect(ringing.current?.due.alarmID == "b")
        #expect(ringing.current?.since == at(30))
        #expect(ringing.waiting.isEmpty)
    }

    @Test("cancel of a waiting alarm takes it out of the queue without a sound; the ringing one rings on")
    func cancelWaiting() {
        var ringing = Ringing()
        _ = ringing.due(due("a"), at: at(0))
        _ = ringing.due(due("b"), at: at(1))
        _ = ringing.due(due("c"), at: at(2))
        let before = ringing.current
        let outcomes = ringing.cancel(alarmID: "b", at: at(30))
        #expect(outcomes.isEmpty)
        #expect(ringing.current == before)
        #expect(ringing.waiting.map(\.due.alarmID) == ["c"])
        let dismissed = ringing.dismiss(at: at(40))
        #expect(dismissed == [.dismissed(due("a")), .ring(due("c"))])
    }

    @Test("cancel of a snoozed alarm ends the snooze; of an unknown alarm changes nothing")
    func cancelSnoozedAndUnknown() {
        var ringing = Ringing()
        _ = ringing.due(due("a"), at: at(0))
        _ = ringing.snooze(minutes: 5, at: at(10))
        let unchanged = ringing
        let unknown = ringing.cancel(alarmID: "zz", at: at(20))
        #expect(unknown.isEmpty)
        #expect(ringing == unchanged)
        let outcomes = ringing.cancel(alarmID: "a", at: at(20))
        #expect(outcomes == [.dismissed(due("a"))])
        #expect(ringing.phase == .idle)
        #expect(ringing.tick(at: at(3600)).isEmpty)
        #expect(ringing.nextChange == nil)
    }

    @Test("resume of a ring whose timeout has not passed rings again, its timeout still counted from the first ring")
    func resumeRinging() {
        var ringing = Ringing()
        _ = ringing.due(due("a", timeout: 10), at: at(0))
        let outcomes = ringing.resume(at: at(300))
        #expect(outcomes == [.ring(due("a", timeout: 10))])
        #expect(ringing.current?.since == at(0))
        #expect(ringing.nextChange == at(600))
        #expect(ringing.tick(at: at(600)) == [.autoSilenced(due("a", timeout: 10))])
    }

    @Test("resume of a ring past its timeout auto-silences it, once, and rings the waiting one")
    func resumeTimedOut() {
        var ringing = Ringing()
        _ = ringing.due(due("a", timeout: 10), at: at(0))
        _ = ringing.due(due("b"), at: at(1))
        let outcomes = ringing.resume(at: at(601))
        #expect(outcomes == [.autoSilenced(due("a", timeout: 10)), .ring(due("b"))])
        #expect(ringing.current?.due.alarmID == "b")
    }

    @Test("resume during a snooze waits for its end; after its end it rings at once with its snooze count; idle stays idle")
    func resumeSnoozed() {
        var ringing = Ringing()
        _ = ringing.due(due("a"), at: at(0))
        _ = ringing.snooze(minutes: 9, at: at(10))
        var early = ringing
        #expect(early.resume(at: at(10 + 9 * 60 - 1)).isEmpty)
        #expect(early.phase == .snoozed)
        var late = ringing
        #expect(late.resume(at: at(10 + 9 * 60)) == [.ring(due("a"))])
        #expect(late.current?.snoozeCount == 1)
        #expect(late.current?.since == at(10 + 9 * 60))
        var idle = Ringing()
        #expect(idle.resume(at: at(0)).isEmpty)
        #expect(idle == Ringing())
    }

    @Test("nextChange: none when idle; the timeout while ringing; the snooze's end while snoozed")
    func nextChange() {
        var ringing = Ringing()
        #expect(ringing.nextChange == nil)
        _ = ringing.due(due("a", snooze: 5, timeout: 3), at: at(100))
        #expect(ringing.nextChange == at(100 + 3 * 60))
        _ = ringing.snooze(minutes: nil, at: at(130))
        #expect(ringing.nextChange == at(130 + 5 * 60))
        // Another alarm takes the stage: the next change is its timeout.
        _ = ringing.due(due("b", timeout: 1), at: at(140))
        #expect(ringing.nextChange == at(140 + 60))
        _ = ringing.dismiss(at: at(150))
        #expect(ringing.nextChange == at(130 + 5 * 60))
    }
}

import Foundation
import NoiseClockCore
import Testing

@Suite("Escalation: a ring that goes on gets firm (SPEC §12)")
struct EscalationTests {
    let t0 = Date(timeIntervalSince1970: 1_795_000_000)

    func due(_ id: String = "a", after seconds: Int, timeout: Int = 10) -> Ringing.Due {
        Ringing.Due(alarmID: id, label: id.uppercased(), firesAt: t0, snoozeMinutes: 9, ringTimeoutMinutes: timeout, escalateAfterSeconds: seconds)
    }

    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    @Test("still ringing after escalate_after_s it escalates once; the timeout still ends it")
    func escalatesOnce() {
        var ringing = Ringing()
        _ = ringing.due(due(after: 120), at: at(0))
        #expect(ringing.nextChange == at(120), "the next look is the escalation, before the timeout")
        #expect(ringing.tick(at: at(119.9)).isEmpty)
        #expect(ringing.tick(at: at(120)) == [.escalated(due(after: 120))])
        #expect(ringing.current?.escalated == true)
        #expect(ringing.json { _ in "t" }["escalated"] == true)
        #expect(ringing.nextChange == at(600))
        #expect(ringing.tick(at: at(300)).isEmpty, "once")
        #expect(ringing.tick(at: at(600)) == [.autoSilenced(due(after: 120))])
    }

    @Test("0, or a value at or past the ring timeout, never escalates")
    func never() {
        for seconds in [0, 600, 3600] {
            var ringing = Ringing()
            _ = ringing.due(due(after: seconds), at: at(0))
            #expect(ringing.nextChange == at(600))
            #expect(ringing.tick(at: at(599)).isEmpty, "\(seconds)")
            #expect(ringing.tick(at: at(600)) == [.autoSilenced(due(after: seconds))])
        }
    }

    @Test("a ring after a snooze starts gentle again and escalates after its own escalate_after_s")
    func afterSnooze() {
        var ringing = Ringing()
        _ = ringing.due(due(after: 60), at: at(0))
        #expect(ringing.tick(at: at(60)) == [.escalated(due(after: 60))])
        _ = ringing.snooze(minutes: 5, at: at(90))
        #expect(ringing.current?.escalated == true, "a snooze keeps what the ring was")
        #expect(ringing.tick(at: at(390)) == [.ring(due(after: 60))])
        #expect(ringing.current?.escalated == false)
        #expect(ringing.tick(at: at(449)).isEmpty)
        #expect(ringing.tick(at: at(450)) == [.escalated(due(after: 60))])
    }

    @Test("a snoozed or dismissed alarm does not escalate; a clock set back takes the escalation with it")
    func onlyWhileRinging() {
        var ringing = Ringing()
        _ = ringing.due(due(after: 60), at: at(0))
        _ = ringing.snooze(minutes: 9, at: at(30))
        #expect(ringing.tick(at: at(200)).isEmpty)
        _ = ringing.dismiss(at: at(200))
        #expect(ringing.tick(at: at(300)).isEmpty)

        var shifted = Ringing()
        _ = shifted.due(due(after: 60), at: at(0))
        shifted.shift(by: -3600)
        #expect(shifted.nextChange == at(60 - 3600))
        #expect(shifted.tick(at: at(59 - 3600)).isEmpty)
        #expect(shifted.tick(at: at(60 - 3600)) == [.escalated(due(after: 60))])
    }

    @Test("stored with the ring: an escalated ring is escalated after a restart; an older file escalates never")
    func stored() throws {
        var ringing = Ringing()
        _ = ringing.due(due(after: 60), at: at(0))
        _ = ringing.tick(at: at(61))
        let restored = try Ringing(stored: ringing.stored)
        #expect(restored == ringing)
        #expect(restored.current?.escalated == true)
        #expect(restored.current?.due.escalateAfterSeconds == 60)

        guard case .object(var members) = ringing.stored, case .object(var session)? = members["current"] else {
            Issue.record("stored form: \(ringing.stored.serialized)")
            return
        }
        session["escalate_after_s"] = nil
        session["escalated"] = nil
        members["current"] = .object(session)
        let older = try Ringing(stored: .object(members))
        #expect(older.current?.due.escalateAfterSeconds == 0)
        #expect(older.current?.escalated == false)
        session["escalated"] = "yes"
        members["current"] = .object(session)
        let error = try #require(throws: CommandError.self) { try Ringing(stored: .object(members)) }
        #expect(error.field == "escalated")
    }

    @Test("alarm fields: escalate_after_s 0-3600, escalate_sound a tone or null; stored and read back")
    func fields() throws {
        let fields = try AlarmFields(CommandArguments(["escalate_after_s": 180, "escalate_sound": "classic-alarm"]))
        #expect(fields.escalateAfterSeconds == 180)
        #expect(fields.escalateSound == "classic-alarm")
        #expect(try AlarmFields(CommandArguments(["escalate_sound": nil])).escalateSound == "")
        for (bad, field) in [(["escalate_after_s": JSONValue.number(3601)], "escalate_after_s"), (["escalate_after_s": -1], "escalate_after_s"),
                             (["escalate_sound": 5], "escalate_sound")] {
            let error = try #require(throws: CommandError.self) { try AlarmFields(CommandArguments(bad)) }
            #expect(error.field == field)
        }
        let alarm = fields.applied(to: Alarm(id: "a1b2c3d4", time: .midnight, sound: "gentle"))
        #expect(alarm.json(nextFire: nil)["escalate_after_s"] == 180)
        #expect(alarm.json(nextFire: nil)["escalate_sound"] == "classic-alarm")
        #expect(Alarm(id: "a1b2c3d4", time: .midnight, sound: "gentle").json(nextFire: nil)["escalate_sound"] == .null)
        #expect(try Alarm(stored: alarm.stored) == alarm)
    }

    @Test("settings.wake.escalate_after_s is the default for new alarms, 0-3600")
    func wakeDefault() throws {
        let wake = try WakeSettings().applying(["escalate_after_s": 240])
        #expect(wake.escalateAfterSeconds == 240)
        #expect(wake.json["escalate_after_s"] == 240)
        let error = try #require(throws: CommandError.self) { try WakeSettings().applying(["escalate_after_s": 4000]) }
        #expect(error.field == "wake.escalate_after_s")
    }
}

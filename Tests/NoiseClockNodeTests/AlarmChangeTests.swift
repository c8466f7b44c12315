import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("Alarm scheduler: delete, enable, duplicate, skip")
struct AlarmChangeTests {
    @Test("deleting the ringing alarm stops it (alarm_dismissed) and removes it")
    func deleteRinging() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work"}"#)
        await f.advance(to: fire)

        let data = try await f.ok("alarm/delete", #"{"id":"\#(id)"}"#)

        #expect(data["id"] == .string(id))
        #expect(f.events("alarm_dismissed").map { $0["alarm_id"] } == [.string(id)])
        #expect(f.alarmState == idleState)
        #expect(!(await f.toneSounding()))
        #expect(f.alarms == [])
        #expect(f.alarmNext == noNextAlarm)
        #expect(await f.storedDocument()?["alarms"] == [])
        #expect(await f.storedDocument()?["ringing"]?["current"] == JSONValue.null)
        await f.advance(to: fire.addingTimeInterval(3600))
        #expect(f.events("alarm_ringing").count == 1)
        let again = await f.respond("alarm/delete", #"{"id":"\#(id)"}"#)
        #expect(again.error?.code == .notFound)
        #expect(again.error?.field == "id")
    }

    @Test("disabling a snoozed alarm cancels the snooze; enabled again it next fires tomorrow")
    func disableSnoozed() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)
        await f.advance(to: fire)
        try await f.ok("snooze", "5")

        let data = try await f.ok("alarm/disable", #"{"id":"\#(id)"}"#)

        #expect(data["enabled"] == false)
        #expect(data["next_fire"] == JSONValue.null)
        #expect(f.events("alarm_dismissed").map { $0["alarm_id"] } == [.string(id)])
        #expect(f.alarmState == idleState)
        await f.advance(to: fire.addingTimeInterval(5 * 60 + 1))
        #expect(f.events("alarm_ringing").count == 1)

        let enabled = try await f.ok("alarm/enable", #"{"id":"\#(id)"}"#)
        #expect(enabled["enabled"] == true)
        #expect(enabled["next_fire"] == "2026-03-11T08:10:00+01:00")
        #expect(f.events("alarm_ringing").count == 1)
    }

    @Test("alarm/<id>/enabled OFF and ON switch an alarm; occurrences passed while it was off are neither rung nor missed")
    func enabledSwitch() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)

        let off = try await f.ok("alarm/\(id)/enabled", "OFF")
        #expect(off["enabled"] == false)
        #expect(off["next_fire"] == JSONValue.null)
        #expect(f.publishedAlarm(id) == off)
        #expect(f.alarmNext == noNextAlarm)

        await f.advance(to: fire)
        await f.advance(to: fire.addingTimeInterval(30))
        #expect(f.events.isEmpty)

        let on = try await f.ok("alarm/\(id)/enabled", #"{"state":"ON"}"#)
        #expect(on["enabled"] == true)
        #expect(on["next_fire"] == "2026-03-11T08:10:00+01:00")
        await f.advance(to: fire.addingTimeInterval(60))
        #expect(f.events.isEmpty, "\(f.eventNames)")
        #expect(f.alarmNext?["id"] == .string(id))

        #expect(await f.respond("alarm/nope/enabled", "ON").error?.code == .notFound)
        let bad = await f.respond("alarm/\(id)/enabled", "MAYBE").error
        #expect(bad?.code == .invalidField)
        #expect(bad?.field == "state")
    }

    @Test("alarm/<id>/time sets the time from Home Assistant's text (HH:MM) or time (HH:MM:00) entity; anything else names time")
    func timeEntity() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work"}"#)

        let fromText = try await f.ok("alarm/\(id)/time", "06:45")
        #expect(fromText["time"] == "06:45")
        #expect(f.publishedAlarm(id)?["time"] == "06:45")
        let fromTime = try await f.ok("alarm/\(id)/time", #"{"time":"07:05:00"}"#)
        #expect(fromTime["time"] == "07:05")

        for bad in ["7.05", "24:00", "07:05:30", "07:5", "\"\""] {
            let error = await f.respond("alarm/\(id)/time", bad).error
            #expect(error?.code == .invalidField, "\(bad)")
            #expect(error?.field == "time", "\(bad)")
        }
        #expect(f.publishedAlarm(id)?["time"] == "07:05")
        #expect(await f.respond("alarm/ffffffff/time", "06:00").error?.code == .notFound)
    }

    @Test("alarm/duplicate gives a new id and the same fields")
    func duplicate() async throws {
        let f = try await AlarmFixture()
        let (id, alarm) = try await f.add(
            #"{"time":"06:45","label":"Gym","days":["mon","wed"],"sound":"beep-alarm","volume":40,"snooze_min":5,"fade_in_s":10,"ring_timeout_min":3}"#
        )

        let copy = try await f.ok("alarm/duplicate", #"{"id":"\#(id)"}"#)

        let copyID = try #require(copy["id"]?.stringValue)
        #expect(copyID != id)
        #expect(withoutID(copy) == withoutID(alarm))
        #expect(f.alarms?.items.compactMap { $0["id"]?.stringValue } == [id, copyID])
        #expect(await f.storedDocument()?["alarms"]?.items.count == 2)
        #expect(await f.respond("alarm/duplicate", #"{"id":"nope"}"#).error?.code == .notFound)
    }

    @Test("skip_next skips the next occurrence of a daily alarm (next_fire moves a day, and it does not ring); unskip restores it")
    func skipNext() async throws {
        let f = try await AlarmFixture()
        let (id, alarm) = try await f.add(#"{"time":"07:00","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)
        #expect(alarm["next_fire"] == "2026-03-11T07:00:00+01:00")

        let skipped = try await f.ok("alarm/skip_next", #"{"id":"\#(id)"}"#)
        #expect(skipped["skip_next"] == "2026-03-11")
        #expect(skipped["next_fire"] == "2026-03-12T07:00:00+01:00")
        #expect(f.alarmNext?["fires_at"] == "2026-03-12T07:00:00+01:00")

        let unskipped = try await f.ok("alarm/unskip", #"{"id":"\#(id)"}"#)
        #expect(unskipped["skip_next"] == JSONValue.null)
        #expect(unskipped["next_fire"] == "2026-03-11T07:00:00+01:00")
        #expect(f.alarmNext?["fires_at"] == "2026-03-11T07:00:00+01:00")

        // Skipped, the occurrence passes without a sound and without being reported missed: one
        // alarm_skipped says so (SPEC §12).
        try await f.ok("alarm/skip_next", #"{"id":"\#(id)"}"#)
        await f.advance(to: instant(2026, 3, 11, 7, 0, in: berlin))
        await f.advance(to: instant(2026, 3, 11, 7, 1, in: berlin))
        #expect(f.eventNames == ["alarm_skipped"], "\(f.eventNames)")
        #expect(f.events("alarm_skipped").first?["reason"] == "skip_next")
        #expect(f.events("alarm_skipped").first?["name"] == .null)
        #expect(f.events("alarm_skipped").first?["fires_at"] == "2026-03-11T07:00:00+01:00")
        await f.advance(to: instant(2026, 3, 12, 7, 0, in: berlin))
        #expect(f.events("alarm_ringing").map { $0["fires_at"] } == ["2026-03-12T07:00:00+01:00"])
    }

    @Test("skip_next of a one-shot alarm is a conflict; of an unknown alarm not_found")
    func skipOneShot() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"07:00"}"#)
        #expect(await f.respond("alarm/skip_next", #"{"id":"\#(id)"}"#).error?.code == .conflict)
        #expect(await f.respond("alarm/skip_next", #"{"id":"nope"}"#).error?.code == .notFound)
        #expect(f.publishedAlarm(id)?["skip_next"] == JSONValue.null)
    }

    /// A fixture whose store already holds a daily 07:00 alarm with the given id.
    private func fixture(withAlarm id: String) async throws -> AlarmFixture {
        let alarm = Alarm(id: id, time: AlarmTime(hour: 7, minute: 0) ?? .midnight, days: Set(Weekday.allCases), sound: "digital-alarm")
        let state = AlarmScheduler.State(book: AlarmBook(alarms: [alarm], lastHandled: [id: AlarmFixture.start]))
        return try await AlarmFixture(store: InMemoryStore([AlarmScheduler.documentName: state.stored]))
    }

    @Test("the alarm verbs take the id bare, too")
    func bareID() async throws {
        let f = try await fixture(withAlarm: "ab12cd34")
        #expect(try await f.ok("alarm/disable", "ab12cd34")["enabled"] == false)
        #expect(try await f.ok("alarm/enable", "ab12cd34")["enabled"] == true)
        #expect(try await f.ok("alarm/skip_next", "ab12cd34")["skip_next"] == "2026-03-11")
        #expect(try await f.ok("alarm/unskip", "ab12cd34")["skip_next"] == JSONValue.null)
        #expect(try await f.ok("alarm/duplicate", "ab12cd34")["id"] != "ab12cd34")
        #expect(try await f.ok("alarm/delete", "ab12cd34")["id"] == "ab12cd34")
        #expect(f.alarms?.items.count == 1)
    }

    @Test("generated ids are 8 hex characters starting with a letter, so a bare id never reads as a JSON number")
    func idsNeverNumeric() async throws {
        let f = try await AlarmFixture()
        var ids: [String] = []
        for minute in 0..<60 {
            ids.append(try await f.add(#"{"time":"09:\#(minute < 10 ? "0" : "")\#(minute)"}"#).id)
        }
        for id in ids {
            #expect(id.count == 8 && id.allSatisfy(\.isHexDigit) && id.first.map { "abcdef".contains($0) } == true, "\(id)")
        }
        let response = await f.respond("alarm/disable", ids[0])
        #expect(response.isOK, "\(response.json.serialized)")
        #expect(f.publishedAlarm(ids[0])?["enabled"] == false)
    }
}

// MARK: - Store, upcoming, the service loop

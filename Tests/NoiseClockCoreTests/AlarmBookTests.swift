import Foundation
import NoiseClockCore
import Testing

@Suite("The alarm book: the model behind the alarm verbs")
struct AlarmBookTests {
    let berlin = Zone(identifier: "Europe/Berlin") ?? .utc

    func arguments(_ json: String) -> CommandArguments {
        guard case .success(.object(let members)) = CommandPayload.decode(Array(json.utf8)).payload else { return CommandArguments() }
        return CommandArguments(members)
    }

    /// `alarm/add`'s payload decoded as the router's handler decodes it.
    func draft(_ json: String) throws(CommandError) -> AlarmDraft { try AlarmDraft(arguments(json)) }

    /// `alarm/update`'s payload decoded as the router's handler decodes it.
    func patch(_ json: String) throws(CommandError) -> AlarmPatch { try AlarmPatch(arguments(json)) }

    @Test("add needs only a time; the rest takes SPEC §3's defaults and the default tone")
    func addDefaults() throws {
        var book = AlarmBook()
        let alarm = try book.add(try draft(#"{"time":"06:45"}"#), id: "a1", defaultSound: "digital-alarm")
        #expect(alarm.time.description == "06:45")
        #expect(alarm.label == "Alarm")
        #expect(alarm.enabled)
        #expect(alarm.days.isEmpty)
        #expect(alarm.sound == "digital-alarm")
        #expect(alarm.volume == 80)
        #expect(alarm.snoozeMinutes == 9)
        #expect(alarm.fadeInSeconds == 30)
        #expect(alarm.ringTimeoutMinutes == 10)
        #expect(book.alarms.map(\.id) == ["a1"])
    }

    @Test("a rejected add or update changes nothing and names the field")
    func rejected() throws {
        var book = AlarmBook()
        _ = try book.add(try draft(#"{"time":"06:45"}"#), id: "a1", defaultSound: "digital-alarm")
        let before = book
        for (payload, field) in [(#"{"label":"x"}"#, "time"), (#"{"time":"06:45","colour":"red"}"#, "colour"), (#"{"time":"6:7"}"#, "time")] {
            do {
                _ = try book.add(try draft(payload), id: "a2", defaultSound: "digital-alarm")
                Issue.record("\(payload) was accepted")
            } catch {
                #expect(error.field == field)
            }
        }
        do {
            _ = try book.update(try patch(#"{"id":"a1","time":"07:00","volume":300}"#))
            Issue.record("volume 300 was accepted")
        } catch {
            #expect(error.field == "volume")
        }
        #expect(book == before)
    }

    @Test("update, duplicate, enable and delete act on the named alarm; an unknown id is not_found")
    func lifecycle() throws {
        var book = AlarmBook()
        _ = try book.add(try draft(#"{"time":"06:45","label":"Work","days":["mon","tue"]}"#), id: "a1", defaultSound: "digital-alarm")
        let changed = try book.update(try patch(#"{"id":"a1","time":"07:15"}"#))
        #expect(changed.time.description == "07:15")
        #expect(changed.label == "Work")
        let copy = try book.duplicate("a1", newID: "a2")
        #expect(copy.id == "a2")
        #expect(copy.days == [.mon, .tue])
        #expect(try book.setEnabled("a2", false).enabled == false)
        #expect(try book.delete("a1").id == "a1")
        #expect(book.alarms.map(\.id) == ["a2"])
        do {
            _ = try book.delete("a1")
            Issue.record("deleting twice worked")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.field == "id")
        }
    }

    @Test("at most 100 alarms: the 101st is a conflict")
    func limit() throws {
        var book = AlarmBook()
        for n in 0..<100 { _ = try book.add(try draft(#"{"time":"06:00"}"#), id: "a\(n)", defaultSound: "digital-alarm") }
        do {
            _ = try book.add(try draft(#"{"time":"06:00"}"#), id: "a100", defaultSound: "digital-alarm")
            Issue.record("the 101st alarm was accepted")
        } catch {
            #expect(error.code == .conflict)
        }
        do {
            _ = try book.duplicate("a0", newID: "a100")
            Issue.record("a duplicate past the limit was accepted")
        } catch {
            #expect(error.code == .conflict)
        }
        #expect(book.alarms.count == 100)
    }

    @Test("skip_next skips the next occurrence's local date, which nextFire then passes over; unskip undoes it")
    func skip() throws {
        var book = AlarmBook()
        _ = try book.add(try draft(#"{"time":"07:00","days":["mon","tue","wed","thu","fri","sat","sun"]}"#), id: "d", defaultSound: "digital-alarm")
        // Sunday 2026-11-22 08:00 Berlin: the next is Monday 07:00.
        let now = Date(timeIntervalSince1970: 1_795_330_800)
        let skipped = try book.skipNext("d", now: now, in: berlin)
        #expect(skipped.skipNext == "2026-11-23")
        let fire = AlarmSchedule.nextFire(of: skipped, after: now, in: berlin)
        #expect(fire.map { AlarmSchedule.localDate(of: $0, in: berlin) } == "2026-11-24")
        #expect(try book.unskip("d").skipNext == nil)
    }

    @Test("a one-shot alarm cannot skip; that is a conflict")
    func skipOneShot() throws {
        var book = AlarmBook()
        _ = try book.add(try draft(#"{"time":"07:00"}"#), id: "o", defaultSound: "digital-alarm")
        do {
            _ = try book.skipNext("o", now: Date(timeIntervalSince1970: 1_795_330_800), in: berlin)
            Issue.record("a one-shot alarm skipped")
        } catch {
            #expect(error.code == .conflict)
        }
    }

    @Test("handled keeps the latest occurrence per alarm; deleting forgets it")
    func handled() throws {
        var book = AlarmBook()
        _ = try book.add(try draft(#"{"time":"07:00"}"#), id: "o", defaultSound: "digital-alarm")
        let early = Date(timeIntervalSince1970: 1_000), late = Date(timeIntervalSince1970: 2_000)
        book.handled("o", at: late)
        book.handled("o", at: early)
        #expect(book.lastHandled["o"] == late)
        _ = try book.delete("o")
        #expect(book.lastHandled["o"] == nil)
    }
}

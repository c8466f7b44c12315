import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("Alarm scheduler: alarm verbs, B/alarms and B/alarm/next")
struct AlarmVerbTests {
    @Test("with no alarms: B/alarms is [], B/alarm/next has four nulls, B/alarm/state is idle, all retained")
    func noAlarms() async throws {
        let f = try await AlarmFixture()
        #expect(f.alarms == [])
        #expect(f.alarmNext == noNextAlarm)
        #expect(f.alarmState == idleState)
        for topic in [f.topics.alarms, f.topics.alarmNext, f.topics.alarmState] {
            let messages = f.transport.published(on: topic)
            #expect(!messages.isEmpty, "\(topic) not published at start")
            #expect(messages.allSatisfy { $0.retain }, "\(topic) not retained")
        }
    }

    @Test("alarm/add answers the alarm with its id, SPEC §3's defaults and next_fire with its offset; stored, B/alarms and B/alarm/next follow")
    func addDefaults() async throws {
        let f = try await AlarmFixture()
        let defaultTone = try #require(f.library.catalog.defaultSound(of: .alarm)).id
        let saves = try #require(f.memory).saves

        let (id, alarm) = try await f.add(#"{"time":"08:10"}"#)

        #expect(!id.isEmpty)
        #expect(alarm == [
            "id": .string(id), "time": "08:10", "days": [], "label": "Alarm", "enabled": true, "sound": .string(defaultTone),
            "volume": 80, "snooze_min": 9, "fade_in_s": 30, "ring_timeout_min": 10, "skip_next": nil, "next_fire": .string(fireISO),
            "skip_holidays": false, "next_skip": nil, "escalate_after_s": 0, "escalate_sound": nil, "sunrise_min": 0, "lights": false, "briefing": false,
            "earlier_if": nil, "calendar": nil, "next": nil,
        ])
        let published = try #require(f.transport.published(on: f.topics.alarms).last)
        #expect(published.retain)
        #expect(published.json == [alarm])
        #expect(f.alarmNext == ["id": .string(id), "label": "Alarm", "fires_at": .string(fireISO), "in_s": 360, "earlier_by_min": 0, "reason": nil, "event": nil])
        #expect(f.transport.published(on: f.topics.alarmNext).last?.retain == true)
        // Stored before it was answered.
        #expect(try #require(f.memory).saves > saves)
        #expect(await f.storedDocument()?["alarms"]?.items.map { $0["id"] } == [.string(id)])
    }

    @Test("alarm/add takes every field; a time already past today fires on the next allowed day; a tone by catalog name")
    func addAllFields() async throws {
        let f = try await AlarmFixture()
        let (id, alarm) = try await f.add(
            #"{"time":"7:30","label":"Work","days":["FRI","mon"],"enabled":true,"sound":"Siren","volume":55,"snooze_min":15,"fade_in_s":0,"ring_timeout_min":30}"#
        )
        // Tuesday 08:04 now: the next Monday or Friday 07:30 is Friday the 13th.
        #expect(alarm == [
            "id": .string(id), "time": "07:30", "days": ["mon", "fri"], "label": "Work", "enabled": true, "sound": "siren-alarm",
            "volume": 55, "snooze_min": 15, "fade_in_s": 0, "ring_timeout_min": 30, "skip_next": nil,
            "next_fire": "2026-03-13T07:30:00+01:00", "skip_holidays": false, "next_skip": nil, "escalate_after_s": 0, "escalate_sound": nil, "sunrise_min": 0, "lights": false, "briefing": false,
            "earlier_if": nil, "calendar": nil, "next": nil,
        ])
        // A one-shot alarm whose time has passed today fires tomorrow.
        let (_, tomorrow) = try await f.add(#"{"time":"08:03"}"#)
        #expect(tomorrow["next_fire"] == "2026-03-11T08:03:00+01:00")
        // A disabled alarm has no next fire, and is not the next alarm.
        let (_, off) = try await f.add(#"{"time":"08:05","enabled":false}"#)
        #expect(off["next_fire"] == JSONValue.null)
        #expect(f.alarms?.items.count == 3)
        #expect(f.alarmNext?["fires_at"] == "2026-03-11T08:03:00+01:00")
    }

    @Test("a rejected alarm/add names the field and changes nothing: nothing published, nothing stored", arguments: [
        (#"{"time":"25:00"}"#, "time"),
        (#"{"label":"Wake"}"#, "time"),
        ("{\"time\":\"08:00\",\"label\":\"\(String(repeating: "x", count: 65))\"}", "label"),
        (#"{"time":"08:00","days":["funday"]}"#, "days"),
        (#"{"time":"08:00","snooze_min":6}"#, "snooze_min"),
        (#"{"time":"08:00","volume":101}"#, "volume"),
        (#"{"time":"08:00","colour":"red"}"#, "colour"),
        (#"{"time":"08:00","sound":"white-noise"}"#, "sound"),
        (#"{"time":"08:00","sound":"no-such-tone"}"#, "sound"),
    ])
    func addRejected(payload: String, field: String) async throws {
        let f = try await AlarmFixture()
        try await f.add(#"{"time":"09:00"}"#)
        let published = f.transport.published.count
        let saves = try #require(f.memory).saves
        let before = await f.scheduler.state

        let response = await f.respond("alarm/add", payload)

        let error = try #require(response.error, "\(payload) was accepted")
        #expect(error.field == field)
        #expect(field == "sound" ? [CommandError.Code.invalidField, .notFound].contains(error.code) : error.code == .invalidField)
        #expect(f.transport.published.count == published)
        #expect(try #require(f.memory).saves == saves)
        #expect(await f.scheduler.state == before)
    }

    @Test("a label of exactly 64 characters is accepted")
    func label64() async throws {
        let f = try await AlarmFixture()
        let label = String(repeating: "x", count: 64)
        let (_, alarm) = try await f.add("{\"time\":\"08:00\",\"label\":\"\(label)\"}")
        #expect(alarm["label"] == .string(label))
    }

    @Test("the 101st alarm is a conflict, by alarm/add or alarm/duplicate; nothing changes")
    func limit() async throws {
        let ids = (0..<100).map { "a\($0)" }
        let book = AlarmBook(
            alarms: ids.enumerated().map { n, id in
                Alarm(id: id, time: AlarmTime(hour: 6, minute: n % 60) ?? .midnight, days: [.sat], sound: "digital-alarm")
            },
            lastHandled: Dictionary(uniqueKeysWithValues: ids.map { ($0, AlarmFixture.start) }))
        let store = InMemoryStore([AlarmScheduler.documentName: AlarmScheduler.State(book: book).stored])
        let f = try await AlarmFixture(store: store)
        #expect(f.alarms?.items.count == 100)
        let published = f.transport.published.count
        let saves = store.saves

        let added = await f.respond("alarm/add", #"{"time":"08:00"}"#)
        #expect(added.error?.code == .conflict)
        let duplicated = await f.respond("alarm/duplicate", #"{"id":"a0"}"#)
        #expect(duplicated.error?.code == .conflict)

        #expect(await f.scheduler.state.book.alarms.count == 100)
        #expect(f.transport.published.count == published)
        #expect(store.saves == saves)
    }

    @Test("alarm/update changes only the fields given; a bad value, a missing or unknown id changes nothing")
    func update() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work","volume":60}"#)

        let updated = try await f.ok("alarm/update", #"{"id":"\#(id)","time":"08:30"}"#)
        #expect(updated["time"] == "08:30")
        #expect(updated["label"] == "Work")
        #expect(updated["volume"] == 60)
        #expect(updated["next_fire"] == "2026-03-10T08:30:00+01:00")
        #expect(f.publishedAlarm(id) == updated)
        #expect(f.alarmNext?["fires_at"] == "2026-03-10T08:30:00+01:00")

        let published = f.transport.published.count
        let before = await f.scheduler.state
        for (payload, field, code) in [
            (#"{"id":"\#(id)","volume":101}"#, "volume", CommandError.Code.invalidField),
            (#"{"id":"\#(id)","time":"8:7"}"#, "time", .invalidField),
            (#"{"id":"nope","label":"x"}"#, "id", .notFound),
            (#"{"label":"x"}"#, "id", .invalidField),
            (#"{"id":"\#(id)","next_fire":"x"}"#, "next_fire", .invalidField),
        ] {
            let error = await f.respond("alarm/update", payload).error
            #expect(error?.field == field, "\(payload)")
            #expect(error?.code == code, "\(payload)")
        }
        #expect(await f.scheduler.state == before)
        #expect(f.transport.published.count == published)
    }

    @Test("a new or changed alarm counts only occurrences from now: one set a few minutes in the past does not ring")
    func onlyFromNow() async throws {
        let f = try await AlarmFixture()
        // 08:00 passed four minutes ago, well within the grace period.
        let (id, alarm) = try await f.add(#"{"time":"08:00"}"#)
        #expect(alarm["next_fire"] == "2026-03-11T08:00:00+01:00")
        await f.advance(to: AlarmFixture.start.addingTimeInterval(1))
        let (other, _) = try await f.add(#"{"time":"09:00"}"#)
        try await f.ok("alarm/update", #"{"id":"\#(other)","time":"08:01"}"#)
        await f.advance(to: AlarmFixture.start.addingTimeInterval(5))
        #expect(f.events.isEmpty, "\(f.events)")
        #expect(!(await f.toneSounding()))
        #expect(f.publishedAlarm(id)?["enabled"] == true)
    }

    @Test("B/alarm/next is published again at each minute with a fresh in_s, and not in between")
    func nextEachMinute() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work"}"#)
        let count = f.transport.published(on: f.topics.alarmNext).count
        await f.advance(to: instant(2026, 3, 10, 8, 4, 30, in: berlin))
        #expect(f.transport.published(on: f.topics.alarmNext).count == count)
        await f.advance(to: instant(2026, 3, 10, 8, 5, in: berlin))
        #expect(f.transport.published(on: f.topics.alarmNext).count == count + 1)
        #expect(f.alarmNext == ["id": .string(id), "label": "Work", "fires_at": .string(fireISO), "in_s": 300, "earlier_by_min": 0, "reason": nil, "event": nil])
    }
}

// MARK: - Ringing

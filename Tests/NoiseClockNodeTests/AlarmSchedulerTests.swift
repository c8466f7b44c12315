import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

/// The fixture's clock starts on Tuesday 2026-03-10 at 08:04 in Berlin (+01:00); most alarms here
/// are set for 08:10 that day.
private let fire = instant(2026, 3, 10, 8, 10, in: berlin)
private let fireISO = "2026-03-10T08:10:00+01:00"

private func berlinISO(_ instant: Date) -> String { ISOTime.string(instant, in: berlin) }

/// The `alarm_ringing` event of SPEC §2.
private func ringingEvent(_ id: String, _ label: String, at: Date, firesAt: String = fireISO, snoozeCount: Int = 0) -> JSONValue {
    [
        "event": "alarm_ringing", "at": .string(berlinISO(at)), "alarm_id": .string(id), "label": .string(label),
        "fires_at": .string(firesAt), "snooze_count": .number(Double(snoozeCount)),
    ]
}

/// `B/alarm/state` of SPEC §2 (plus `waiting`).
private func ringState(
    _ state: String, _ id: String, _ label: String, since: Date, snoozedUntil: Date? = nil, snoozeCount: Int = 0,
    waiting: [JSONValue] = []
) -> JSONValue {
    [
        "state": .string(state), "alarm_id": .string(id), "label": .string(label), "since": .string(berlinISO(since)),
        "snoozed_until": snoozedUntil.map { .string(berlinISO($0)) } ?? .null,
        "snooze_count": .number(Double(snoozeCount)), "waiting": .array(waiting),
    ]
}

private let idleState: JSONValue = [
    "state": "idle", "alarm_id": nil, "label": nil, "since": nil, "snoozed_until": nil, "snooze_count": 0, "waiting": [],
]

/// The alarm object without the members that differ between an alarm and its copy.
private func withoutID(_ alarm: JSONValue?) -> JSONValue? {
    guard var members = alarm?.objectValue else { return nil }
    members["id"] = nil
    return .object(members)
}

// MARK: - Verbs and topics

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
        ])
        let published = try #require(f.transport.published(on: f.topics.alarms).last)
        #expect(published.retain)
        #expect(published.json == [alarm])
        #expect(f.alarmNext == ["id": .string(id), "label": "Alarm", "fires_at": .string(fireISO), "in_s": 360])
        #expect(f.transport.published(on: f.topics.alarmNext).last?.retain == true)
        // Stored before it was answered.
        #expect(try #require(f.memory).saves > saves)
        #expect(f.storedDocument?["alarms"]?.items.map { $0["id"] } == [.string(id)])
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
            "next_fire": "2026-03-13T07:30:00+01:00",
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
        #expect(f.alarmNext == ["id": .string(id), "label": "Work", "fires_at": .string(fireISO), "in_s": 300])
    }
}

// MARK: - Ringing

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
        #expect(f.storedDocument?["ringing"]?["current"]?["alarm_id"] == .string(id))
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
        #expect(f.storedDocument?["ringing"]?["current"]?["phase"] == "snoozed")

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
        #expect(f.storedDocument?["alarms"]?.items.first?["enabled"] == false)
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

        #expect(Array(f.eventNames.suffix(2)) == ["alarm_dismissed", "alarm_ringing"])
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

        let second = try await AlarmFixture(start: back, store: first.store)

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

        let second = try await AlarmFixture(start: fire.addingTimeInterval(5 * 60), store: first.store)

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

        let second = try await AlarmFixture(start: back, store: first.store)

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

        let second = try await AlarmFixture(start: fire.addingTimeInterval(11 * 60), store: first.store)

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
        let second = try await AlarmFixture(start: instant(2026, 3, 10, 11, 0, in: berlin), store: first.store)

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
        #expect(f.storedDocument?["alarms"] == [])
        #expect(f.storedDocument?["ringing"]?["current"] == JSONValue.null)
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
        #expect(f.storedDocument?["alarms"]?.items.count == 2)
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

        // Skipped, the occurrence passes without a sound and without being reported missed.
        try await f.ok("alarm/skip_next", #"{"id":"\#(id)"}"#)
        await f.advance(to: instant(2026, 3, 11, 7, 0, in: berlin))
        await f.advance(to: instant(2026, 3, 11, 7, 1, in: berlin))
        #expect(f.events.isEmpty, "\(f.eventNames)")
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

@Suite("Alarm scheduler: store, alarm_upcoming and the service loop")
struct AlarmStoreAndLoopTests {
    @Test("when alarms.json cannot be saved, alarm/add answers unavailable and nothing changes")
    func failingStore() async throws {
        let f = try await AlarmFixture(store: FailingStore())
        let published = f.transport.published.count

        let response = await f.respond("alarm/add", #"{"time":"08:10"}"#)

        #expect(response.error?.code == .unavailable)
        #expect(f.transport.published.count == published)
        #expect(f.alarms == [])
        #expect(await f.scheduler.state == AlarmScheduler.State())
        await f.advance(to: fire)
        #expect(f.events.isEmpty)
    }

    @Test("an invalid alarms.json is moved aside and reported in B/status problems; the node starts without alarms")
    func invalidDocument() async throws {
        let bad = try JSONValue.parse(Array(#"{"alarms":[{"id":"x","time":"99:99"}]}"#.utf8))
        let store = InMemoryStore([AlarmScheduler.documentName: bad])

        let f = try await AlarmFixture(store: store)

        #expect(store.document(AlarmScheduler.documentName) == nil, "not moved aside")
        f.node.status.publish()
        let problems = f.transport.published(on: f.topics.status).last?.json?["problems"]?.items.compactMap(\.stringValue) ?? []
        #expect(problems.count == 1)
        #expect(problems.first?.contains("alarms.json") == true, "\(problems)")
        #expect(problems.first?.contains("time") == true, "the problem should name the bad field: \(problems)")
        #expect(f.alarms == [])
        #expect(f.alarmNext == noNextAlarm)
        #expect(await f.scheduler.state.book.alarms.isEmpty)
        #expect(f.logs.entries.contains { $0.level == .error })
    }

    @Test("an unreadable alarms.json (already moved aside by the store) is reported in B/status; no alarms")
    func unreadableDocument() async throws {
        let f = try await AlarmFixture(store: UnreadableAlarmsStore())
        f.node.status.publish()
        let problems = f.transport.published(on: f.topics.status).last?.json?["problems"]?.items.compactMap(\.stringValue) ?? []
        #expect(problems == ["alarms.json moved to alarms.json.unreadable-1: not valid JSON"])
        #expect(f.alarms == [])
        // The node works on: a new alarm is stored under the old name.
        try await f.add(#"{"time":"08:10"}"#)
    }

    @Test("alarm_upcoming is sent once per occurrence, alarms.upcoming_min before it; the wait ends exactly then")
    func upcoming() async throws {
        let f = try await AlarmFixture(configuration: ["alarms.upcoming_min": "5"])
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)
        let announceAt = instant(2026, 3, 10, 8, 5, in: berlin)

        let delay = await f.advance(to: announceAt.addingTimeInterval(-0.5))
        #expect(delay == .milliseconds(500))
        #expect(f.events("alarm_upcoming").isEmpty)

        await f.advance(to: announceAt)
        #expect(f.events("alarm_upcoming") == [[
            "event": "alarm_upcoming", "at": "2026-03-10T08:05:00+01:00", "alarm_id": .string(id), "label": "Work",
            "fires_at": .string(fireISO), "in_s": 300,
        ]])
        await f.advance(to: announceAt.addingTimeInterval(60))
        await f.advance(to: fire.addingTimeInterval(-1))
        #expect(f.events("alarm_upcoming").count == 1)

        // Not again after a restart.
        let restarted = try await AlarmFixture(
            start: announceAt.addingTimeInterval(120), configuration: ["alarms.upcoming_min": "5"], store: f.store)
        await restarted.advance(to: announceAt.addingTimeInterval(121))
        #expect(restarted.events("alarm_upcoming").isEmpty)

        // The next day's occurrence is announced once too.
        await f.advance(to: fire)
        try await f.ok("dismiss")
        await f.advance(to: instant(2026, 3, 11, 8, 5, in: berlin))
        await f.advance(to: instant(2026, 3, 11, 8, 6, in: berlin))
        #expect(f.events("alarm_upcoming").map { $0["fires_at"] } == [.string(fireISO), "2026-03-11T08:10:00+01:00"])
    }

    @Test("the AlarmService loop rings the alarm on time on its own, as the test clock passes the fire instant")
    func serviceLoop() async throws {
        let f = try await AlarmFixture(start: fire.addingTimeInterval(-2), startScheduler: false)
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Work"}"#)
        let service = AlarmService(scheduler: f.scheduler)

        try await whileRunning({ await service.run() }) {
            try await f.clock.waitUntilSleeping("the alarm service")
            await f.clock.advance(by: .seconds(1))
            try await f.clock.waitUntilSleeping("the alarm service")
            #expect(f.events("alarm_ringing").isEmpty)

            await f.clock.advance(by: .seconds(1))

            let rang = await eventually { !f.events("alarm_ringing").isEmpty }
            #expect(rang, "the loop did not ring the alarm")
        }
        #expect(f.events("alarm_ringing") == [ringingEvent(id, "Work", at: fire)])
        #expect(f.alarmState?["state"] == "ringing")
    }
}

/// A store whose `alarms.json` could not be read: `load` reports it moved aside, as `FileStore` does.
private struct UnreadableAlarmsStore: Store {
    func load(_ name: String) -> StoredDocument {
        name == AlarmScheduler.documentName ? .movedAside(movedTo: "alarms.json.unreadable-1", reason: "not valid JSON") : .missing
    }

    func save(_ name: String, _ value: JSONValue) throws {}

    func moveAside(_ name: String, reason: String) -> StoredDocument { .movedAside(movedTo: name, reason: reason) }
}

// MARK: - Follow-ups: what B/alarms shows around a ring, spent skips, a failing disk during a ring

/// An in-memory store whose saves can be made to fail, as a disk that fills up mid-ring.
private final class BreakableStore: Store {
    let inner = InMemoryStore()
    let broken = Mutex(false)

    func load(_ name: String) -> StoredDocument { inner.load(name) }

    func save(_ name: String, _ value: JSONValue) throws {
        if broken.withLock({ $0 }) { throw FailingStore.failure }
        try inner.save(name, value)
    }

    func moveAside(_ name: String, reason: String) -> StoredDocument { inner.moveAside(name, reason: reason) }
}

@Suite("Alarm scheduler: follow-ups")
struct AlarmFollowUpTests {
    @Test("a one-shot alarm that rings or is snoozed shows no next_fire (it switches itself off when over), and B/alarm/next skips it")
    func oneShotInSession() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"08:10","label":"Once"}"#)
        let (daily, _) = try await f.add(#"{"time":"09:00","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)
        await f.advance(to: fire)
        #expect(f.publishedAlarm(id)?["next_fire"] == JSONValue.null)
        #expect(f.publishedAlarm(id)?["enabled"] == true)
        #expect(f.alarmNext?["id"] == .string(daily))
        try await f.ok("snooze")
        #expect(f.publishedAlarm(id)?["next_fire"] == JSONValue.null)
        try await f.ok("dismiss")
        #expect(f.publishedAlarm(id)?["enabled"] == false)
        #expect(f.publishedAlarm(id)?["next_fire"] == JSONValue.null)
    }

    @Test("a skip_next date that is over is cleared: the alarm no longer shows it, and the store no longer holds it")
    func spentSkipCleared() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"07:00","days":["mon","tue","wed","thu","fri","sat","sun"]}"#)
        try await f.ok("alarm/skip_next", #"{"id":"\#(id)"}"#)
        await f.advance(to: instant(2026, 3, 11, 23, 59, in: berlin))
        #expect(f.publishedAlarm(id)?["skip_next"] == "2026-03-11", "still the skipped day")
        await f.advance(to: instant(2026, 3, 12, 0, 1, in: berlin))
        #expect(f.publishedAlarm(id)?["skip_next"] == JSONValue.null)
        #expect(f.storedDocument?["alarms"]?.items.first?["skip_next"] == JSONValue.null)
        #expect(f.publishedAlarm(id)?["next_fire"] == "2026-03-12T07:00:00+01:00")
    }

    @Test("when the disk fails during a ring, snooze and dismiss still silence it (a ringing alarm is always stoppable)")
    func stoppableWithoutDisk() async throws {
        let store = BreakableStore()
        let f = try await AlarmFixture(store: store)
        try await f.add(#"{"time":"08:10"}"#)
        await f.advance(to: fire)
        #expect(await f.toneSounding())
        store.broken.withLock { $0 = true }

        let snoozed = await f.respond("snooze")
        #expect(snoozed.isOK, "\(snoozed.json.serialized)")
        #expect(!(await f.toneSounding()))
        #expect(f.alarmState?["state"] == "snoozed")

        let dismissed = await f.respond("dismiss")
        #expect(dismissed.isOK)
        #expect(f.alarmState?["state"] == "idle")
        #expect(f.logs.entries.contains { $0.level == .error })
        // Other changes are still refused when they cannot be stored.
        #expect(await f.respond("alarm/add", #"{"time":"09:00"}"#).error?.code == .unavailable)
    }
}

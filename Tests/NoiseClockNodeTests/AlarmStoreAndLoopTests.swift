import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("Alarm scheduler: store, alarm_upcoming and the service loop")
struct AlarmStoreAndLoopTests {
    @Test("an alarm rings on time while a settings change waits for a disk that does not answer; the change applies once its write is done")
    func ringDoesNotWaitForAWrite() async throws {
        let store = GateStore()
        var started = store.started.makeAsyncIterator()
        let f = try await AlarmFixture(store: store)
        try await f.add(#"{"time":"08:10"}"#)
        _ = await started.next()
        store.close()
        let change = Task { await f.respond("settings", #"{"time_format":"12h"}"#) }
        #expect(await started.next()?["time_format"] == "12h", "the settings' write has started, and hangs")

        await f.advance(to: fire)
        #expect(f.events("alarm_ringing").count == 1)
        #expect(f.alarmState?["state"] == "ringing")
        #expect(f.node.settings.current.timeFormat == .twentyFourHour, "not current before it is stored")

        store.open()
        #expect(await change.value.isOK)
        #expect(f.node.settings.current.timeFormat == .twelveHour)
        // The ring was stored too, behind the settings.
        await f.node.writer.flush()
        #expect(store.inner.document(AlarmScheduler.documentName)?["ringing"]?["current"]?["phase"] == "ringing")
    }

    @Test("when alarms.json cannot be saved, alarm/add answers unavailable and nothing changes")
    func failingStore() async throws {
        let f = try await AlarmFixture(store: FailingStore())
        let published = f.transport.published.filter { !$0.topic.hasSuffix("/status") }.count

        let response = await f.respond("alarm/add", #"{"time":"08:10"}"#)

        #expect(response.error?.code == .unavailable)
        // Nothing but B/status, which now says the state folder cannot be written.
        #expect(f.transport.published.filter { !$0.topic.hasSuffix("/status") }.count == published)
        let transport = f.transport
        #expect(await eventually { transport.published.last { $0.topic.hasSuffix("/status") }?.json?["storage"]?["ok"] == false })
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
            start: announceAt.addingTimeInterval(120), configuration: ["alarms.upcoming_min": "5"], store: await f.flushedStore())
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
        let service = ClockworkService("AlarmService", f.scheduler)

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

import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

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
        #expect(await f.storedDocument()?["alarms"]?.items.first?["skip_next"] == JSONValue.null)
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

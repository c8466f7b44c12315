import Foundation
import NoiseClockAudio
import NoiseClockCore
import Testing

@testable import NoiseClockNode

/// Countdown timers on a whole node (SPEC §10): the fixture's clock starts on 2026-03-10 at 08:04
/// in Berlin; its `advance(to:)` drives the alarms, `tick` below the timers.
extension AlarmFixture {
    /// Lets `seconds` pass, then has the timers (and the alarms) look, as their loops would;
    /// returns the timers' next wake-up.
    @discardableResult
    func tick(_ seconds: Double) async -> Date? {
        await clock.advance(by: .milliseconds(Int64(seconds * 1000)))
        await scheduler.advance()
        let next = await node.timers.advance()
        await node.arbiter?.opened()
        return next
    }

    var timers: [JSONValue] { transport.published(on: topics.state(StateTopic.timers)).last?.json?.items ?? [] }
    var timerInputs: [String] { output.ids.filter { $0.hasPrefix("timer:") } }
    var storedTimers: JSONValue? { memory?.document(TimerScheduler.documentName) }

    func startTimer(_ payload: String) async throws -> String {
        let timer = try await ok("timer/start", payload)
        return try #require(timer["id"]?.stringValue)
    }
}

@Suite("Countdown timers (SPEC §10)")
struct TimerSchedulerTests {
    @Test("timer/start takes minutes, seconds or a bare number of minutes; B/timers and timers.json show it running")
    func start() async throws {
        let f = try await AlarmFixture()
        let bare = try await f.ok("timer/start", "5")
        #expect(bare["duration_s"] == 300)
        #expect(bare["label"] == "Timer")
        #expect(bare["sound"] == "timer-chime")
        #expect(bare["state"] == "running")
        #expect(bare["ends_at"] == .string(berlinISO(AlarmFixture.start.addingTimeInterval(300))))
        #expect(bare["remaining_s"] == 300)
        let eggs = try await f.ok("timer/start", #"{"seconds":90,"label":"Eggs","sound":"Soft bell"}"#)
        #expect(eggs["sound"] == "soft-bell")
        #expect(eggs["label"] == "Eggs")

        #expect(f.timers == [bare, eggs])
        let stored = try #require(f.storedTimers)
        #expect(try TimerBook(stored: stored).timers.map(\.id) == [bare["id"]?.stringValue, eggs["id"]?.stringValue])
        // The sooner end is the next wake-up.
        #expect(await f.node.timers.advance() == AlarmFixture.start.addingTimeInterval(90))
    }

    @Test("a finished timer rings its sound (timer_finished with id and label) until the ring timeout, then stops (timer_dismissed, reason timeout)")
    func ringsThenTimesOut() async throws {
        let f = try await AlarmFixture(configuration: ["timers.ring_timeout_s": "30"])
        let id = try await f.startTimer(#"{"seconds":60,"label":"Pasta"}"#)
        #expect(await f.tick(59.9) != nil)
        #expect(f.events("timer_finished").isEmpty)
        #expect(f.timerInputs.isEmpty)

        let wake = await f.tick(0.1)
        let finished = try #require(f.events("timer_finished").first)
        #expect(finished["timer_id"] == .string(id))
        #expect(finished["label"] == "Pasta")
        #expect(finished["at"] == .string(berlinISO(AlarmFixture.start.addingTimeInterval(60))))
        #expect(f.timers.first?["state"] == "ringing")
        #expect(f.timers.first?["remaining_s"] == 0)
        #expect(f.timerInputs == ["timer:1"])
        #expect(f.output.gain(of: "timer:1") == Volume.gain(TimerScheduler.ringVolume))
        #expect(wake == AlarmFixture.start.addingTimeInterval(90), "the ring timeout is the next wake-up")

        await f.tick(30)
        let dismissed = try #require(f.events("timer_dismissed").first)
        #expect(dismissed["timer_id"] == .string(id))
        #expect(dismissed["reason"] == "timeout")
        #expect(f.timers.isEmpty)
        #expect(f.output.gain(of: "timer:1") == 0, "the tone fades out")
        #expect(await f.node.timers.advance() == nil, "nothing left to wake for")
    }

    @Test("pause keeps what is left and resume runs it on; pausing a paused timer or resuming a running one is a conflict")
    func pauseResume() async throws {
        let f = try await AlarmFixture()
        let id = try await f.startTimer("1")
        await f.tick(20)
        let paused = try await f.ok("timer/pause", id)
        #expect(paused["state"] == "paused")
        #expect(paused["remaining_s"] == 40)
        #expect(paused["ends_at"] == .null)
        #expect(await f.node.timers.advance() == nil, "a paused timer needs no wake-up")

        let again = await f.respond("timer/pause", #"{"id":"\#(id)"}"#).error
        #expect(again?.code == .conflict && again?.field == "id")
        await f.tick(600)
        #expect(f.events("timer_finished").isEmpty)
        let resumed = try await f.ok("timer/resume", id)
        #expect(resumed["ends_at"] == .string(berlinISO(f.now.addingTimeInterval(40))))
        #expect(await f.respond("timer/resume", id).error?.code == .conflict)
        await f.tick(40)
        #expect(f.events("timer_finished").count == 1)
    }

    @Test("extend adds time to a running or paused timer; a ringing one runs again with it and its tone stops")
    func extend() async throws {
        let f = try await AlarmFixture()
        let id = try await f.startTimer(#"{"seconds":30}"#)
        let longer = try await f.ok("timer/extend", #"{"id":"\#(id)","seconds":60}"#)
        #expect(longer["duration_s"] == 90)
        #expect(longer["ends_at"] == .string(berlinISO(AlarmFixture.start.addingTimeInterval(90))))
        await f.tick(90)
        #expect(f.timers.first?["state"] == "ringing")
        let snoozed = try await f.ok("timer/extend", #"{"id":"\#(id)"}"#)
        #expect(snoozed["state"] == "running")
        #expect(snoozed["ends_at"] == .string(berlinISO(f.now.addingTimeInterval(60))), "a minute by default")
        #expect(f.output.gain(of: "timer:1") == 0)
        let tooLong = await f.respond("timer/extend", #"{"id":"\#(id)","seconds":86400}"#).error
        #expect(tooLong?.code == .invalidField && tooLong?.field == "seconds")
    }

    @Test("cancel removes one timer, or every timer without an id (Home Assistant's PRESS); a ringing one is reported dismissed")
    func cancel() async throws {
        let f = try await AlarmFixture()
        let short = try await f.startTimer(#"{"seconds":10,"label":"Tea"}"#)
        let long = try await f.startTimer("10")
        _ = try await f.startTimer("20")
        await f.tick(10)
        let one = try await f.ok("timer/cancel", long)
        #expect(one.items.map { $0["id"] } == [.string(long)])
        #expect(f.timers.count == 2)
        #expect(f.events("timer_dismissed").isEmpty)

        let all = try await f.ok("timer/cancel", "PRESS")
        #expect(all.items.count == 2)
        #expect(f.timers.isEmpty)
        #expect(f.events("timer_dismissed").map { $0["timer_id"] } == [.string(short)])
        #expect(f.output.gain(of: "timer:1") == 0)
        #expect(await f.respond("timer/cancel", long).error?.code == .notFound)
    }

    @Test("dismiss stops the ringing alarm first, then the ringing timers; timer/dismiss without an id stops every ringing timer")
    func dismissOrder() async throws {
        let f = try await AlarmFixture()
        _ = try await f.add(#"{"time":"08:10","label":"Wake"}"#)
        let first = try await f.startTimer(#"{"seconds":300,"label":"Oven"}"#)
        let second = try await f.startTimer(#"{"seconds":330,"label":"Rice"}"#)
        await f.advance(to: fire)
        _ = await f.node.timers.advance()
        await f.tick(30)
        #expect(f.timers.map { $0["state"] } == ["ringing", "ringing"])
        #expect(f.alarmState?["state"] == "ringing")
        // Under the alarm the timers' tone is silent; the alarm's is heard.
        let tone = try #require(f.timerInputs.first)
        #expect(f.output.gain(of: tone) == 0)
        #expect(f.toneInputs.count == 1)

        _ = try await f.ok("dismiss")
        #expect(f.events("alarm_dismissed").count == 1)
        #expect(f.events("timer_dismissed").isEmpty)
        #expect(f.output.gain(of: tone) == Volume.gain(TimerScheduler.ringVolume), "the timers are heard again")

        let refused = await f.respond("timer/dismiss", #"{"id":"ffffffff"}"#).error
        #expect(refused?.code == .notFound)
        let dismissed = try await f.ok("dismiss", "PRESS")
        #expect(dismissed["timers"]?.items.count == 2)
        #expect(Set(f.events("timer_dismissed").compactMap { $0["timer_id"]?.stringValue }) == [first, second])
        #expect(f.timers.isEmpty)
        #expect(await f.respond("dismiss").error?.code == .conflict)
        #expect(await f.respond("timer/dismiss").error?.code == .conflict)
    }

    @Test("dismiss decides on what rings now: a timer whose ring timed out unseen leaves it to the snoozed alarm, a timer that finished unseen is dismissed")
    func dismissLooksFirst() async throws {
        let f = try await AlarmFixture(configuration: ["timers.ring_timeout_s": "30"])
        _ = try await f.add(#"{"time":"08:10","label":"Wake"}"#)
        await f.advance(to: fire)
        _ = try await f.ok("snooze", "PRESS")
        #expect(f.alarmState?["state"] == "snoozed")
        _ = try await f.startTimer(#"{"seconds":10,"label":"Tea"}"#)
        await f.tick(10)
        #expect(f.timers.first?["state"] == "ringing")
        // The ring times out before the timers' loop looks again.
        await f.clock.advance(by: .seconds(31))
        let cancelled = try await f.ok("dismiss")
        #expect(cancelled["state"] == "idle", "the pending snooze is cancelled: \(cancelled)")
        #expect(f.alarmState?["state"] == "idle")
        #expect(f.events("timer_dismissed").map { $0["reason"] } == ["timeout"])
        #expect(f.timers.isEmpty)

        // Nothing rings or is snoozed; a timer then finishes before its loop looks: dismiss stops it.
        let eggs = try await f.startTimer(#"{"seconds":5,"label":"Eggs"}"#)
        await f.clock.advance(by: .seconds(6))
        let stopped = try await f.ok("dismiss")
        #expect(stopped["timers"]?.items.map { $0["id"] } == [.string(eggs)])
        #expect(f.events("timer_finished").count == 2)
        #expect(f.events("timer_dismissed").last?["reason"] == "command")
    }

    @Test("timer/dismiss with the id of a timer that is not ringing is a conflict and changes nothing")
    func dismissRunning() async throws {
        let f = try await AlarmFixture()
        let id = try await f.startTimer("3")
        let before = f.timers
        let error = await f.respond("timer/dismiss", id).error
        #expect(error?.code == .conflict && error?.field == "id")
        #expect(f.timers == before)
    }

    @Test("a ringing timer silences the noise, which comes back when the timer is dismissed")
    func coversNoise() async throws {
        let f = try await AlarmFixture()
        _ = try await f.ok("noise/play", "white-noise")
        let noise = try #require(f.output.gain(of: "noise:white-noise"))
        _ = try await f.startTimer(#"{"seconds":5}"#)
        await f.tick(5)
        #expect(f.output.gain(of: "noise:white-noise") == 0)
        let preview = await f.respond("noise/preview", "brown-noise").error
        #expect(preview?.code == .conflict)
        _ = try await f.ok("timer/dismiss")
        #expect(f.output.gain(of: "noise:white-noise") == noise)
    }

    @Test("bad input names its field and changes nothing", arguments: [
        ("timer/start", "0", "minutes"), ("timer/start", #"{"seconds":86401}"#, "seconds"), ("timer/start", "1441", "minutes"),
        ("timer/start", #"{"minutes":1,"seconds":5}"#, "seconds"), ("timer/start", "{}", "minutes"),
        ("timer/start", #"{"minutes":1,"label":""}"#, "label"), ("timer/start", #"{"minutes":1,"sound":"white-noise"}"#, "sound"),
        ("timer/start", #"{"minutes":1,"sound":"nope"}"#, "sound"), ("timer/extend", #"{"seconds":60}"#, "id"),
        ("timer/extend", #"{"id":"ffffffff","seconds":0}"#, "seconds"), ("timer/pause", "{}", "id"), ("timer/cancel", #"{"id":""}"#, "id"),
        ("timer/start", #"{"minutes":1,"colour":"red"}"#, "colour"),
    ])
    func badInput(verb: String, payload: String, field: String) async throws {
        let f = try await AlarmFixture()
        _ = try await f.startTimer("1")
        let saves = f.memory?.saves
        let published = f.transport.published.count
        let error = await f.respond(verb, payload).error
        #expect(error?.field == field, "\(verb) \(payload)")
        #expect(error?.code == .invalidField || error?.code == .notFound)
        #expect(f.memory?.saves == saves)
        #expect(f.transport.published.count == published)
    }

    @Test("at most 20 timers: the 21st is a conflict")
    func limit() async throws {
        let f = try await AlarmFixture()
        for _ in 0..<20 { _ = try await f.startTimer("1") }
        let error = await f.respond("timer/start", "1").error
        #expect(error?.code == .conflict)
        #expect(f.timers.count == 20)
    }

    @Test("across a restart: a timer that ended within the grace window rings at once, one that ended earlier is missed, a paused one waits")
    func restart() async throws {
        let store = InMemoryStore()
        let before = try await AlarmFixture(store: store)
        let late = try await before.startTimer(#"{"minutes":5,"label":"Late"}"#)
        let lost = try await before.startTimer(#"{"minutes":1,"label":"Lost"}"#)
        let held = try await before.startTimer(#"{"minutes":2,"label":"Held"}"#)
        _ = try await before.ok("timer/pause", held)

        // The node comes back 12 minutes later: "Late" ended 7 minutes ago (grace: 10), "Lost" 11.
        let after = try await AlarmFixture(start: AlarmFixture.start.addingTimeInterval(12 * 60), store: store)
        await after.node.timers.start()
        await after.node.arbiter?.opened()
        #expect(after.events("timer_finished").map { $0["timer_id"] } == [.string(late)])
        #expect(after.events("timer_missed").map { $0["timer_id"] } == [.string(lost)])
        #expect(after.events("timer_missed").first?["label"] == "Lost")
        #expect(after.timers.map { $0["id"] } == [.string(late), .string(held)])
        #expect(after.timers.map { $0["state"] } == ["ringing", "paused"])
        #expect(after.timers.last?["remaining_s"] == 120)
        #expect(after.timerInputs == ["timer:1"])
    }

    @Test("a wall clock set back moves a running timer with it: it keeps what it had left")
    func clockSetBack() async throws {
        let f = try await AlarmFixture()
        _ = try await f.startTimer("10")
        await f.tick(60)
        f.offset.jump(by: -3600)
        let wake = await f.node.timers.advance()
        #expect(wake == f.now.addingTimeInterval(540))
        #expect(f.events("timer_finished").isEmpty)
    }

    @Test("an unusable timers.json is moved aside and reported in B/status; the node starts without timers and can store new ones")
    func unusableStore() async throws {
        let store = InMemoryStore([TimerScheduler.documentName: ["version": 1, "timers": [["id": "x", "label": "L"]]]])
        let f = try await AlarmFixture(store: store)
        await f.node.timers.start()
        #expect(f.timers.isEmpty)
        #expect(store.document(TimerScheduler.documentName) == nil, "moved out of the way")
        let problems = f.node.status.status.problems
        #expect(problems.contains { $0.hasPrefix("timers.json moved to") }, "\(problems)")
        _ = try await f.startTimer("5")
        #expect(store.document(TimerScheduler.documentName) != nil)
    }
}

import Foundation
import NoiseClockAudio
import NoiseClockCore
import Testing

@testable import NoiseClockNode

@Suite("Meditation sessions: verbs, B/meditation, gongs, events, history (SPEC §10)")
struct MeditationSessionTests {
    @Test("idle at start: B/meditation is idle with every other member null, and the stats are zero")
    func idle() async throws {
        let f = try await AlarmFixture()
        await f.node.meditation.start()
        #expect(f.meditation == idleMeditation)
        #expect(f.stats == ["sessions": 0, "minutes_total": 0, "minutes_7d": 0, "streak_days": 0])
        #expect(await f.node.meditation.advance() == nil, "idle, nothing wakes")
    }

    @Test("start with PRESS takes every default of settings.meditation; B/meditation says preparing, and the output is claimed")
    func startDefaults() async throws {
        let f = try await AlarmFixture()
        let state = try await f.ok("meditation/start", "PRESS")
        #expect(state == [
            "state": "preparing", "kind": "timed", "started_at": f.iso(0), "ends_at": f.iso(615), "elapsed_s": 0, "remaining_s": 600,
            "duration_s": 600, "interval_min": 0, "next_gong_at": f.iso(15), "background": "silent", "item": nil, "position_s": nil,
        ])
        #expect(f.meditation == state)
        #expect(await f.node.arbiter?.top == .meditation)
        #expect(f.gongInputs.isEmpty, "no gong during the preparation")
        #expect(await f.node.meditation.advance() == AlarmFixture.start.addingTimeInterval(15))
    }

    @Test("a bare number is minutes; members override the settings; a gong or background by name is stored as its id")
    func startMembers() async throws {
        let f = try await AlarmFixture()
        let bare = try await f.ok("meditation/start", "25")
        #expect(bare["duration_s"] == 1500)
        try await f.ok("meditation/stop")
        let full = try await f.ok(
            "meditation/start",
            #"{"minutes":3,"preparation_s":0,"interval_min":5,"background":"Brown noise","background_volume":40,"gong":"Soft bell","volume":55}"#)
        #expect(full["state"] == "running" && full["background"] == "brown-noise" && full["interval_min"] == 5)
        #expect(full["next_gong_at"] == f.iso(180), "no preparation: the start gong has rung, the completion is next")
        #expect(f.events("meditation_started").first?["at"] == f.iso(0))
        #expect(f.gongInputs == ["meditation:gong:1"])
        #expect(f.output.gain(of: "meditation:gong:1") == Volume.gain(55))
        #expect(f.output.gain(of: MeditationSession.backgroundInput) == Volume.gain(40))
    }

    @Test("10 minutes, 5 s preparation, interval 3: the start gong, interval gongs 1-3 at 3, 6 and 9 minutes, none at the end, the completion; each on its instant")
    func gongs() async throws {
        let f = try await AlarmFixture()
        try await f.ok("meditation/start", #"{"minutes":10,"preparation_s":5,"interval_min":3}"#)
        var wake = await f.node.meditation.advance()
        var instants: [Date] = []
        while let next = wake, f.meditation?["state"] != "completed" {
            instants.append(next)
            wake = await f.pass(to: next)
        }
        let start = AlarmFixture.start
        #expect(instants == [5, 185, 365, 545, 605].map { start.addingTimeInterval($0) }, "each wake-up is a gong's instant")
        #expect(f.eventNames.filter { $0.hasPrefix("meditation") } == [
            "meditation_started", "meditation_interval", "meditation_interval", "meditation_interval", "meditation_completed",
        ])
        #expect(f.events("meditation_started").first?["at"] == f.iso(5))
        #expect(f.events("meditation_interval").map { $0["gong"] } == [1, 2, 3])
        #expect(f.events("meditation_interval").map { $0["at"] } == [f.iso(185), f.iso(365), f.iso(545)])
        #expect(f.events("meditation_interval").allSatisfy { $0["skipped"] == false })
        let completed = try #require(f.events("meditation_completed").first)
        #expect(completed["at"] == f.iso(605) && completed["minutes"] == 10 && completed["kind"] == "timed")
        #expect(f.output.ids.filter { $0.hasPrefix("meditation:gong:") }.count == 5, "five gongs struck")
        #expect(f.meditation?["state"] == "completed")
        #expect(f.meditation?["elapsed_s"] == 600 && f.meditation?["remaining_s"] == 0)
        #expect(f.meditation?["next_gong_at"] == .null && f.meditation?["ends_at"] == f.iso(605))
        let record = try #require((await f.storedHistory())?.records.first)
        #expect(record == MeditationRecord(startedAt: start, minutes: 10, kind: .timed, completed: true))
        #expect(f.stats == ["sessions": 1, "minutes_total": 10, "minutes_7d": 10, "streak_days": 1])

        // Then: the completion gong rings out (the output is still claimed), then the midnights at
        // which the stats change by themselves (the streak ends, the week forgets the session).
        let ringOut = try #require(wake)
        #expect(ringOut.timeIntervalSince(start) > 605 + 20 && ringOut.timeIntervalSince(start) <= 605 + 30)
        #expect(await f.node.arbiter?.top == .meditation)
        wake = await f.pass(to: ringOut)
        #expect(await f.node.arbiter?.top == nil)
        #expect(wake == instant(2026, 3, 12, 0, 0, in: berlin))
        wake = await f.pass(to: try #require(wake))
        #expect(f.stats == ["sessions": 1, "minutes_total": 10, "minutes_7d": 10, "streak_days": 0])
        #expect(wake == instant(2026, 3, 17, 0, 0, in: berlin))
        wake = await f.pass(to: try #require(wake))
        #expect(f.stats == ["sessions": 1, "minutes_total": 10, "minutes_7d": 0, "streak_days": 0])
        #expect(wake == nil, "nothing more to wake for")
    }

    @Test("completed stays until a stop (which sends no event) or the next start")
    func completedStays() async throws {
        let f = try await AlarmFixture()
        try await f.ok("meditation/start", #"{"minutes":1,"preparation_s":0}"#)
        await f.pass(60)
        #expect(f.meditation?["state"] == "completed")
        await f.pass(3600)
        #expect(f.meditation?["state"] == "completed")
        #expect(try await f.ok("meditation/stop") == idleMeditation)
        #expect(f.events("meditation_stopped").isEmpty)
        #expect((await f.storedHistory())?.records.count == 1)
        try await f.ok("meditation/start", #"{"minutes":1,"preparation_s":0}"#)
        await f.pass(60)
        #expect(try await f.ok("meditation/start", "2")["state"] == "preparing", "a completed session does not block the next start")
    }

    @Test("pause freezes the session (nothing wakes), resume moves the rest by exactly the time paused; the background fades while paused")
    func pauseResume() async throws {
        let f = try await AlarmFixture()
        try await f.ok("meditation/start", #"{"minutes":5,"preparation_s":10,"interval_min":3,"background":"brown-noise"}"#)
        await f.pass(70)
        #expect(f.output.gain(of: MeditationSession.backgroundInput) == Volume.gain(15))
        let paused = try await f.ok("meditation/pause")
        #expect(paused["state"] == "paused" && paused["elapsed_s"] == 60 && paused["remaining_s"] == 240)
        #expect(paused["ends_at"] == .null && paused["next_gong_at"] == .null)
        #expect(f.output.gain(of: MeditationSession.backgroundInput) == 0)
        #expect(await f.pass(1000) == nil, "nothing is due while paused")
        #expect(f.meditation?["elapsed_s"] == 60)
        let resumed = try await f.ok("meditation/resume")
        #expect(resumed["state"] == "running")
        #expect(resumed["next_gong_at"] == f.iso(1070 + 120), "the interval gong 120 s of meditation later")
        #expect(resumed["ends_at"] == f.iso(1070 + 240))
        #expect(f.output.gain(of: MeditationSession.backgroundInput) == Volume.gain(15))
        await f.pass(120)
        #expect(f.events("meditation_interval").first?["at"] == f.iso(1190))
        await f.pass(120)
        #expect(f.events("meditation_completed").first?["at"] == f.iso(1310))
        #expect((await f.storedHistory())?.records.first?.minutes == 5)
    }

    @Test("stop ends the session: meditation_stopped with what was meditated, recorded as not completed, idle, the output given back")
    func stop() async throws {
        let f = try await AlarmFixture()
        try await f.ok("meditation/start", #"{"minutes":20,"preparation_s":15}"#)
        await f.pass(15 + 150)
        let idle = try await f.ok("meditation/stop")
        #expect(idle == idleMeditation && f.meditation == idleMeditation)
        let stopped = try #require(f.events("meditation_stopped").first)
        #expect(stopped["elapsed_s"] == 150 && stopped["minutes"] == 3 && stopped["kind"] == "timed" && stopped["at"] == f.iso(165))
        #expect((await f.storedHistory())?.records == [MeditationRecord(startedAt: AlarmFixture.start, minutes: 3, kind: .timed, completed: false)])
        #expect(await f.node.arbiter?.top == nil)
        #expect(f.output.gain(of: "meditation:gong:1") == 0, "the start gong fades out")
        #expect(f.stats?["sessions"] == 1)
    }

    @Test("a session stopped in its preparation meditated nothing and is not recorded")
    func stopInPreparation() async throws {
        let f = try await AlarmFixture()
        try await f.ok("meditation/start")
        await f.pass(5)
        try await f.ok("meditation/stop")
        #expect(f.events("meditation_stopped").first?["elapsed_s"] == 0)
        #expect(await f.storedHistory() == nil)
    }

    @Test(
        "every refused verb changes nothing: no store write, no publish",
        arguments: [
            ("meditation/pause", "", CommandError.Code.conflict, nil), ("meditation/resume", "", .conflict, nil),
            ("meditation/stop", "", .conflict, nil), ("meditation/seek", "30", .conflict, nil),
            ("meditation/start", #"{"minutes":0}"#, .invalidField, "minutes"), ("meditation/start", "181", .invalidField, "minutes"),
            ("meditation/start", #"{"interval_min":4}"#, .invalidField, "interval_min"),
            ("meditation/start", #"{"preparation_s":301}"#, .invalidField, "preparation_s"),
            ("meditation/start", #"{"background":"rain"}"#, .notFound, "background"),
            ("meditation/start", #"{"background":"digital-alarm"}"#, .notFound, "background"),
            ("meditation/start", #"{"gong":"white-noise"}"#, .notFound, "gong"),
            ("meditation/start", #"{"volume":101}"#, .invalidField, "volume"), ("meditation/start", #"{"length":5}"#, .invalidField, "length"),
            ("meditation/play", "", .invalidField, "id"), ("meditation/play", "body-scan", .notFound, "id"),
            ("meditation/pause", "{\"x\":1}", .invalidField, "x"), ("meditation/seek", "\"soon\"", .invalidField, "position_s"),
        ] as [(String, String, CommandError.Code, String?)])
    func refusedWhenIdle(verb: String, payload: String, code: CommandError.Code, field: String?) async throws {
        let f = try await AlarmFixture()
        await f.node.meditation.start()
        let (published, saves) = (f.publishedCount, f.memory?.saves)
        let response = await f.respond(verb, payload)
        #expect(response.error?.code == code && response.error?.field == field, "\(response.json.serialized)")
        #expect(f.publishedCount == published && f.memory?.saves == saves)
        #expect(await f.node.arbiter?.top == nil)
    }

    @Test("while a session runs: a second start is a conflict, resume is a conflict, seek on a timed session is a conflict; nothing changes")
    func refusedWhileRunning() async throws {
        let f = try await AlarmFixture()
        try await f.ok("meditation/start", "5")
        await f.pass(20)
        let (published, saves) = (f.publishedCount, f.memory?.saves)
        for (verb, payload) in [("meditation/start", "3"), ("meditation/resume", ""), ("meditation/seek", "10"), ("meditation/play", "x")] {
            let response = await f.respond(verb, payload)
            #expect(response.error?.code == .conflict, "\(verb) → \(response.json.serialized)")
        }
        #expect(f.publishedCount == published && f.memory?.saves == saves)
        try await f.ok("meditation/pause")
        #expect(await f.respond("meditation/pause").error?.code == .conflict, "pausing a paused session")
    }

    @Test("settings.meditation: changed with a partial object, sounds stored by id, an unknown sound refused naming it; start uses it")
    func settings() async throws {
        let f = try await AlarmFixture()
        let after = try await f.ok("settings", #"{"meditation":{"minutes":20,"background":"Pink noise","gong":"soft-bell"}}"#)
        #expect(after["meditation"]?["background"] == "pink-noise" && after["meditation"]?["minutes"] == 20)
        #expect(after["meditation"]?["preparation_s"] == 15, "the members not sent stay")
        #expect(f.memory?.document(SettingsModel.documentName)?["meditation"]?["background"] == "pink-noise")
        let saves = f.memory?.saves
        let refused = await f.respond("settings", #"{"meditation":{"gong":"digital-alarm","minutes":5}}"#)
        #expect(refused.error?.code == .notFound && refused.error?.field == "meditation.gong")
        let range = await f.respond("settings", #"{"meditation":{"interval_min":7}}"#)
        #expect(range.error?.field == "meditation.interval_min")
        #expect(f.memory?.saves == saves && f.settingsMeditation?.minutes == 20)
        let started = try await f.ok("meditation/start")
        #expect(started["duration_s"] == 1200 && started["background"] == "pink-noise")
    }
}

extension AlarmFixture {
    var settingsMeditation: MeditationSettings? { node.settings.current.meditation }
}

@Suite("Meditation sessions in time: the service's wake-ups and the wall clock set back")
struct MeditationTimeTests {
    @Test("MeditationService, woken by the start verb, sleeps until the start gong and strikes it on its instant")
    func service() async throws {
        let f = try await AlarmFixture()
        let service = Task { await ClockworkService("MeditationService", f.node.meditation).run() }
        defer { service.cancel() }
        try await Task.sleep(for: .milliseconds(50))
        try await f.ok("meditation/start", #"{"minutes":1,"preparation_s":3}"#)
        for _ in 0..<6 {
            try await Task.sleep(for: .milliseconds(20))
            await f.clock.advance(by: .milliseconds(500))
        }
        #expect(await eventually { f.events("meditation_started").count == 1 })
        #expect(f.events("meditation_started").first?["at"] == f.iso(3))
        #expect(await eventually { f.gongInputs == ["meditation:gong:1"] })
    }

    @Test("the wall clock set back moves the session back with it: it keeps its elapsed time and nothing is struck twice")
    func clockSetBack() async throws {
        let f = try await AlarmFixture()
        try await f.ok("meditation/start", #"{"minutes":5,"preparation_s":0,"interval_min":3}"#)
        await f.pass(60)
        f.offset.jump(by: -600)
        let wake = await f.node.meditation.advance()
        #expect(f.meditation?["elapsed_s"] == 60)
        #expect(wake == AlarmFixture.start.addingTimeInterval(180 - 600))
        #expect(f.meditation?["next_gong_at"] == f.iso(180 - 600))
        await f.pass(120)
        #expect(f.events("meditation_interval").map { $0["at"] } == [f.iso(180 - 600)])
        #expect(f.events("meditation_started").count == 1 && f.gongInputs.count == 2)
    }
}

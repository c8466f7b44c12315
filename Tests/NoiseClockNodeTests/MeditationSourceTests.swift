import Foundation
import NoiseClockAudio
import NoiseClockCore
import Testing

@testable import NoiseClockNode

@Suite("A meditation among the other sources, and guided meditations (SPEC §10)")
struct MeditationSourceTests {
    static let noiseInput = "noise:white-noise"

    @Test("noise fades out for a session, stays out while the completion gong rings out, and comes back after")
    func noiseFadesOutAndBack() async throws {
        let f = try await AlarmFixture()
        try await f.ok("noise/play", "white-noise")
        let noiseGain = try #require(f.output.gain(of: Self.noiseInput))
        #expect(noiseGain > 0)
        try await f.ok("meditation/start", #"{"minutes":1,"preparation_s":5}"#)
        #expect(f.output.gain(of: Self.noiseInput) == 0, "faded out from the preparation on")
        await f.pass(5)
        #expect(f.output.gain(of: Self.noiseInput) == 0)
        let ringOut = try #require(await f.pass(60))
        #expect(f.meditation?["state"] == "completed")
        #expect(f.output.gain(of: Self.noiseInput) == 0, "the completion gong is heard alone")
        await f.pass(to: ringOut)
        #expect(f.output.gain(of: Self.noiseInput) == noiseGain, "the noise comes back")
        #expect(f.output.ids.contains(Self.noiseInput), "the noise played on silently all along")
    }

    @Test("a stopped session gives the noise back at once")
    func noiseBackAfterStop() async throws {
        let f = try await AlarmFixture()
        try await f.ok("noise/play", "white-noise")
        let noiseGain = f.output.gain(of: Self.noiseInput)
        try await f.ok("meditation/start", "5")
        #expect(f.output.gain(of: Self.noiseInput) == 0)
        try await f.ok("meditation/stop")
        #expect(f.output.gain(of: Self.noiseInput) == noiseGain)
    }

    @Test("a preview during a session is refused (conflict) and nothing is added to the mix")
    func previewRefused() async throws {
        let f = try await AlarmFixture()
        try await f.ok("meditation/start", #"{"minutes":2,"preparation_s":0}"#)
        let ids = f.output.ids
        let response = await f.respond("noise/preview", "soft-bell")
        #expect(response.error?.code == .conflict && response.error?.field == "sound")
        #expect(response.error?.message.contains("meditation") == true)
        #expect(f.output.ids == ids)
    }

    @Test("an alarm during a timed session: the session keeps time, the gong due in the ring is skipped (reported skipped), the next is heard")
    func alarmOverTimedSession() async throws {
        let f = try await AlarmFixture()
        // The fixture starts at 08:04:00; the alarm rings at 08:06, the interval gongs fall at 08:07:00 and 08:10:00.
        try await f.add(#"{"time":"08:06"}"#)
        try await f.ok("meditation/start", #"{"minutes":8,"preparation_s":0,"interval_min":3,"background":"brown-noise"}"#)
        #expect(f.gongInputs == ["meditation:gong:1"])
        await f.pass(120)
        #expect(await f.node.arbiter?.top == .alarm)
        #expect(f.output.gain(of: MeditationSession.backgroundInput) == 0, "the background is covered")
        await f.pass(60)
        let covered = try #require(f.events("meditation_interval").first)
        #expect(covered["gong"] == 1 && covered["skipped"] == true && covered["at"] == f.iso(180))
        #expect(f.gongInputs == ["meditation:gong:1"], "no gong struck under the alarm")
        #expect(f.meditation?["state"] == "running" && f.meditation?["elapsed_s"] == 180, "time kept")
        try await f.ok("dismiss")
        #expect(await f.node.arbiter?.top == .meditation)
        #expect(f.output.gain(of: MeditationSession.backgroundInput) == Volume.gain(15), "the background comes back")
        await f.pass(180)
        let heard = try #require(f.events("meditation_interval").last)
        #expect(heard["gong"] == 2 && heard["skipped"] == false && heard["at"] == f.iso(360))
        #expect(f.gongInputs.last == "meditation:gong:2")
        await f.pass(120)
        #expect(f.events("meditation_completed").first?["at"] == f.iso(480))
    }

    @Test("a ringing timer over a timed session behaves like an alarm: its gong is skipped, the session keeps time")
    func timerOverTimedSession() async throws {
        let f = try await AlarmFixture(configuration: ["timers.ring_timeout_s": "60"])
        try await f.ok("meditation/start", #"{"minutes":5,"preparation_s":0,"interval_min":3}"#)
        try await f.ok("timer/start", #"{"seconds":170}"#)
        await f.pass(170)
        #expect(await f.node.arbiter?.top == .timer)
        await f.pass(10)
        #expect(f.events("meditation_interval").first?["skipped"] == true)
        #expect(f.gongInputs.count == 1)
        await f.pass(60)
        #expect(await f.node.arbiter?.top == .meditation, "the timer timed out")
        await f.pass(60)
        let completed = try #require(f.events("meditation_completed").first)
        #expect(completed["skipped"] == false && completed["at"] == f.iso(300))
    }

    // MARK: Guided

    @Test("a guided meditation: play, B/meditation with its item and position, pause and resume, seek, the end recorded")
    func guided() async throws {
        let f = try await AlarmFixture()
        let library = FakeGuidedLibrary()
        let session = await f.guidedSession(library)
        let playing = try await session.play("body-scan")
        #expect(playing == [
            "state": "running", "kind": "guided", "started_at": f.iso(0), "ends_at": f.iso(300), "elapsed_s": 0, "remaining_s": 300,
            "duration_s": 300, "interval_min": nil, "next_gong_at": nil, "background": nil,
            "item": ["id": "body-scan", "name": "Body scan", "teacher": "Ana", "duration_s": 300], "position_s": 0,
        ])
        let started = try #require(f.events("meditation_started").first)
        #expect(started["kind"] == "guided" && started["id"] == "body-scan" && started["teacher"] == "Ana")
        #expect(f.output.gain(of: MeditationSession.guidedInput) == Volume.gain(70))
        // Position updates every 15 s while it plays.
        #expect(await session.advance() == AlarmFixture.start.addingTimeInterval(15))
        await f.clock.advance(by: .seconds(15))
        #expect(await session.advance() == AlarmFixture.start.addingTimeInterval(30))
        #expect(f.meditation?["position_s"] == 15)

        let paused = try await session.pause()
        #expect(paused["state"] == "paused" && paused["ends_at"] == .null)
        #expect(library.sources.last?.isPaused == true)
        await f.clock.advance(by: .seconds(600))
        #expect(await session.advance() == nil, "nothing wakes while paused")
        #expect(f.meditation?["position_s"] == 15)
        let resumed = try await session.resume()
        #expect(resumed["state"] == "running" && resumed["ends_at"] == f.iso(615 + 285))
        #expect(library.sources.last?.isPaused == false)

        let sought = try await session.seek(250)
        #expect(sought["position_s"] == 250 && sought["ends_at"] == f.iso(615 + 50))
        #expect(library.sources.last?.seeks == [250 * AudioFormat.sampleRate])
        await f.clock.advance(by: .seconds(50))
        #expect(await session.advance() == instant(2026, 3, 12, 0, 0, in: berlin), "then only the stats' midnight")
        let completed = try #require(f.events("meditation_completed").first)
        #expect(completed["at"] == f.iso(665) && completed["minutes"] == 1, "heard: 15 s + 50 s")
        #expect(f.meditation?["state"] == "completed" && f.meditation?["position_s"] == 300)
        #expect((await f.storedHistory())?.records == [MeditationRecord(startedAt: AlarmFixture.start, minutes: 1, kind: .guided, completed: true)])
        #expect(await f.node.arbiter?.top == nil)
    }

    @Test("guided errors: unknown id not_found, a second play conflict, seek past the end or negative invalid_field, none change anything")
    func guidedErrors() async throws {
        let f = try await AlarmFixture()
        let session = await f.guidedSession(FakeGuidedLibrary())
        let missing = await commandError { _ = try await session.play("nothing") }
        #expect(missing?.code == .notFound && missing?.field == "id")
        #expect(await f.node.arbiter?.top == nil)
        _ = try await session.play("body-scan")
        await f.clock.advance(by: .seconds(20))
        _ = await session.advance()
        let published = f.publishedCount
        #expect(await commandError { _ = try await session.play("body-scan") }?.code == .conflict)
        #expect(await commandError { _ = try await session.start(try MeditationDraft(CommandArguments())) }?.code == .conflict)
        for position in [-1.0, 300, 301] {
            let error = await commandError { _ = try await session.seek(position) }
            #expect(error?.code == .invalidField && error?.field == "position_s", "seek \(position)")
        }
        #expect(await commandError { _ = try await session.resume() }?.code == .conflict, "resume while it plays")
        #expect(f.publishedCount == published)
        #expect(f.meditation?["position_s"] == 20)
    }

    @Test("an alarm during a guided meditation pauses it (B/meditation says paused, the position stands still); it plays on after")
    func alarmOverGuided() async throws {
        let f = try await AlarmFixture()
        let library = FakeGuidedLibrary()
        let session = await f.guidedSession(library)
        try await f.add(#"{"time":"08:05"}"#)
        _ = try await session.play("body-scan")
        await f.clock.advance(by: .seconds(60))
        await f.scheduler.advance()
        #expect(await f.node.arbiter?.top == .alarm)
        _ = await session.advance()
        #expect(f.meditation?["state"] == "paused" && f.meditation?["position_s"] == 60)
        #expect(library.sources.last?.isPaused == true)
        #expect(await commandError { _ = try await session.resume() }?.code == .conflict, "it resumes by itself after the alarm")
        await f.clock.advance(by: .seconds(30))
        #expect(await session.advance() == nil, "nothing wakes while covered")
        #expect(f.meditation?["position_s"] == 60)
        try await f.ok("dismiss")
        let wake = await session.advance()
        #expect(f.meditation?["state"] == "running" && f.meditation?["position_s"] == 60)
        #expect(f.meditation?["ends_at"] == f.iso(90 + 240))
        #expect(library.sources.last?.isPaused == false)
        #expect(wake == AlarmFixture.start.addingTimeInterval(90 + 15))
    }

    @Test("a guided meditation paused by the user stays paused after an alarm")
    func userPauseSurvivesAlarm() async throws {
        let f = try await AlarmFixture()
        let session = await f.guidedSession(FakeGuidedLibrary())
        try await f.add(#"{"time":"08:05"}"#)
        _ = try await session.play("body-scan")
        await f.clock.advance(by: .seconds(30))
        _ = try await session.pause()
        await f.clock.advance(by: .seconds(30))
        await f.scheduler.advance()
        _ = await session.advance()
        try await f.ok("dismiss")
        _ = await session.advance()
        #expect(f.meditation?["state"] == "paused" && f.meditation?["position_s"] == 30)
        #expect(try await session.resume()["state"] == "running")
    }
}

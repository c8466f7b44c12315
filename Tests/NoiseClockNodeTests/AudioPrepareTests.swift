import Foundation
import Testing

@testable import NoiseClockNode

/// A source that will sound soon gets the output ready first (`AudioOutput.prepare`: the engine's
/// first ALSA open, ~5 ms, is then not paid at an alarm's instant); an idle node never does.
@Suite("The output is prepared before a sound is due, and not otherwise")
struct AudioPrepareTests {
    @Test("an alarm hours away prepares nothing; one within the minute does, at the add and at the scheduler's look")
    func alarm() async throws {
        let f = try await AlarmFixture()  // Tuesday 08:04:00
        try await f.add(#"{"time":"10:00"}"#)
        await f.scheduler.advance()
        #expect(f.output.prepared == 0)

        #expect(f.library.cache.keptPaths.isEmpty, "no tone is decoded for an alarm hours away")

        try await f.add(#"{"time":"08:05","sound":"classic-alarm"}"#)  // 60 s away
        #expect(f.output.prepared == 1)
        let tone = try f.library.path(of: f.library.sound("classic-alarm", field: "sound"))
        #expect(await eventually(timeout: backgroundDecodeTimeout) { f.library.cache.keptPaths == [tone] }, "its tone is decoded ahead")
        // At the instant the tone starts from memory; once the alarm has rung, nothing is kept for it.
        await f.clock.advance(by: .seconds(60))
        await f.scheduler.advance()
        #expect(f.toneInputs.count == 1)
        #expect(f.library.cache.keptPaths.isEmpty)

        // The next minute's look, with the 10:00 alarm left 62 s away.
        let g = try await AlarmFixture()
        try await g.add(#"{"time":"08:06"}"#)
        #expect(g.output.prepared == 0)
        await g.clock.advance(by: .seconds(58))
        await g.scheduler.advance()
        #expect(g.output.prepared == 1)
    }

    @Test("a timer prepares the output once it is within a minute of its end")
    func timer() async throws {
        let f = try await AlarmFixture()
        _ = try await f.startTimer(#"{"minutes":10}"#)
        await f.tick(0)
        #expect(f.output.prepared == 0)
        #expect(f.library.cache.keptPaths.isEmpty)
        await f.tick(9 * 60 + 10)  // 50 s left
        #expect(f.output.prepared >= 1)
        #expect(await eventually(timeout: backgroundDecodeTimeout) { f.library.cache.keptPaths.count == 1 }, "the timer's tone is decoded ahead")
    }

    @Test("a meditation prepares the output as it starts")
    func meditation() async throws {
        let f = try await AlarmFixture()
        #expect(f.output.prepared == 0)
        try await f.ok("meditation/start", #"{"minutes":5}"#)
        #expect(f.output.prepared == 1)
        #expect(await eventually(timeout: backgroundDecodeTimeout) { f.library.cache.keptPaths.count == 1 }, "the gong is decoded ahead")
        try await f.ok("meditation/stop")
        #expect(f.library.cache.keptPaths.isEmpty)
    }
}

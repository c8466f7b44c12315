import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("Noise player: regressions")
struct NoisePlayerRegressionTests {
    @Test("after a restart the sleep timer is stored again, so a second restart still honours it")
    func timerSurvivesTwoRestarts() async throws {
        let store = InMemoryStore()
        let first = try PlayerFixture(store: store)
        try await first.play("white-noise", sleepMinutes: 30)
        let second = try PlayerFixture(store: store)
        await second.player.resume()
        #expect(second.storedMix?.sleepTimerEndsAt == PlayerFixture.start.timeIntervalSince1970 + 30 * 60)
    }

    @Test("playing the sound that already plays glides to the new gain instead of restarting it from silence")
    func replayIsSmooth() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise", volume: 100)
        fixture.output.render(milliseconds: 1_000)
        let before = fixture.output.render(milliseconds: 100)
        try await fixture.play("white-noise", volume: 100)
        // A restart would begin at gain 0: the first 50 ms would be near silent.
        let after = fixture.output.render(milliseconds: 50)
        #expect(after > before / 2, "peak \(after) after re-play vs \(before) before")
    }

    @Test("a volume change in the sleep timer's last minute does not undo the fade")
    func volumeDuringSleepFade() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise", sleepMinutes: 2)
        await fixture.clock.advance(by: .seconds(70))
        try await fixture.player.tick()
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        _ = try await fixture.player.setVolume(90)
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
    }

    @Test("while an alarm tone plays, volume and add keep the noise silent, a preview is refused; the noise returns when the alarm ends")
    func noiseStaysDownDuringAlarm() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        await fixture.ringAlarm("digital-alarm", volume: 80, rampSeconds: 30)
        _ = try await fixture.player.setVolume(90)
        _ = try await fixture.player.add("pink-noise", volume: 50)
        let refused = await commandError { _ = try await fixture.player.preview("brown-noise") }
        #expect(refused?.code == .conflict)
        #expect(refused?.field == "sound")
        #expect(!fixture.output.ids.contains("preview"))
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        #expect(fixture.output.gain(of: "noise:pink-noise") == 0)
        await fixture.arbiter.stopTone(.alarm)
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100, master: 90))
    }

    @Test("after a stop and a restart, toggle plays the last mix rather than the catalog default")
    func lastMixSurvivesRestart() async throws {
        let store = InMemoryStore()
        let first = try PlayerFixture(store: store)
        try await first.play("brown-noise")
        _ = try await first.player.stop()
        let second = try PlayerFixture(store: store)
        await second.player.resume()
        let data = try await second.player.toggle()
        #expect(data["sounds"] == [["id": "brown-noise", "volume": 100]])
    }
}

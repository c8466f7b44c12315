import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("Noise player")
struct NoisePlayerTests {
    let fade = PlayerFixture.fadeMilliseconds

    // MARK: play, add, remove, stop

    @Test("play puts noise:<id> into the mixer at layer gain × master gain (default master volume 50)")
    func play() async throws {
        let fixture = try PlayerFixture()

        let data = try await fixture.play("white-noise")

        #expect(fixture.output.ids == ["noise:white-noise"])
        #expect(fixture.output.gain(of: "noise:white-noise") == Volume.gain(100) * Volume.gain(50))
        #expect(data == noiseState(playing: true, [("white-noise", 100)]))
        // It is heard once the fade-in has run.
        #expect(fixture.output.render(milliseconds: fade + 100) > 0)
    }

    @Test("play publishes a retained B/noise with playing true, and a noise_started event")
    func playPublishes() async throws {
        let fixture = try PlayerFixture()

        try await fixture.play("white-noise")

        let state = try #require(fixture.noiseStates.last)
        #expect(state.retain)
        #expect(state.json == noiseState(playing: true, [("white-noise", 100)]))
        #expect(fixture.events == ["noise_started"])
        #expect(fixture.event("noise_started")?["at"] == "2026-03-10T22:30:00+01:00")
        #expect(fixture.transport.published(on: PlayerFixture.topics.event).allSatisfy { !$0.retain })
    }

    @Test("play with a volume sets the master volume; every gain follows it")
    func playWithVolume() async throws {
        let fixture = try PlayerFixture()

        let data = try await fixture.player.play([("pink-noise", 60)], volume: 80, sleepMinutes: nil)

        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(60, master: 80))
        #expect(data == noiseState(playing: true, [("pink-noise", 60)], volume: 80))
        #expect(fixture.lastNoise == data)
    }

    @Test("when noise.json cannot be written, a noise verb is answered unavailable and nothing is heard or published of it; with the disk back it works")
    func failingStore() async throws {
        let fixture = try PlayerFixture()
        let store = BreakableStore()
        let player = NoisePlayer(
            library: fixture.library, arbiter: fixture.arbiter, store: store, hub: fixture.wiring.hub, time: fixture.wiring.time,
            fadeMilliseconds: PlayerFixture.fadeMilliseconds, logger: LogRecorder().logger())
        _ = try await player.play([("white-noise", nil)], volume: nil, sleepMinutes: nil)
        let published = fixture.noiseStates.count
        store.broken.withLock { $0 = true }

        #expect(await commandError { _ = try await player.play([("pink-noise", nil)], volume: nil, sleepMinutes: nil) }?.code == .unavailable)
        #expect(await commandError { _ = try await player.setVolume(10) }?.code == .unavailable)
        #expect(await commandError { _ = try await player.stop() }?.code == .unavailable)
        #expect(fixture.output.ids == ["noise:white-noise"], "pink noise never started")
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100), "the volume did not move")
        #expect(fixture.noiseStates.count == published, "no B/noise for a refused change")
        #expect(fixture.events == ["noise_started"])

        store.broken.withLock { $0 = false }
        let stopped = try await player.stop()
        #expect(stopped == noiseState(playing: false, []))
        #expect(store.inner.document(NoisePlayer.documentName)?["playing"] == false)
    }

    @Test("play accepts a catalog name in any case")
    func playByName() async throws {
        let fixture = try PlayerFixture()
        let data = try await fixture.play("heavy RAIN")
        #expect(data == noiseState(playing: true, [("heavy-rain-white-noise", 100)]))
        #expect(fixture.output.ids == ["noise:heavy-rain-white-noise"])
    }

    @Test("play of another sound replaces the first, which fades out and leaves the mix")
    func playReplaces() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        fixture.output.render(milliseconds: fade)

        let data = try await fixture.play("pink-noise")

        #expect(data == noiseState(playing: true, [("pink-noise", 100)]))
        #expect(fixture.lastNoise == data)
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(100))
        #expect(!fixture.events.contains("noise_stopped"))

        fixture.output.render(milliseconds: 3000)
        #expect(fixture.output.ids == ["noise:pink-noise"])
    }

    @Test("add mixes a second sound in; the first keeps playing, and no second noise_started is sent")
    func add() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")

        let data = try await fixture.player.add("pink-noise", volume: 40)

        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise"])
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(40))
        #expect(data == noiseState(playing: true, [("white-noise", 100), ("pink-noise", 40)]))
        #expect(fixture.lastNoise == data)
        #expect(fixture.events == ["noise_started"])

        fixture.output.render(milliseconds: 2000)
        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise"])
    }

    @Test("add to silence starts the mix with that sound alone")
    func addToSilence() async throws {
        let fixture = try PlayerFixture()

        let data = try await fixture.player.add("brown-noise", volume: nil)

        #expect(data == noiseState(playing: true, [("brown-noise", 100)]))
        #expect(fixture.output.ids == ["noise:brown-noise"])
        #expect(fixture.events == ["noise_started"])
    }

    @Test("add of a sound already in the mix changes its volume without doubling it")
    func addAgain() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        _ = try await fixture.player.add("pink-noise", volume: 40)

        let data = try await fixture.player.add("pink-noise", volume: 70)

        #expect(data == noiseState(playing: true, [("white-noise", 100), ("pink-noise", 70)]))
        #expect(fixture.output.ids.filter { $0 == "noise:pink-noise" }.count == 1)
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(70))
    }

    @Test("remove takes one sound out of the mix; the others play on")
    func remove() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        _ = try await fixture.player.add("pink-noise", volume: 40)

        let data = try await fixture.player.remove("white-noise")

        #expect(data == noiseState(playing: true, [("pink-noise", 40)]))
        #expect(fixture.lastNoise == data)
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(40))
        #expect(!fixture.events.contains("noise_stopped"))

        fixture.output.render(milliseconds: fade + 100)
        #expect(fixture.output.ids == ["noise:pink-noise"])
    }

    @Test("remove of the last sound stops the noise")
    func removeLast() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")

        let data = try await fixture.player.remove("White noise")

        #expect(data == noiseState(playing: false, []))
        #expect(fixture.events == ["noise_started", "noise_stopped"])
        fixture.output.render(milliseconds: fade + 100)
        #expect(fixture.output.isEmpty)
    }

    @Test("remove of a sound that is not playing is a conflict and changes nothing")
    func removeNotPlaying() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        let published = fixture.transport.published.count

        let error = await commandError { _ = try await fixture.player.remove("pink-noise") }

        #expect(error?.code == .conflict)
        #expect(error?.field == "sound")
        #expect(fixture.transport.published.count == published)
        #expect(fixture.output.ids == ["noise:white-noise"])
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
    }

    @Test("stop publishes playing false and noise_stopped, and the mix is empty once fade_ms has been rendered")
    func stop() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        _ = try await fixture.player.add("pink-noise", volume: 40)
        fixture.output.render(milliseconds: fade)

        let data = try await fixture.player.stop()

        #expect(data == noiseState(playing: false, []))
        let state = try #require(fixture.noiseStates.last)
        #expect(state.retain)
        #expect(state.json == data)
        #expect(fixture.events == ["noise_started", "noise_stopped"])
        // Fading, not cut: still there half-way, gone after fade_ms (plus one period).
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        fixture.output.render(milliseconds: fade / 2)
        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise"])
        fixture.output.render(milliseconds: fade / 2 + 50)
        #expect(fixture.output.isEmpty)
        #expect(fixture.output.render(milliseconds: 50) == 0)
    }

    @Test("stop when nothing plays sends no noise_stopped")
    func stopSilence() async throws {
        let fixture = try PlayerFixture()
        let data = try await fixture.player.stop()
        #expect(data == noiseState(playing: false, []))
        #expect(!fixture.events.contains("noise_stopped"))
        #expect(fixture.output.isEmpty)
    }

    // MARK: toggle, power

    @Test("toggle after stop plays the last mix again, with its volumes")
    func toggleAfterStop() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        _ = try await fixture.player.add("pink-noise", volume: 40)
        try await fixture.player.stop()
        fixture.output.render(milliseconds: fade + 100)
        #expect(fixture.output.isEmpty)

        let data = try await fixture.player.toggle()

        #expect(data == noiseState(playing: true, [("white-noise", 100), ("pink-noise", 40)]))
        #expect(fixture.lastNoise == data)
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(40))
        #expect(fixture.events == ["noise_started", "noise_stopped", "noise_started"])
    }

    @Test("toggle while playing stops")
    func toggleStops() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")

        let data = try await fixture.player.toggle()

        #expect(data == noiseState(playing: false, []))
        #expect(fixture.events == ["noise_started", "noise_stopped"])
    }

    @Test("power ON with nothing played before plays the catalog's default noise")
    func powerOnDefault() async throws {
        let fixture = try PlayerFixture()
        let defaultID = try #require(fixture.library.catalog.sounds(of: .noise).first(where: \.isDefault)?.id)

        let data = try await fixture.player.power(on: true)

        #expect(data == noiseState(playing: true, [(defaultID, 100)]))
        #expect(fixture.output.ids == ["noise:\(defaultID)"])
        #expect(fixture.output.gain(of: "noise:\(defaultID)") == noiseGain(100))
        #expect(fixture.events == ["noise_started"])
    }

    @Test("power ON while playing changes nothing; power OFF stops")
    func powerOnOff() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("brown-noise")

        let on = try await fixture.player.power(on: true)
        #expect(on == noiseState(playing: true, [("brown-noise", 100)]))
        #expect(fixture.events == ["noise_started"])
        #expect(fixture.output.ids == ["noise:brown-noise"])

        let off = try await fixture.player.power(on: false)
        #expect(off == noiseState(playing: false, []))
        #expect(fixture.events == ["noise_started", "noise_stopped"])
    }

    @Test("power ON after a stop plays the last mix, not the default")
    func powerOnLastMix() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("brown-noise")
        try await fixture.player.stop()

        let data = try await fixture.player.power(on: true)

        #expect(data == noiseState(playing: true, [("brown-noise", 100)]))
        #expect(fixture.output.gain(of: "noise:brown-noise") == noiseGain(100))
    }

    // MARK: volume

    @Test("volume changes the gain of every noise layer, and B/noise says so")
    func volume() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        _ = try await fixture.player.add("pink-noise", volume: 40)

        let data = try await fixture.player.setVolume(80)

        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100, master: 80))
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(40, master: 80))
        #expect(data == noiseState(playing: true, [("white-noise", 100), ("pink-noise", 40)], volume: 80))
        #expect(fixture.lastNoise == data)

        _ = try await fixture.player.setVolume(0)
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        #expect(fixture.output.gain(of: "noise:pink-noise") == 0)
        // Volume 0 silences; it does not stop.
        fixture.output.render(milliseconds: 1000)
        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise"])
    }

    @Test("volume while stopped is kept for the next play")
    func volumeWhileStopped() async throws {
        let fixture = try PlayerFixture()

        let data = try await fixture.player.setVolume(30)
        #expect(data == noiseState(playing: false, [], volume: 30))
        #expect(fixture.output.isEmpty)

        try await fixture.play("white-noise")
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100, master: 30))
        #expect(fixture.lastNoise == noiseState(playing: true, [("white-noise", 100)], volume: 30))
    }

    // MARK: Unknown sounds

    @Test("play of an unknown sound is not_found naming sound, and changes nothing")
    func unknownSound() async throws {
        let fixture = try PlayerFixture()

        let error = await commandError { try await fixture.play("bogus") }

        #expect(error?.code == .notFound)
        #expect(error?.field == "sound")
        #expect(fixture.output.isEmpty)
        #expect(fixture.transport.published.isEmpty)
        #expect(fixture.store.document(NoisePlayer.documentName) == nil)
    }

    @Test("an unknown sound in a mix, or while noise plays, changes nothing")
    func unknownSoundWhilePlaying() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        let published = fixture.transport.published.count
        let stored = fixture.store.document(NoisePlayer.documentName)

        let mixed = await commandError {
            _ = try await fixture.player.play([("pink-noise", nil), ("bogus", nil)], volume: 10, sleepMinutes: 5)
        }
        let added = await commandError { _ = try await fixture.player.add("../sounds/pink-noise", volume: nil) }
        let previewed = await commandError { _ = try await fixture.player.preview("nope") }

        for error in [mixed, added, previewed] {
            #expect(error?.code == .notFound)
            #expect(error?.field == "sound")
        }
        #expect(fixture.output.ids == ["noise:white-noise"])
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(fixture.transport.published.count == published)
        #expect(fixture.store.document(NoisePlayer.documentName) == stored)
    }

    @Test("a noise sound does not ring as an alarm tone: the default tone rings instead, and nothing when that cannot either")
    func noiseIsNoAlarmTone() async throws {
        let fixture = try PlayerFixture()
        await fixture.ringAlarm("white-noise", volume: 80, rampSeconds: 30, fallback: "no-such-tone")
        #expect(fixture.output.isEmpty)
        #expect(await !fixture.arbiter.toneSounding(.alarm))
        await fixture.ringAlarm("white-noise", volume: 80, rampSeconds: 30)
        // The first ring's input found no tone and was let go; this one's is the second.
        #expect(fixture.output.ids == ["alarm:2"])
        #expect(await fixture.arbiter.toneSounding(.alarm))
    }

    // MARK: The stored mix

    @Test("the mix is stored: a second player on the same store resumes the same sounds and volume")
    func resume() async throws {
        let first = try PlayerFixture()
        _ = try await first.player.play([("pink-noise", 60)], volume: 70, sleepMinutes: nil)
        _ = try await first.player.add("brown-noise", volume: 30)
        #expect(
            first.storedMix
                == NoiseMix(playing: true, layers: [.init(id: "pink-noise", volume: 60), .init(id: "brown-noise", volume: 30)], volume: 70))

        let second = try PlayerFixture(store: first.store)
        await second.player.resume()

        #expect(Set(second.output.ids) == ["noise:pink-noise", "noise:brown-noise"])
        #expect(second.output.gain(of: "noise:pink-noise") == noiseGain(60, master: 70))
        #expect(second.output.gain(of: "noise:brown-noise") == noiseGain(30, master: 70))
        let state = try #require(second.noiseStates.last)
        #expect(state.retain)
        #expect(state.json == noiseState(playing: true, [("pink-noise", 60), ("brown-noise", 30)], volume: 70))
    }

    @Test("a first start with nothing stored publishes B/noise, silent, so the retained state exists")
    func resumeNothingStored() async throws {
        let fixture = try PlayerFixture()
        await fixture.player.resume()
        let state = try #require(fixture.noiseStates.last)
        #expect(state.retain)
        #expect(state.json?["playing"] == false)
        #expect(fixture.output.ids.isEmpty)
    }

    @Test("a stopped mix is stored as stopped: a second player resumes silence but keeps the volume")
    func resumeStopped() async throws {
        let first = try PlayerFixture()
        try await first.play("white-noise", volume: 35)
        try await first.player.stop()
        #expect(first.storedMix?.playing == false)

        let second = try PlayerFixture(store: first.store)
        await second.player.resume()

        #expect(second.output.isEmpty)
        #expect(second.lastNoise == noiseState(playing: false, [], volume: 35))
        #expect(!second.events.contains("noise_started"))
    }

    @Test("a stored mix whose sleep timer ended while the node was down is not resumed")
    func resumeAfterTimer() async throws {
        let first = try PlayerFixture()
        try await first.play("white-noise", sleepMinutes: 2)
        #expect(first.storedMix?.sleepTimerEndsAt == PlayerFixture.start.timeIntervalSince1970 + 120)

        let second = try PlayerFixture(store: first.store, startingAt: PlayerFixture.start.addingTimeInterval(180))
        await second.player.resume()

        #expect(second.output.isEmpty)
        #expect(second.lastNoise?["playing"] == false)
        #expect(!second.events.contains("noise_started"))
    }

    @Test("a stored mix whose sleep timer is still running resumes with the same end")
    func resumeWithTimer() async throws {
        let first = try PlayerFixture()
        try await first.play("white-noise", sleepMinutes: 30)

        let second = try PlayerFixture(store: first.store, startingAt: PlayerFixture.start.addingTimeInterval(600))
        await second.player.resume()

        #expect(second.output.ids == ["noise:white-noise"])
        #expect(second.lastNoise == noiseState(playing: true, [("white-noise", 100)], sleepEndsAt: "2026-03-10T23:00:00+01:00"))

        // And the timer still ends it at its time.
        await second.clock.advance(by: .seconds(20 * 60 + 1))
        try await second.player.tick()
        #expect(second.lastNoise?["playing"] == false)
        #expect(second.events.contains("sleep_timer_finished"))
    }

    @Test("a garbage stored mix is ignored: nothing plays")
    func resumeGarbage() async throws {
        let store = InMemoryStore([NoisePlayer.documentName: ["playing": true, "sounds": "white-noise", "volume": 50]])
        let fixture = try PlayerFixture(store: store)
        await fixture.player.resume()
        #expect(fixture.output.isEmpty)
        #expect(!fixture.events.contains("noise_started"))
    }

    // MARK: The sleep timer

    @Test("play with sleep minutes sets sleep_timer_ends_at in the node's zone")
    func sleepTimerState() async throws {
        let fixture = try PlayerFixture()

        let data = try await fixture.play("white-noise", sleepMinutes: 2)

        #expect(data == noiseState(playing: true, [("white-noise", 100)], sleepEndsAt: "2026-03-10T22:32:00+01:00"))
        #expect(fixture.lastNoise == data)
    }

    @Test("the sleep timer fades the noise over the last minute, then stops it with sleep_timer_finished and noise_stopped")
    func sleepTimer() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise", sleepMinutes: 2)
        _ = try await fixture.player.add("pink-noise", volume: 40)

        // 61 s before the end: not yet the last minute.
        await fixture.clock.advance(by: .seconds(59))
        try await fixture.player.tick()
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(40))

        // 59 s before the end: fading to silence, still playing.
        await fixture.clock.advance(by: .seconds(2))
        try await fixture.player.tick()
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        #expect(fixture.output.gain(of: "noise:pink-noise") == 0)
        #expect(fixture.lastNoise?["playing"] == true)
        #expect(!fixture.events.contains("noise_stopped"))
        // A fade over the minute, not a cut: still in the mix after a few seconds.
        fixture.output.render(milliseconds: 2000)
        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise"])

        // Past the end.
        await fixture.clock.advance(by: .seconds(60))
        try await fixture.player.tick()
        #expect(fixture.lastNoise == noiseState(playing: false, []))
        #expect(fixture.events.contains("sleep_timer_finished"))
        #expect(fixture.events.contains("noise_stopped"))
        #expect(fixture.events.filter { $0 == "noise_stopped" }.count == 1)
        fixture.output.render(milliseconds: fade + 100)
        #expect(fixture.output.isEmpty)

        // It fires once.
        await fixture.clock.advance(by: .seconds(5))
        try await fixture.player.tick()
        #expect(fixture.events.filter { $0 == "sleep_timer_finished" }.count == 1)
    }

    @Test("noise/sleep 0 cancels the timer: sleep_timer_ends_at is null and the noise plays on past the old end")
    func cancelSleepTimer() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise", sleepMinutes: 30)

        let data = try await fixture.player.setSleepTimer(minutes: 0)

        #expect(data == noiseState(playing: true, [("white-noise", 100)]))
        #expect(fixture.lastNoise == data)
        #expect(fixture.storedMix?.sleepTimerEndsAt == nil)
        await fixture.clock.advance(by: .seconds(31 * 60))
        try await fixture.player.tick()
        #expect(fixture.lastNoise?["playing"] == true)
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(!fixture.events.contains("sleep_timer_finished"))
    }

    @Test("cancelling the timer during its last minute brings the noise back up")
    func cancelDuringFade() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise", sleepMinutes: 1)
        await fixture.clock.advance(by: .seconds(10))
        try await fixture.player.tick()
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)

        _ = try await fixture.player.setSleepTimer(minutes: 0)

        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
    }

    @Test("noise/sleep while noise plays sets a new end from now")
    func setSleepTimer() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        await fixture.clock.advance(by: .seconds(60))

        let data = try await fixture.player.setSleepTimer(minutes: 45)

        #expect(data["sleep_timer_ends_at"] == "2026-03-10T23:16:00+01:00")
        #expect(fixture.lastNoise == data)
    }

    @Test("a sleep timer while nothing plays is a conflict and changes nothing")
    func sleepTimerConflict() async throws {
        let fixture = try PlayerFixture()

        let error = await commandError { _ = try await fixture.player.setSleepTimer(minutes: 10) }

        #expect(error?.code == .conflict)
        #expect(fixture.transport.published.isEmpty)
        #expect(fixture.store.document(NoisePlayer.documentName) == nil)
    }

    @Test("stop clears the sleep timer")
    func stopClearsTimer() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise", sleepMinutes: 10)
        let data = try await fixture.player.stop()
        #expect(data["sleep_timer_ends_at"] == .null)
        #expect(fixture.storedMix?.sleepTimerEndsAt == nil)
    }

    // MARK: Preview

    @Test("preview adds input preview and ducks the noise to duckGain × its gain; after 3 s it fades out and the noise comes back")
    func preview() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        _ = try await fixture.player.add("pink-noise", volume: 40)
        let published = fixture.noiseStates.count

        let data = try await fixture.player.preview("digital-alarm")

        #expect(data["sound"] == "digital-alarm")
        #expect(data["seconds"] == 3)
        #expect(fixture.output.ids.contains("preview"))
        #expect((fixture.output.gain(of: "preview") ?? 0) > 0)
        #expect(fixture.output.gain(of: "noise:white-noise") == AudioArbiter.duckGain * noiseGain(100))
        #expect(fixture.output.gain(of: "noise:pink-noise") == AudioArbiter.duckGain * noiseGain(40))
        // A preview is not a change of the noise.
        #expect(fixture.noiseStates.count == published)

        // Not over before 3 s.
        await fixture.clock.advance(by: .milliseconds(2900))
        try await fixture.player.tick()
        #expect((fixture.output.gain(of: "preview") ?? 0) > 0)
        #expect(fixture.output.gain(of: "noise:white-noise") == AudioArbiter.duckGain * noiseGain(100))

        await fixture.clock.advance(by: .milliseconds(100))
        try await fixture.player.tick()
        #expect(fixture.output.gain(of: "preview") == 0)
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(40))

        fixture.output.render(milliseconds: 500)
        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise"])
    }

    @Test("preview with nothing playing plays only the preview, publishes no noise state, and leaves silence")
    func previewInSilence() async throws {
        let fixture = try PlayerFixture()

        _ = try await fixture.player.preview("White noise")

        #expect(fixture.output.ids == ["preview"])
        #expect(fixture.noiseStates.isEmpty)
        #expect(fixture.events.isEmpty)
        #expect(fixture.output.render(milliseconds: 300) > 0)

        await fixture.clock.advance(by: .seconds(3))
        try await fixture.player.tick()
        fixture.output.render(milliseconds: 500)
        #expect(fixture.output.isEmpty)
        #expect(fixture.noiseStates.isEmpty)
    }

    @Test("a gong preview plays the first 3 s of the 28 s singing bowl, then fades out and leaves silence")
    func previewGong() async throws {
        let fixture = try PlayerFixture()

        let data = try await fixture.player.preview("singing-bowl")

        #expect(data == ["sound": "singing-bowl", "seconds": 3])
        #expect(fixture.output.ids == ["preview"])
        #expect(fixture.output.render(milliseconds: 500) > 3_000)
        await fixture.clock.advance(by: .milliseconds(2900))
        try await fixture.player.tick()
        #expect((fixture.output.gain(of: "preview") ?? 0) > 0)
        // Still ringing near the end of the 3 s (the bowl decays over half a minute).
        #expect(fixture.output.render(milliseconds: 2400) > 1_000)

        await fixture.clock.advance(by: .milliseconds(100))
        try await fixture.player.tick()
        #expect(fixture.output.gain(of: "preview") == 0)
        fixture.output.render(milliseconds: 500)
        #expect(fixture.output.isEmpty)
        #expect(fixture.noiseStates.isEmpty)
        #expect(fixture.events.isEmpty)
    }

    @Test("the player's next tick is a preview's end, the sleep timer's last minute, then its end; nil while nothing is timed")
    func nextTick() async throws {
        let fixture = try PlayerFixture()
        let clock = fixture.wiring.time.clock
        #expect(await fixture.player.nextTick == nil)
        _ = try await fixture.player.preview("beep-alarm")
        #expect(await fixture.player.nextTick == clock.now().addingTimeInterval(NoisePlayer.previewSeconds))
        await fixture.clock.advance(by: .seconds(3))
        try await fixture.player.tick()
        #expect(await fixture.player.nextTick == nil)
        try await fixture.play("white-noise", sleepMinutes: 5)
        #expect(await fixture.player.nextTick == clock.now().addingTimeInterval(4 * 60))
        _ = try await fixture.player.setSleepTimer(minutes: 0)
        #expect(await fixture.player.nextTick == nil)
        _ = try await fixture.player.setSleepTimer(minutes: 2)
        await fixture.clock.advance(by: .seconds(60))
        try await fixture.player.tick()
        // The fade has begun: the next tick is the end.
        #expect(await fixture.player.nextTick == clock.now().addingTimeInterval(60))
        _ = try await fixture.player.stop()
        #expect(await fixture.player.nextTick == nil)
    }

    @Test("a change of the mix or the preview wakes the sleeping service; one made before it sleeps is kept", .timeLimit(.minutes(1)))
    func wakeupsAreKept() async throws {
        let fixture = try PlayerFixture()
        let clock = fixture.wiring.time.clock
        try await fixture.play("white-noise", sleepMinutes: 5)
        // Made before the sleep: the sleep (with no deadline) returns at once.
        await fixture.player.wakeUp.sleep(until: nil, on: clock)
        let waiting = Task { await fixture.player.wakeUp.sleep(until: nil, on: clock) }
        try await Task.sleep(for: .milliseconds(20))
        _ = try await fixture.player.preview("beep-alarm")
        await waiting.value
    }

    @Test("NoiseService ends the sleep timer on time, with no timer of its own while nothing is timed")
    func serviceDrivesTimer() async throws {
        let fixture = try PlayerFixture()
        let service = Task { await NoiseService(player: fixture.player, clock: fixture.wiring.time.clock).run() }
        defer { service.cancel() }
        try await Task.sleep(for: .milliseconds(50))
        try await fixture.play("white-noise", sleepMinutes: 1)
        for _ in 0..<70 {
            await fixture.clock.advance(by: .seconds(1))
            try await Task.sleep(for: .milliseconds(5))
            if await !fixture.player.mix.playing { break }
        }
        #expect(await !fixture.player.mix.playing)
        #expect(fixture.events.contains("sleep_timer_finished"))
    }

    // MARK: Alarm tones

    @Test("an alarm tone fades the noise to 0 and adds input alarm; its stop brings the noise back")
    func alarmTone() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        _ = try await fixture.player.add("pink-noise", volume: 40)

        await fixture.ringAlarm("digital-alarm", volume: 80, rampSeconds: 30)

        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        #expect(fixture.output.gain(of: "noise:pink-noise") == 0)
        #expect(fixture.output.gain(of: "alarm:1") == Volume.gain(80))
        // The noise is faded, not stopped: B/noise still says it plays, and it is still mixed.
        #expect(fixture.lastNoise?["playing"] == true)
        fixture.output.render(milliseconds: fade + 100)
        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise", "alarm:1"])

        await fixture.arbiter.stopTone(.alarm)

        #expect(fixture.output.gain(of: "alarm:1") == 0)
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(40))
        fixture.output.render(milliseconds: fade + 100)
        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise"])
    }

    @Test("an alarm tone rises from silence over its ramp")
    func alarmToneRamp() async throws {
        let fixture = try PlayerFixture()
        await fixture.ringAlarm("Siren", volume: 100, rampSeconds: 2)
        #expect(fixture.output.ids == ["alarm:1"])
        let early = fixture.output.render(milliseconds: 100)
        fixture.output.render(milliseconds: 2000)
        let late = fixture.output.render(milliseconds: 1000)
        #expect(late > 4 * early)
    }

    @Test("the end of a preview does not bring the noise back while an alarm rings")
    func previewDuringAlarm() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        _ = try await fixture.player.preview("beep-alarm")
        await fixture.ringAlarm("digital-alarm", volume: 80, rampSeconds: 30)

        await fixture.clock.advance(by: .seconds(3))
        try await fixture.player.tick()

        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        #expect(fixture.output.gain(of: "alarm:1") == Volume.gain(80))
    }

    @Test("stopAlarmTone without an alarm tone changes nothing")
    func stopAlarmToneIdle() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        let published = fixture.transport.published.count
        await fixture.arbiter.stopTone(.alarm)
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(fixture.transport.published.count == published)
    }
}

// MARK: Through the router

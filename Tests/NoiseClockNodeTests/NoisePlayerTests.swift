import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

// MARK: Fakes and fixture

/// An `AudioOutput` without a device: the real `Mixer` behind a lock, rendered only when a test asks.
final class FakeAudioOutput: AudioOutput {
    private let mixer = Mutex(Mixer())

    var status: AudioStatus { AudioStatus(device: "fake") }

    func update<T>(_ change: (inout Mixer) -> T) -> T {
        mixer.withLock { change(&$0) }
    }

    var ids: [String] { mixer.withLock { $0.ids } }
    var isEmpty: Bool { mixer.withLock { $0.isEmpty } }

    /// The gain an input is at or moving to; nil when it is not in the mix.
    func gain(of id: String) -> Float? { mixer.withLock { $0.gain(of: id) } }

    /// Renders `milliseconds` of the mix in 50 ms periods, as the audio thread would, and returns
    /// the loudest sample rendered.
    @discardableResult
    func render(milliseconds: Int) -> Int {
        let period = AudioFormat.frames(milliseconds: 50)
        var remaining = AudioFormat.frames(milliseconds: milliseconds)
        var buffer = [Int16](repeating: 0, count: period * AudioFormat.channels)
        var peak = 0
        while remaining > 0 {
            let frames = min(period, remaining)
            buffer.withUnsafeMutableBufferPointer { all in
                let part = UnsafeMutableBufferPointer(rebasing: all[0..<(frames * AudioFormat.channels)])
                mixer.withLock { $0.render(into: part) }
                peak = part.reduce(peak) { max($0, abs(Int($1))) }
            }
            remaining -= frames
        }
        return peak
    }
}

/// A noise player on the real catalog, a fake output, a fake transport, an in-memory store and a
/// test clock. The node's zone is Europe/Berlin; the clock starts at 2026-03-10 21:30 UTC (22:30 there).
struct PlayerFixture {
    static let start = instant(2026, 3, 10, 21, 30)
    static let fadeMilliseconds = 500
    static let topics = Topics(base: "noiseclock", nodeID: "kitchen")

    let transport = FakeTransport()
    let output = FakeAudioOutput()
    let store: InMemoryStore
    let clock: TestClock<Duration>
    let library: SoundLibrary
    let wiring: ServiceWiring
    let player: NoisePlayer

    init(store: InMemoryStore = InMemoryStore(), startingAt start: Date = Self.start) throws {
        self.store = store
        let clock = TestClock<Duration>()
        self.clock = clock
        library = try realLibrary()
        let logger = LogRecorder().logger()
        wiring = ServiceWiring(
            transport: transport, settings: ClockSettings(timezone: "Europe/Berlin"),
            clock: .driven(by: clock, startingAt: start, timeZone: berlin), store: store, topics: Self.topics)
        player = NoisePlayer(
            library: library, output: output, store: store, hub: wiring.hub, time: wiring.time,
            fadeMilliseconds: Self.fadeMilliseconds, logger: logger)
    }

    /// Every retained `B/noise` published so far, oldest first.
    var noiseStates: [MQTTMessage] { transport.published(on: Self.topics.noise) }

    var lastNoise: JSONValue? { noiseStates.last?.json }

    /// The names of the events published so far, oldest first.
    var events: [String] {
        transport.published(on: Self.topics.event).compactMap { $0.json?["event"]?.stringValue }
    }

    func event(_ name: String) -> JSONValue? {
        transport.published(on: Self.topics.event).compactMap(\.json).last { $0["event"]?.stringValue == name }
    }

    var storedMix: NoiseMix? { store.document(NoisePlayer.documentName).flatMap(NoiseMix.init(stored:)) }

    @discardableResult
    func play(_ sound: String, volume: Int? = nil, sleepMinutes: Int? = nil) async throws -> JSONValue {
        try await player.play([(sound, nil)], volume: volume, sleepMinutes: sleepMinutes)
    }
}

/// The gain of a noise layer at layer volume `layer` and master volume `master` (SPEC: volumes 0-100).
func noiseGain(_ layer: Int, master: Int = 50) -> Float { Volume.gain(layer) * Volume.gain(master) }

/// `B/noise` as SPEC §2 shows it.
func noiseState(playing: Bool, _ sounds: [(String, Int)], volume: Int = 50, sleepEndsAt: String? = nil) -> JSONValue {
    [
        "playing": .bool(playing),
        "sounds": .array(sounds.map { ["id": .string($0.0), "volume": .number(Double($0.1))] }),
        "volume": .number(Double(volume)),
        "sleep_timer_ends_at": sleepEndsAt.map { .string($0) } ?? .null,
    ]
}

/// Runs `body` and returns the CommandError it throws; records an issue when it throws nothing.
func commandError(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> CommandError? {
    do {
        try await body()
        Issue.record("expected a CommandError, but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as CommandError {
        return error
    } catch {
        Issue.record("expected a CommandError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

// MARK: The player

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

    @Test("startAlarmTone with a noise sound is not_found: only alarm tones ring")
    func noiseIsNoAlarmTone() async throws {
        let fixture = try PlayerFixture()
        let error = await commandError { try await fixture.player.startAlarmTone("white-noise", volume: 80, rampSeconds: 30) }
        #expect(error?.code == .notFound)
        #expect(fixture.output.isEmpty)
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
        #expect(fixture.output.gain(of: "noise:white-noise") == NoisePlayer.duckGain * noiseGain(100))
        #expect(fixture.output.gain(of: "noise:pink-noise") == NoisePlayer.duckGain * noiseGain(40))
        // A preview is not a change of the noise.
        #expect(fixture.noiseStates.count == published)

        // Not over before 3 s.
        await fixture.clock.advance(by: .milliseconds(2900))
        try await fixture.player.tick()
        #expect((fixture.output.gain(of: "preview") ?? 0) > 0)
        #expect(fixture.output.gain(of: "noise:white-noise") == NoisePlayer.duckGain * noiseGain(100))

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

    @Test("startAlarmTone fades the noise to 0 and adds input alarm; stopAlarmTone brings the noise back")
    func alarmTone() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        _ = try await fixture.player.add("pink-noise", volume: 40)

        try await fixture.player.startAlarmTone("digital-alarm", volume: 80, rampSeconds: 30)

        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        #expect(fixture.output.gain(of: "noise:pink-noise") == 0)
        #expect(fixture.output.gain(of: "alarm:1") == Volume.gain(80))
        // The noise is faded, not stopped: B/noise still says it plays, and it is still mixed.
        #expect(fixture.lastNoise?["playing"] == true)
        fixture.output.render(milliseconds: fade + 100)
        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise", "alarm:1"])

        await fixture.player.stopAlarmTone()

        #expect(fixture.output.gain(of: "alarm:1") == 0)
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(fixture.output.gain(of: "noise:pink-noise") == noiseGain(40))
        fixture.output.render(milliseconds: fade + 100)
        #expect(Set(fixture.output.ids) == ["noise:white-noise", "noise:pink-noise"])
    }

    @Test("an alarm tone rises from silence over its ramp")
    func alarmToneRamp() async throws {
        let fixture = try PlayerFixture()
        try await fixture.player.startAlarmTone("Siren", volume: 100, rampSeconds: 2)
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
        try await fixture.player.startAlarmTone("digital-alarm", volume: 80, rampSeconds: 30)

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
        await fixture.player.stopAlarmTone()
        #expect(fixture.output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(fixture.transport.published.count == published)
    }
}

// MARK: Through the router

@Suite("Noise commands through the router")
struct NoisePlayerCommandTests {
    let transport = FakeTransport()
    let output = FakeAudioOutput()
    let store = InMemoryStore()
    let node: Node

    init() throws {
        let clock = TestClock<Duration>()
        node = Node(
            configuration: try makeConfiguration(), transport: transport, store: store,
            clock: .driven(by: clock, startingAt: PlayerFixture.start, timeZone: berlin), audio: output,
            sounds: try realLibrary(), logger: LogRecorder().logger())
    }

    func respond(_ verb: String, _ payload: String = "") async -> CommandResponse {
        await node.router.respond(verb: verb, payload: Array(payload.utf8))
    }

    var noiseStates: [JSONValue] { transport.published(on: node.configuration.topics.noise).compactMap(\.json) }

    @Test(
        "a bad noise command answers the right code and field, and changes nothing",
        arguments: [
            ("noise/play", "{}", CommandError.Code.invalidField, "sound"),
            ("noise/play", "", .invalidField, "sound"),
            ("noise/play", #""bogus""#, .notFound, "sound"),
            ("noise/play", "bogus", .notFound, "sound"),
            ("noise/play", #"{"sound":5}"#, .invalidField, "sound"),
            ("noise/play", #"{"sound":"white-noise","volume":150}"#, .invalidField, "volume"),
            ("noise/play", #"{"sound":"white-noise","sleep_min":-1}"#, .invalidField, "sleep_min"),
            ("noise/play", #"{"sound":"white-noise","loud":true}"#, .invalidField, "loud"),
            ("noise/play", #"{"sound":"../sounds/white-noise.mp3"}"#, .notFound, "sound"),
            ("noise/volume", "150", .invalidField, "volume"),
            ("noise/volume", "-1", .invalidField, "volume"),
            ("noise/volume", #""loud""#, .invalidField, "volume"),
            ("noise/volume", "loud", .invalidField, "volume"),
            ("noise/volume", "55.5", .invalidField, "volume"),
            ("noise/volume", "{}", .invalidField, "volume"),
            ("noise/sleep", "-1", .invalidField, "minutes"),
            ("noise/sleep", "721", .invalidField, "minutes"),
            ("noise/sleep", #"{"minutes":"soon"}"#, .invalidField, "minutes"),
            ("noise/power", "MAYBE", .invalidField, "state"),
            ("noise/power", "{}", .invalidField, "state"),
            ("noise/add", #"{"sound":"pink-noise","volume":101}"#, .invalidField, "volume"),
            ("noise/add", "{}", .invalidField, "sound"),
            ("noise/add", "nope", .notFound, "sound"),
            ("noise/remove", "pink-noise", .conflict, "sound"),
            ("noise/remove", "{}", .invalidField, "sound"),
            ("noise/preview", "nope", .notFound, "sound"),
            ("noise/preview", "{}", .invalidField, "sound"),
            ("noise/stop", #"{"x":1}"#, .invalidField, "x"),
            ("noise/toggle", #"{"x":1}"#, .invalidField, "x"),
        ])
    func badInput(verb: String, payload: String, code: CommandError.Code, field: String) async {
        let response = await respond(verb, payload)

        #expect(response.error?.code == code)
        #expect(response.error?.field == field)
        #expect(output.isEmpty)
        #expect(noiseStates.isEmpty)
        #expect(store.document(NoisePlayer.documentName) == nil)
    }

    @Test("a rejected command leaves the playing noise as it was")
    func rejectedWhilePlaying() async throws {
        #expect(await respond("noise/play", "white-noise").isOK)
        let published = transport.published.count
        let stored = store.document(NoisePlayer.documentName)

        for (verb, payload) in [
            ("noise/play", "bogus"), ("noise/add", #"{"sound":"pink-noise","volume":101}"#), ("noise/volume", "150"),
            ("noise/sleep", "-1"), ("noise/remove", "pink-noise"), ("noise/power", "MAYBE"), ("noise/stop", #"{"x":1}"#),
        ] {
            let response = await respond(verb, payload)
            #expect(!response.isOK, "\(verb) \(payload)")
        }

        #expect(output.ids == ["noise:white-noise"])
        #expect(output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(transport.published.count == published)
        #expect(store.document(NoisePlayer.documentName) == stored)
    }

    @Test("noise/play takes a bare catalog name", arguments: ["Heavy rain", #""Heavy rain""#, #"{"sound":"heavy rain"}"#])
    func playBareName(payload: String) async throws {
        let response = await respond("noise/play", payload)

        let data = try #require(response.data)
        #expect(data == noiseState(playing: true, [("heavy-rain-white-noise", 100)]))
        #expect(output.ids == ["noise:heavy-rain-white-noise"])
        #expect(noiseStates.last == data)
    }

    @Test("noise/play with volume and sleep_min; noise/volume, noise/sleep and noise/power take bare values")
    func bareValues() async throws {
        let play = await respond("noise/play", #"{"sound":"pink-noise","volume":40,"sleep_min":30}"#)
        #expect(play.data?["volume"] == 40)
        #expect(play.data?["sleep_timer_ends_at"] == "2026-03-10T23:00:00+01:00")

        let volume = await respond("noise/volume", "55")
        #expect(volume.data?["volume"] == 55)
        #expect(output.gain(of: "noise:pink-noise") == noiseGain(100, master: 55))

        let sleep = await respond("noise/sleep", "0")
        #expect(sleep.data?["sleep_timer_ends_at"] == .null)

        let off = await respond("noise/power", "OFF")
        #expect(off.data?["playing"] == false)
        let on = await respond("noise/power", "ON")
        #expect(on.data == noiseState(playing: true, [("pink-noise", 100)], volume: 55))
    }

    @Test("noise/sleep while nothing plays is a conflict")
    func sleepConflict() async {
        let response = await respond("noise/sleep", "30")
        #expect(response.error?.code == .conflict)
        #expect(noiseStates.isEmpty)
    }

    @Test("noise/stop and noise/toggle take an empty payload, PRESS or {}", arguments: ["", "PRESS", "{}"])
    func pressVerbs(payload: String) async throws {
        let toggle = await respond("noise/toggle", payload)
        #expect(toggle.data?["playing"] == true)
        let stop = await respond("noise/stop", payload)
        #expect(stop.data?["playing"] == false)
    }

    @Test("noise/preview answers the sound and its 3 seconds")
    func preview() async throws {
        let response = await respond("noise/preview", "Digital alarm")
        #expect(response.data == ["sound": "digital-alarm", "seconds": 3])
        #expect(output.ids == ["preview"])
    }
}

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

    @Test("while an alarm tone plays, volume, add and preview keep the noise silent; it returns when the alarm ends")
    func noiseStaysDownDuringAlarm() async throws {
        let fixture = try PlayerFixture()
        try await fixture.play("white-noise")
        try await fixture.player.startAlarmTone("digital-alarm", volume: 80, rampSeconds: 30)
        _ = try await fixture.player.setVolume(90)
        _ = try await fixture.player.add("pink-noise", volume: 50)
        _ = try await fixture.player.preview("brown-noise")
        #expect(fixture.output.gain(of: "noise:white-noise") == 0)
        #expect(fixture.output.gain(of: "noise:pink-noise") == 0)
        await fixture.player.stopAlarmTone()
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

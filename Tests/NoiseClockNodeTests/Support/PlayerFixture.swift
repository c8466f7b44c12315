import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import Synchronization
import Testing

@testable import NoiseClockNode

// MARK: Fakes and fixture

/// An `AudioOutput` without a device: the real `Mixer` behind a lock, rendered only when a test asks.
final class FakeAudioOutput: AudioOutput {
    private let mixer = Mutex(Mixer())
    private let preparations = Mutex(0)

    var status: AudioStatus { AudioStatus(device: "fake") }

    func prepare() { preparations.withLock { $0 += 1 } }
    /// How many times a source said it will sound soon.
    var prepared: Int { preparations.withLock { $0 } }

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
    let arbiter: AudioArbiter
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
        arbiter = AudioArbiter(output: output, fadeFrames: AudioFormat.frames(milliseconds: Self.fadeMilliseconds))
        player = NoisePlayer(
            library: library, arbiter: arbiter, store: store, hub: wiring.hub, time: wiring.time,
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
        let state = try await player.play([(sound, nil)], volume: volume, sleepMinutes: sleepMinutes)
        await arbiter.opened()
        return state
    }

    /// Rings an alarm tone as the alarm scheduler does (through the arbiter; the default tone
    /// when `sound` cannot ring).
    /// Rings as the scheduler does, and returns once the tone's file is in the mix.
    @NodeActor
    func ringAlarm(_ sound: String, volume: Int, rampSeconds: Int, fallback: String = "digital-alarm") async {
        arbiter.ring(
            .alarm, sound: sound, kind: .alarm, fallback: fallback, library: library, volume: volume, rampSeconds: rampSeconds,
            logger: LogRecorder().logger())
        await arbiter.opened()
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

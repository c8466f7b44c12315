import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem
import Synchronization

/// What the noise player needs of the audio engine; `AudioEngine` in the node, a mixer without a
/// device in fast tests.
public protocol AudioOutput: Sendable {
    func update<T>(_ change: (inout Mixer) -> T) -> T
    var status: AudioStatus { get }
    /// Something will sound soon: get the output ready, so that it starts at once (`AudioEngine`:
    /// its first device open). Returns at once.
    func prepare()
}

extension AudioOutput {
    public func prepare() {}
}

extension AudioEngine: AudioOutput {}

/// The noise player: the `noise/*` verbs, `B/noise`, fades, the sleep timer, previews, and the
/// alarm tone interface. The current mix is stored (`noise.json`), so noise that was playing when
/// the node stopped plays again when it starts. Its inputs go through the `AudioArbiter`, which
/// silences them while anything of higher priority sounds (SPEC §10).
@NodeActor
public final class NoisePlayer {
    public nonisolated static let documentName = "noise.json"
    public nonisolated static let previewSeconds = 3.0
    let library: SoundLibrary
    let arbiter: AudioArbiter
    let hub: StateHub
    let time: NodeTime
    let fadeFrames: Int
    let logger: Logger

    /// `noise.json`: the mix and the last one played, as stored; verbs change it through the
    /// ledger (stored first, then heard), the sleep timer's end at once.
    private var ledger: Ledger<Document, Event?>
    /// The mix as stored, and as the mixer plays it.
    var mix: NoiseMix { ledger.current.mix }
    /// What `toggle` and `power ON` play again.
    private var lastLayers: [NoiseMix.Layer] { ledger.current.last }
    private var previewEndsAt: Date? { didSet { wakeUp.wake() } }
    var sleepFadeStarted = false
    /// Wakes `NoiseService` when the mix or the preview changes, so no verb can forget it: it then
    /// sleeps until the new `nextTick`, or without a timer while nothing is timed.
    public nonisolated let wakeUp = WakeUp()
    /// The radio half of the one player (`NoisePlayer+Radio`).
    nonisolated let radioSlot = Mutex<WeakRadio>(WeakRadio())

    /// What `noise.json` holds.
    struct Document: Equatable {
        var mix = NoiseMix()
        var last: [NoiseMix.Layer] = []

        var stored: JSONValue {
            // The last mix too, so toggle and power ON after a restart play what was last chosen.
            var document = mix.stored.objectValue ?? [:]
            document["last"] = .array(last.map { ["id": .string($0.id), "volume": .number(Double($0.volume))] })
            return .object(document)
        }
    }

    /// An event a change brings about once it is current.
    typealias Event = (name: String, details: [String: JSONValue])

    public nonisolated convenience init(
        library: SoundLibrary, arbiter: AudioArbiter, store: any Store, hub: StateHub, time: NodeTime, fadeMilliseconds: Int, logger: Logger
    ) {
        self.init(
            library: library, arbiter: arbiter, writer: StoreWriter(store: store), hub: hub, time: time,
            fadeMilliseconds: fadeMilliseconds, logger: logger)
    }

    public nonisolated init(
        library: SoundLibrary, arbiter: AudioArbiter, writer: StoreWriter, hub: StateHub, time: NodeTime, fadeMilliseconds: Int, logger: Logger
    ) {
        self.library = library
        self.arbiter = arbiter
        self.hub = hub
        self.time = time
        self.fadeFrames = AudioFormat.frames(milliseconds: fadeMilliseconds)
        self.logger = logger
        var stored = Document()
        if case .value(let value) = writer.store.load(Self.documentName), let mix = NoiseMix(stored: value) {
            stored.mix = mix
            stored.last = NoiseMix(stored: ["playing": false, "volume": 0, "sounds": value.objectValue?["last"] ?? []])?.layers ?? []
            if stored.last.isEmpty { stored.last = mix.layers }
        }
        // Nothing sounds until `resume` plays what was stored.
        self.ledger = Ledger(Self.documentName, stored, writer: writer) { $0.stored }
    }

    private var resumed = false
    /// The changes of the mix, staged in the order their commands came although each may first
    /// wait for its sounds' files to be opened on a thread.
    private let turns = Turns()
    /// Sources opened for layers about to play, by sound id: what `apply` puts in the mixer.
    var opened: [String: SampleSource] = [:]

    // MARK: Verbs

    public func play(_ references: [(sound: String, volume: Int?)], volume: Int?, sleepMinutes: Int?) async throws(CommandError) -> JSONValue {
        if let station = references.lazy.compactMap({ RadioPlayer.station(inSound: $0.sound) }).first {
            // `radio:<id>`: a station, which plays alone.
            guard references.count == 1 else { throw .invalidField("sound", "a station (radio:\(station)) plays alone, not with other sounds") }
            guard let radio else { throw CommandError(.unavailable, "the radio is not available", field: "sound") }
            return try await radio.play(station: station, url: nil, volume: volume, sleepMinutes: sleepMinutes)
        }
        let layers = try references.map { reference throws(CommandError) in
            NoiseMix.Layer(id: try library.sound(reference.sound, field: "sound").id, volume: reference.volume ?? 100)
        }
        let now = time.now()
        // Each sound is opened before anything is stored: one that cannot play is refused.
        return try await change(opening: layers.map(\.id)) { document throws(CommandError) in
            Self.start(layers, volume: volume, sleepMinutes: sleepMinutes, now: now, in: &document)
        }
    }

    public func add(_ reference: String, volume: Int?) async throws(CommandError) -> JSONValue {
        let sound = try library.sound(reference, field: "sound")
        return try await change(opening: [sound.id]) { document throws(CommandError) in
            let layer = NoiseMix.Layer(id: sound.id, volume: volume ?? document.mix.layers.first { $0.id == sound.id }?.volume ?? 100)
            let wasPlaying = document.mix.playing
            if wasPlaying {
                document.mix.layers.removeAll { $0.id == layer.id }
                document.mix.layers.append(layer)
            } else {
                // Adding to silence starts the mix with this one sound.
                document.mix.layers = [layer]
            }
            document.mix.playing = true
            document.last = document.mix.layers
            return wasPlaying ? nil : ("noise_started", ["sounds": .array(document.mix.layers.map { .string($0.id) })])
        }
    }

    public func remove(_ reference: String) async throws(CommandError) -> JSONValue {
        let sound = try library.sound(reference, field: "sound")
        return try await change { document throws(CommandError) in
            guard document.mix.playing, document.mix.layers.contains(where: { $0.id == sound.id }) else {
                throw CommandError(.conflict, "\(sound.id) is not playing", field: "sound")
            }
            document.mix.layers.removeAll { $0.id == sound.id }
            guard !document.mix.layers.isEmpty else { return Self.stop(reason: "command", in: &document) }
            document.last = document.mix.layers
            return nil
        }
    }

    /// Stops the noise, and the station that plays unless `radio` is false (a station starting).
    @discardableResult
    public func stop(reason: String = "command", radio stopsRadio: Bool = true) async throws(CommandError) -> JSONValue {
        if stopsRadio, let radio, radio.isPlaying { try await radio.stop(reason: reason) }
        return try await change { document throws(CommandError) in Self.stop(reason: reason, in: &document) }
    }

    /// Stops the mix when it plays, else plays the last one again (decided in its turn, on the
    /// mix as the changes before it leave it).
    public func toggle() async throws(CommandError) -> JSONValue {
        try await powerChange(on: nil)
    }

    public func power(on: Bool) async throws(CommandError) -> JSONValue {
        try await powerChange(on: on)
    }

    /// `power` (`on`), or `toggle` (nil): on plays the last mix again (the default noise when
    /// there is none), off stops.
    private func powerChange(on: Bool?) async throws(CommandError) -> JSONValue {
        if let radio, radio.isPlaying {
            // The player plays a station: toggle and OFF stop it, ON leaves it playing.
            if on != true { try await radio.stop() }
            return current
        }
        let fallback = library.catalog.defaultSound(of: .noise).map { [NoiseMix.Layer(id: $0.id, volume: 100)] } ?? []
        // What it will most likely play, opened ahead; a layer it turns out to play without a
        // source opened here is opened when it is applied.
        let staged = ledger.staged
        let likely = on == false || (on == nil && staged.mix.playing) ? [] : (staged.last.isEmpty ? fallback : staged.last)
        let now = time.now()
        return try await change(opening: likely.map(\.id)) { document throws(CommandError) in
            guard on ?? !document.mix.playing else { return Self.stop(reason: "command", in: &document) }
            guard !document.mix.playing else { return nil }
            let layers = document.last.isEmpty ? fallback : document.last
            guard !layers.isEmpty else { throw CommandError(.unavailable, "the sound catalog has no noise") }
            return Self.start(layers, volume: nil, sleepMinutes: nil, now: now, in: &document)
        }
    }

    /// Smoothed: a fifth of a second, so a slider dragged in Home Assistant never clicks. In the
    /// sleep timer's last minute the fade to silence goes on; the new volume applies next time.
    public func setVolume(_ volume: Int) async throws(CommandError) -> JSONValue {
        try await change { document throws(CommandError) in
            document.mix.volume = volume
            return nil
        }
    }

    public func setSleepTimer(minutes: Int) async throws(CommandError) -> JSONValue {
        if !mix.playing, let radio, radio.isPlaying { return try await radio.setSleepTimer(minutes: minutes) }
        let now = time.now()
        return try await change { document throws(CommandError) in
            if minutes > 0 && !document.mix.playing {
                throw CommandError(.conflict, "no noise is playing; start it with noise/play and sleep_min", field: "minutes")
            }
            Self.setTimer(minutes: minutes, now: now, in: &document.mix)
            return nil
        }
    }

    /// Plays a sound for 3 seconds over the noise (ducked meanwhile). Refused while an alarm, a
    /// ringing timer or a meditation has the output: the preview would not be heard (SPEC §10).
    public func preview(_ reference: String) async throws(CommandError) -> JSONValue {
        let sound = try library.sound(reference, field: "sound")
        try refusePreviewUnheard()
        let source = try await library.open(sound.id).source
        // Looked at again: an alarm may have begun while the file was being opened.
        try refusePreviewUnheard()
        let previewGain = Volume.gain(max(mix.volume, 50))
        arbiter.claim(.preview)
        arbiter.update(.preview) { mixer in
            mixer.add(Self.previewInput, source: source, gain: previewGain, fadeInFrames: AudioFormat.frames(milliseconds: 50))
        }
        previewEndsAt = time.now().addingTimeInterval(Self.previewSeconds)
        return ["sound": .string(sound.id), "seconds": .number(Self.previewSeconds)]
    }

    private func refusePreviewUnheard() throws(CommandError) {
        if let top = arbiter.top, top > .preview {
            throw CommandError(.conflict, "a preview is not heard while \(Self.busy(top))", field: "sound")
        }
    }

    // MARK: Time: the sleep timer and the end of a preview

    /// Called by `NoiseService` at `nextTick` (the start of the sleep timer's last minute, its end,
    /// the end of a preview), when the wall clock is set, and after a change.
    public func tick() throws(CommandError) {
        let now = time.now()
        if let ends = previewEndsAt, now >= ends {
            previewEndsAt = nil
            arbiter.update(.preview) { $0.fadeOut(Self.previewInput, overFrames: AudioFormat.frames(milliseconds: 200)) }
            arbiter.claim(.preview, false)
        }
        guard let endsAt = mix.sleepTimerEndsAt.map(Date.init(timeIntervalSince1970:)), mix.playing else { return }
        let remaining = endsAt.timeIntervalSince(now)
        if remaining <= 0 {
            // The clock's change: heard at once, stored without waiting.
            var next = ledger.current
            let event = Self.stop(reason: "sleep_timer", in: &next)
            let before = mix
            ledger.adopt(next)
            apply(from: before)
            if let event { hub.emit(time.event(event.name, event.details)) }
            hub.emit(time.event("sleep_timer_finished"))
        } else if remaining <= 60, !sleepFadeStarted {
            // The last minute fades out; the stop at the end is then silent.
            sleepFadeStarted = true
            let layers = mix.layers
            let frames = AudioFormat.frames(milliseconds: Int(remaining * 1000))
            arbiter.update(.noise) { mixer in
                glide(layers, overFrames: frames, in: &mixer) { _ in 0 }
            }
        }
    }

    /// When `tick` has something to do next, on the wall clock: the end of a preview, the start
    /// of the sleep timer's fade (its last minute) or its end; nil when nothing is timed.
    public var nextTick: Date? {
        var instants: [Date] = previewEndsAt.map { [$0] } ?? []
        if let endsAt = mix.sleepTimerEndsAt.map(Date.init(timeIntervalSince1970:)), mix.playing {
            instants.append(sleepFadeStarted ? endsAt : endsAt.addingTimeInterval(-60))
        }
        return instants.min()
    }

    // MARK: Start-up

    /// Plays again what was playing when the node stopped (unless its sleep timer has run out,
    /// or none of its sounds can be played any more).
    public func resume() async {
        guard !resumed else { return }
        resumed = true
        // In the first turn: a command that comes while the files are opened follows it.
        let turn = turns.take()
        var openable: [NoiseMix.Layer] = []
        if ledger.current.mix.playing {
            for layer in ledger.current.mix.layers {
                guard let source = try? await library.open(layer.id).source else { continue }
                opened[layer.id] = source
                openable.append(layer)
            }
        }
        await turns.wait(for: turn)
        turns.done(turn)
        let stored = ledger.current
        var next = stored
        let expired = stored.mix.sleepTimerEndsAt.map { $0 <= time.now().timeIntervalSince1970 } ?? false
        next.mix.layers = stored.mix.layers.filter { layer in openable.contains { $0.id == layer.id } }
        if stored.mix.playing, !next.mix.layers.isEmpty, !expired {
            logger.info("noise resumed", metadata: ["sounds": "\(next.mix.layers.map(\.id))"])
        } else {
            if stored.mix.playing && !expired {
                logger.warning("stored noise could not be resumed", metadata: ["sounds": "\(stored.mix.layers.map(\.id))"])
            }
            next.mix.layers = stored.mix.layers
            _ = Self.stop(reason: "resume", in: &next)
        }
        // Stored again only when it changed (an expired timer, a sound gone).
        ledger.adopt(next)
        apply(from: NoiseMix(volume: next.mix.volume))
        opened = [:]
        publishState()
    }

    public func publishState() { hub.publish(StateTopic.noise, current) }

    // MARK: Helpers

    private var current: JSONValue { mix.json(isoTime: isoTime) }

    private func isoTime(_ seconds: Double) -> String {
        ISOTime.string(Date(timeIntervalSince1970: seconds), in: time.zone())
    }

    nonisolated static func input(_ id: String) -> String { "noise:\(id)" }
    nonisolated static let previewInput = "preview"

    nonisolated static func busy(_ source: AudioSource) -> String {
        switch source {
        case .alarm: "an alarm rings"
        case .timer: "a timer rings"
        case .meditation: "a meditation runs"
        case .speech: "the clock is speaking"
        case .preview, .noise: "another sound plays"
        }
    }

    /// Stages a change of the mix (`Ledger`), waits for its write without holding the node's
    /// thread, then plays it: nothing is heard of a change that was not stored.
    /// First the files of the sounds `opening` names that do not play yet are opened on threads
    /// (one that cannot be is refused, and nothing changes); the change is then staged in its
    /// turn, after every change whose command came before.
    private func change(
        opening ids: [String] = [], _ body: @escaping @Sendable (inout Document) throws(CommandError) -> Event?
    ) async throws(CommandError) -> JSONValue {
        let turn = turns.take()
        let playing = mix.playing ? Set(mix.layers.map(\.id)) : []
        let needed = ids.filter { !playing.contains($0) }
        var sources: Result<[String: OpenedSound], CommandError> = .success([:])
        if !needed.isEmpty {
            do throws(CommandError) { sources = .success(try await library.open(needed)) } catch { sources = .failure(error) }
        }
        await turns.wait(for: turn)
        turns.done(turn)
        // Staged from here on without a wait: the next turn's change follows this one.
        let opened = try sources.get()
        for (id, sound) in opened { self.opened[id] = sound.source }
        defer { for id in opened.keys { self.opened[id] = nil } }
        _ = try await Ledger.commit(body, what: "the noise mix", in: { $0(&ledger) }) { made in
            apply(from: made.before.mix)
            for case let event? in made.effects { hub.emit(time.event(event.name, event.details)) }
        }
        // One player: the noise that starts stops the station.
        if mix.playing, let radio, radio.isPlaying { try await radio.stop(reason: "noise") }
        return current
    }

    /// Plays `layers` in `document`; the event.
    private nonisolated static func start(
        _ layers: [NoiseMix.Layer], volume: Int?, sleepMinutes: Int?, now: Date, in document: inout Document
    ) -> Event? {
        if let volume { document.mix.volume = volume }
        document.mix.layers = layers
        document.mix.playing = true
        document.last = layers
        if let sleepMinutes { setTimer(minutes: sleepMinutes, now: now, in: &document.mix) }
        return ("noise_started", ["sounds": .array(layers.map { .string($0.id) })])
    }

    /// Stops the mix in `document`; the event when it was playing.
    private nonisolated static func stop(reason: String, in document: inout Document) -> Event? {
        let wasPlaying = document.mix.playing
        if !document.mix.layers.isEmpty { document.last = document.mix.layers }
        document.mix.playing = false
        document.mix.layers = []
        document.mix.sleepTimerEndsAt = nil
        return wasPlaying ? ("noise_stopped", ["reason": .string(reason)]) : nil
    }

    private nonisolated static func setTimer(minutes: Int, now: Date, in mix: inout NoiseMix) {
        mix.sleepTimerEndsAt = minutes > 0 ? now.timeIntervalSince1970 + Double(minutes * 60) : nil
    }
}

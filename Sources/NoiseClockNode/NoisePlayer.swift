import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore

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
public actor NoisePlayer {
    public static let documentName = "noise.json"
    public static let previewSeconds = 3.0
    let library: SoundLibrary
    let arbiter: AudioArbiter
    let store: any Store
    let hub: StateHub
    let time: NodeTime
    let fadeFrames: Int
    let logger: Logger

    private(set) var mix = NoiseMix() { didSet { wakeUp.wake() } }
    /// What `toggle` and `power ON` play again.
    private var lastLayers: [NoiseMix.Layer] = []
    private var previewEndsAt: Date? { didSet { wakeUp.wake() } }
    private var sleepFadeStarted = false
    /// Wakes `NoiseService` when the mix or the preview changes (didSet), so no verb can forget
    /// it: it then sleeps until the new `nextTick`, or without a timer while nothing is timed.
    public nonisolated let wakeUp = WakeUp()

    public init(
        library: SoundLibrary, arbiter: AudioArbiter, store: any Store, hub: StateHub, time: NodeTime, fadeMilliseconds: Int, logger: Logger
    ) {
        self.library = library
        self.arbiter = arbiter
        self.store = store
        self.hub = hub
        self.time = time
        self.fadeFrames = AudioFormat.frames(milliseconds: fadeMilliseconds)
        self.logger = logger
    }

    // MARK: Verbs

    public func play(_ references: [(sound: String, volume: Int?)], volume: Int?, sleepMinutes: Int?) throws(CommandError) -> JSONValue {
        let layers = try references.map { reference throws(CommandError) in
            NoiseMix.Layer(id: try library.sound(reference.sound, field: "sound").id, volume: reference.volume ?? 100)
        }
        let sources = try layers.map { layer throws(CommandError) in (layer, try library.sampleSource(for: layer.id)) }
        if let volume { mix.volume = volume }
        let previous = mix.layers
        arbiter.update(.noise) { mixer in
            for old in previous where !layers.contains(where: { $0.id == old.id }) { mixer.fadeOut(Self.input(old.id), overFrames: fadeFrames) }
            for (layer, source) in sources {
                place(layer, source: source, in: &mixer)
            }
        }
        mix.layers = layers
        mix.playing = true
        lastLayers = layers
        if let sleepMinutes { setTimer(minutes: sleepMinutes) }
        try changed(event: ("noise_started", ["sounds": .array(layers.map { .string($0.id) })]))
        return current
    }

    public func add(_ reference: String, volume: Int?) throws(CommandError) -> JSONValue {
        let sound = try library.sound(reference, field: "sound")
        let layer = NoiseMix.Layer(id: sound.id, volume: volume ?? mix.layers.first { $0.id == sound.id }?.volume ?? 100)
        let source = try library.sampleSource(for: sound.id)
        let wasPlaying = mix.playing
        arbiter.update(.noise) { place(layer, source: source, in: &$0) }
        mix.layers.removeAll { $0.id == layer.id }
        mix.layers.append(layer)
        if !wasPlaying {
            // Adding to silence starts the mix with this one sound.
            mix.layers = [layer]
        }
        mix.playing = true
        lastLayers = mix.layers
        try changed(event: wasPlaying ? nil : ("noise_started", ["sounds": .array(mix.layers.map { .string($0.id) })]))
        return current
    }

    public func remove(_ reference: String) throws(CommandError) -> JSONValue {
        let sound = try library.sound(reference, field: "sound")
        guard mix.playing, mix.layers.contains(where: { $0.id == sound.id }) else {
            throw CommandError(.conflict, "\(sound.id) is not playing", field: "sound")
        }
        arbiter.update(.noise) { $0.fadeOut(Self.input(sound.id), overFrames: fadeFrames) }
        mix.layers.removeAll { $0.id == sound.id }
        if mix.layers.isEmpty {
            return try stop(reason: "command")
        }
        lastLayers = mix.layers
        try changed(event: nil)
        return current
    }

    @discardableResult
    public func stop(reason: String = "command") throws(CommandError) -> JSONValue {
        let wasPlaying = mix.playing
        let layers = mix.layers
        arbiter.update(.noise) { mixer in
            for layer in layers { mixer.fadeOut(Self.input(layer.id), overFrames: fadeFrames) }
        }
        if !layers.isEmpty { lastLayers = layers }
        mix.playing = false
        mix.layers = []
        mix.sleepTimerEndsAt = nil
        sleepFadeStarted = false
        try changed(event: wasPlaying ? ("noise_stopped", ["reason": .string(reason)]) : nil)
        return current
    }

    public func toggle() throws(CommandError) -> JSONValue {
        if mix.playing { return try stop() }
        return try power(on: true)
    }

    public func power(on: Bool) throws(CommandError) -> JSONValue {
        guard on else { return try stop() }
        if mix.playing { return current }
        var layers = lastLayers
        if layers.isEmpty, let sound = library.catalog.defaultSound(of: .noise) {
            layers = [NoiseMix.Layer(id: sound.id, volume: 100)]
        }
        guard !layers.isEmpty else { throw CommandError(.unavailable, "the sound catalog has no noise") }
        return try play(layers.map { ($0.id, $0.volume) }, volume: nil, sleepMinutes: nil)
    }

    public func setVolume(_ volume: Int) throws(CommandError) -> JSONValue {
        mix.volume = volume
        let layers = mix.layers
        // Smoothed: a fifth of a second, so a slider dragged in Home Assistant never clicks. In the
        // sleep timer's last minute the fade to silence goes on; the new volume applies next time.
        let frames = AudioFormat.frames(milliseconds: 200)
        if !sleepFadeStarted {
            arbiter.update(.noise) { mixer in
                glide(layers, overFrames: frames, in: &mixer) { layer in gain(layer) }
            }
        }
        try changed(event: nil)
        return current
    }

    public func setSleepTimer(minutes: Int) throws(CommandError) -> JSONValue {
        if minutes > 0 && !mix.playing {
            throw CommandError(.conflict, "no noise is playing; start it with noise/play and sleep_min", field: "minutes")
        }
        setTimer(minutes: minutes)
        if minutes == 0 { restoreGains() }
        try changed(event: nil)
        return current
    }

    /// Plays a sound for 3 seconds over the noise (ducked meanwhile). Refused while an alarm, a
    /// ringing timer or a meditation has the output: the preview would not be heard (SPEC §10).
    public func preview(_ reference: String) throws(CommandError) -> JSONValue {
        let sound = try library.sound(reference, field: "sound")
        if let top = arbiter.top, top > .preview {
            throw CommandError(.conflict, "a preview is not heard while \(Self.busy(top))", field: "sound")
        }
        let source = try library.sampleSource(for: sound.id)
        let previewGain = Volume.gain(max(mix.volume, 50))
        arbiter.claim(.preview)
        arbiter.update(.preview) { mixer in
            mixer.add(Self.previewInput, source: source, gain: previewGain, fadeInFrames: AudioFormat.frames(milliseconds: 50))
        }
        previewEndsAt = time.now().addingTimeInterval(Self.previewSeconds)
        return ["sound": .string(sound.id), "seconds": .number(Self.previewSeconds)]
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
            try stop(reason: "sleep_timer")
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

    // MARK: Alarm tones (the interface the alarm scheduler uses)

    /// Plays an alarm tone looped, rising from silence to `volume` over `rampSeconds`; the arbiter
    /// fades everything else out meanwhile.
    public func startAlarmTone(_ reference: String, volume: Int, rampSeconds: Int) throws(CommandError) {
        let sound = try library.sound(reference, field: "sound", kind: .alarm)
        let source = try library.sampleSource(for: sound.id)
        // A ramp of 0 s still takes the mixer's shortest glide, so the tone never starts with a click.
        arbiter.startTone(.alarm, sample: source, gain: Volume.gain(volume), rampFrames: AudioFormat.frames(milliseconds: rampSeconds * 1000))
    }

    /// Stops the alarm tone; what it covered comes back.
    public func stopAlarmTone() {
        arbiter.stopTone(.alarm)
    }

    /// Whether an alarm tone sounds now.
    public var alarmToneSounding: Bool { arbiter.toneSounding(.alarm) }

    // MARK: Start-up

    /// Plays again what was playing when the node stopped (unless its sleep timer has run out).
    public func resume() {
        guard case .value(let value) = store.load(Self.documentName), let stored = NoiseMix(stored: value) else {
            publishState()
            return
        }
        lastLayers = NoiseMix(stored: ["playing": false, "volume": 0, "sounds": value.objectValue?["last"] ?? []])?.layers ?? []
        if lastLayers.isEmpty { lastLayers = stored.layers }
        mix.volume = stored.volume
        let expired = stored.sleepTimerEndsAt.map { $0 <= time.now().timeIntervalSince1970 } ?? false
        guard stored.playing, !stored.layers.isEmpty, !expired else {
            publishState()
            return
        }
        do {
            // The timer first: `play` stores the mix, timer included.
            mix.sleepTimerEndsAt = stored.sleepTimerEndsAt
            _ = try play(stored.layers.map { ($0.id, $0.volume) }, volume: stored.volume, sleepMinutes: nil)
            logger.info("noise resumed", metadata: ["sounds": "\(stored.layers.map(\.id))"])
        } catch {
            logger.warning("stored noise could not be resumed", metadata: ["error": "\(error)"])
        }
    }

    public func publishState() {
        hub.publish(StateTopic.noise, current)
    }

    // MARK: Helpers

    private var current: JSONValue { mix.json(isoTime: isoTime) }

    private func isoTime(_ seconds: Double) -> String {
        ISOTime.string(Date(timeIntervalSince1970: seconds), in: time.zone())
    }

    static func input(_ id: String) -> String { "noise:\(id)" }
    static let previewInput = "preview"

    static func busy(_ source: AudioSource) -> String {
        switch source {
        case .alarm: "an alarm rings"
        case .timer: "a timer rings"
        case .meditation: "a meditation runs"
        case .preview, .noise: "another sound plays"
        }
    }

    /// A layer's own gain; the arbiter silences it while something of higher priority sounds.
    private func gain(_ layer: NoiseMix.Layer) -> Float {
        Volume.gain(layer.volume) * Volume.gain(mix.volume)
    }

    /// A sound already in the mix (even fading out) glides to its new gain and plays on; a new one
    /// fades in from the start of its file. Restarting a playing sound would be a click.
    private func place(_ layer: NoiseMix.Layer, source: @autoclosure () -> SampleSource, in mixer: inout SourceMix) {
        if mixer.contains(Self.input(layer.id)) {
            mixer.setGain(Self.input(layer.id), to: gain(layer), overFrames: AudioFormat.frames(milliseconds: 200))
        } else {
            mixer.add(Self.input(layer.id), source: source(), gain: gain(layer), fadeInFrames: fadeFrames)
        }
    }

    /// Moves every layer's gain to `target(layer)` over `frames`.
    private func glide(
        _ layers: [NoiseMix.Layer], overFrames frames: Int, in mixer: inout SourceMix, to target: (NoiseMix.Layer) -> Float
    ) {
        for layer in layers { mixer.setGain(Self.input(layer.id), to: target(layer), overFrames: frames) }
    }

    private func restoreGains() {
        guard mix.playing else { return }
        sleepFadeStarted = false
        let layers = mix.layers
        let frames = AudioFormat.frames(milliseconds: 200)
        arbiter.update(.noise) { mixer in
            glide(layers, overFrames: frames, in: &mixer) { layer in gain(layer) }
        }
    }

    private func setTimer(minutes: Int) {
        mix.sleepTimerEndsAt = minutes > 0 ? time.now().timeIntervalSince1970 + Double(minutes * 60) : nil
        sleepFadeStarted = false
    }

    /// Stores the mix (before anything is answered ok), publishes `B/noise` and the event.
    private func changed(event: (String, [String: JSONValue])?) throws(CommandError) {
        // The last mix too, so toggle and power ON after a restart play what was last chosen.
        var document = mix.stored.objectValue ?? [:]
        document["last"] = .array(lastLayers.map { ["id": .string($0.id), "volume": .number(Double($0.volume))] })
        do {
            try store.save(Self.documentName, .object(document))
        } catch {
            logger.error("the noise mix could not be stored", metadata: ["error": "\(error)"])
        }
        publishState()
        if let (name, details) = event { hub.emit(time.event(name, details)) }
    }
}

import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockSystem
import Synchronization

/// The node's sound sources, by priority (SPEC §10): only the highest one sounding is heard.
public enum AudioSource: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    case noise, preview, meditation, speech, timer, alarm

    public static func < (a: AudioSource, b: AudioSource) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .noise: "noise"
        case .preview: "preview"
        case .meditation: "meditation"
        case .speech: "speech"
        case .timer: "timer"
        case .alarm: "alarm"
        }
    }
}

/// One source at a time (SPEC §10): each source puts its inputs in the mixer through the arbiter,
/// with the gain it wants, and claims the output while it sounds. The arbiter gives each input its
/// gain only while no higher source claims the output; under a higher one it glides to silence
/// (noise under a preview, and everything under speech, is ducked instead), and back when the higher
/// one lets go. So an alarm covers a ringing timer, speech, a meditation or noise; speech is heard
/// over the noise and the radio at a fifth of their volume; a meditation covers noise; and none of
/// them needs to know about the others.
///
/// On the loop, as the sources are: a source's change and the cover it gets are one call of
/// `update`, one step of the mix, and no lock of the arbiter's is held while the engine takes it.
@NodeActor
public final class AudioArbiter {
    /// Noise keeps this share of its gain under a preview, and every lower source under speech
    /// (SPEC §16: the noise and the radio duck to 20 %), so the preview or the voice is heard against it.
    public nonisolated static let duckGain: Float = 0.2

    nonisolated let output: any AudioOutput
    /// How long a covered source takes to fade out or back in (`audio.fade_ms`).
    nonisolated let fadeFrames: Int
    private var state = State()
    /// The inputs whose files are being opened on a thread.
    private var opening: Set<String> = []
    private var openWaiters: [CheckedContinuation<Void, Never>] = []
    /// Who is told of a change of the top source; added to by the sources' nonisolated
    /// initializers (the lock is for that), never held while a listener runs.
    private nonisolated let listeners = Mutex<[@NodeActor @Sendable (AudioSource?) -> Void]>([])

    struct Input: Sendable {
        var source: AudioSource
        var gain: Float
    }

    struct State: Sendable {
        var claims: Set<AudioSource> = []
        var inputs: [String: Input] = [:]
        var tones: [AudioSource: String] = [:]
        var toneCount = 0

        var top: AudioSource? { claims.max() }
    }

    public nonisolated init(output: any AudioOutput, fadeFrames: Int) {
        self.output = output
        self.fadeFrames = fadeFrames
    }

    /// A source will sound soon (an alarm within the minute, a running timer, a meditation
    /// starting): the output gets ready, so that it starts at its instant (`AudioOutput.prepare`).
    public nonisolated func prepare() { output.prepare() }

    /// How far ahead a source counts as sounding soon: a minute, and a margin for the schedulers
    /// that look once a minute. Within it they `prepare()` and keep their sound decoded
    /// (`SoundLibrary.keepReady`).
    public nonisolated static let soon: Double = 65

    /// The highest source claiming the output now; nil when none does.
    public var top: AudioSource? { state.top }

    /// Whether `source` would be heard now: no higher source claims the output.
    public func isAudible(_ source: AudioSource) -> Bool {
        state.top.map { source >= $0 } ?? true
    }

    /// Whether `source` claims the output.
    public func claims(_ source: AudioSource) -> Bool { state.claims.contains(source) }

    /// `listener` is told the new top source after every change of it: a guided meditation pauses
    /// under an alarm and resumes after.
    public nonisolated func onTopChange(_ listener: @escaping @NodeActor @Sendable (AudioSource?) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// The share of its own gain an input of `source` gets while `top` is the highest claim.
    nonisolated static func share(of source: AudioSource, under top: AudioSource?) -> Float {
        guard let top, source < top else { return 1 }
        if top == .speech { return duckGain }
        return source == .noise && top == .preview ? duckGain : 0
    }

    /// Claims the output for `source` (`on`), or lets it go; the inputs of every source glide to
    /// what the new order gives them.
    public func claim(_ source: AudioSource, _ on: Bool = true) {
        let before = state.top
        if on { state.claims.insert(source) } else { state.claims.remove(source) }
        let after = state.top
        guard before != after else { return }
        regain(from: before, to: after)
        for listener in listeners.withLock({ $0 }) { listener(after) }
    }

    /// Changes `source`'s inputs in one step of the mix.
    public func update(_ source: AudioSource, _ change: (inout SourceMix) -> Void) {
        let share = Self.share(of: source, under: state.top), inputs = state.inputs
        state.inputs = output.update { mixer in
            var mix = SourceMix(source: source, share: share, inputs: inputs)
            swap(&mix.mixer, &mixer)
            change(&mix)
            swap(&mix.mixer, &mixer)
            // Inputs the mixer dropped (faded out, or at the end of their file) are forgotten.
            let live = Set(mixer.ids)
            return mix.inputs.filter { live.contains($0.key) }
        }
    }

    // MARK: Tones: one looping tone per source (the alarm's, the ringing timers')

    /// Plays `sample` looped as `source`'s tone, rising from silence to `gain` over `rampFrames`,
    /// fading out the tone it had (each tone has an input of its own, so one fades while the next
    /// rises), and claims the output for `source`.
    public func startTone(_ source: AudioSource, sample: SampleSource, gain: Float, rampFrames: Int) {
        let input = beginTone(source)
        update(source) { $0.add(input, source: sample, gain: gain, fadeInFrames: rampFrames) }
    }

    /// A new tone input for `source`: the output claimed, the tone it had fading out.
    private func beginTone(_ source: AudioSource) -> String {
        state.toneCount += 1
        let input = "\(source):\(state.toneCount)"
        let previous = state.tones.updateValue(input, forKey: source)
        claim(source)
        if let previous {
            let fade = fadeFrames
            update(source) { $0.fadeOut(previous, overFrames: fade) }
        }
        return input
    }

    /// Fades out `source`'s tone and lets the output go.
    public func stopTone(_ source: AudioSource) {
        guard let input = state.tones.removeValue(forKey: source) else { return }
        let fade = fadeFrames
        update(source) { $0.fadeOut(input, overFrames: fade) }
        claim(source, false)
    }

    /// Whether `source` has a tone sounding (or about to: its file being opened).
    public func toneSounding(_ source: AudioSource) -> Bool { state.tones[source] != nil }

    /// Rings `sound` (a catalog id or a file; of `kind` when given) as `source`'s tone at `volume`,
    /// rising over `rampSeconds`, the way alarms and timers both ring. A tone that cannot be played
    /// is logged and `fallback` rings instead: a tone gone missing must not keep a ring silent.
    /// (A ramp of 0 s still takes the mixer's shortest glide: no click.) The output is claimed at
    /// once; the tone sounds at once from its loop kept decoded (`SoundLibrary.keepReady`), else as
    /// soon as its file is opened on a thread.
    public func ring(
        _ source: AudioSource, sound: String, kind: Sound.Kind?, fallback: String, library: SoundLibrary, volume: Int,
        rampSeconds: Int, logger: Logger
    ) {
        let gain = Volume.gain(volume), ramp = AudioFormat.frames(milliseconds: rampSeconds * 1000)
        let id: String
        do {
            id = try library.sound(sound, field: "sound", kind: kind).id
        } catch {
            logger.error("\(source) tone unavailable; using the default", metadata: ["sound": "\(sound)", "error": "\(error)"])
            id = fallback
        }
        let input = beginTone(source)
        let place: @NodeActor @Sendable (SampleSource) -> Void = { [self] sample in
            // Stopped (or rung again) while its file was being opened: not heard.
            guard state.tones[source] == input else { return }
            update(source) { $0.add(input, source: sample, gain: gain, fadeInFrames: ramp) }
        }
        open(id, library: library, as: input, then: place) { [self] error in
            guard id != fallback else {
                logger.error("no \(source) tone can be played", metadata: ["error": "\(error)"])
                if state.tones[source] == input { stopTone(source) }
                return
            }
            logger.error("\(source) tone unavailable; using the default", metadata: ["sound": "\(id)", "error": "\(error)"])
            open(fallback, library: library, as: input, then: place) { [self] error in
                logger.error("no \(source) tone can be played", metadata: ["error": "\(error)"])
                // Nothing to hear: the output is not held for a tone that cannot sound.
                if state.tones[source] == input { stopTone(source) }
            }
        }
    }

    // MARK: Sound files, opened off the loop

    /// Hands sound `id` to `place` as a source: at once from its loop kept decoded, else once its
    /// file is opened on a thread ("sound open"; `failed` when it cannot be). `place` decides
    /// then whether it is still wanted. While `input`'s file is being opened, asking again does nothing.
    public func open(
        _ id: String, loops: Int? = nil, library: SoundLibrary, as input: String,
        then place: @escaping @NodeActor @Sendable (SampleSource) -> Void,
        failed: @escaping @NodeActor @Sendable (CommandError) -> Void
    ) {
        if let ready = library.readySource(for: id, loops: loops) {
            place(ready)
            return
        }
        guard opening.insert(input).inserted else { return }
        NodeActor.task { [self] in
            let result: Result<OpenedSound, CommandError>
            do throws(CommandError) { result = .success(try await library.open(id, loops: loops)) } catch { result = .failure(error) }
            opening.remove(input)
            switch result {
            case .success(let opened): place(opened.source)
            case .failure(let error): failed(error)
            }
            // What `failed` opened in turn (a fallback) is waited for too.
            if opening.isEmpty {
                for waiter in openWaiters { waiter.resume() }
                openWaiters = []
            }
        }
    }

    /// Whether `input`'s file is being opened (`open`).
    public func isOpening(_ input: String) -> Bool { opening.contains(input) }

    /// Returns once no file is being opened for the mix (each opened one placed, or failed): what
    /// a test waits for before it looks at the mixer.
    public func opened() async {
        guard !opening.isEmpty else { return }
        // Looked at again where the waiter is noted: a task without the loop as its executor
        // preference (a test's) reaches the body only after a hop, when the last open may be over.
        await withCheckedContinuation { waiter in
            if opening.isEmpty { waiter.resume() } else { openWaiters.append(waiter) }
        }
    }

    // MARK: Cover

    /// Glides every input to its share under the new top.
    private func regain(from before: AudioSource?, to after: AudioSource?) {
        // A preview or speech ducks and restores quickly; anything else fades like noise does.
        let quick: Set<AudioSource?> = [.preview, .speech]
        let frames = quick.contains(before) || quick.contains(after) ? AudioFormat.frames(milliseconds: 200) : fadeFrames
        let inputs = state.inputs
        output.update { mixer in
            for (id, input) in inputs {
                let old = Self.share(of: input.source, under: before), new = Self.share(of: input.source, under: after)
                if old != new { mixer.setGain(id, to: input.gain * new, overFrames: frames) }
            }
        }
    }
}

/// One source's view of the mixer, inside `AudioArbiter.update`: the gains it sets are its own,
/// and the mixer gets them times the share the order gives the source.
public struct SourceMix {
    let source: AudioSource
    let share: Float
    var mixer = Mixer()
    var inputs: [String: AudioArbiter.Input]

    init(source: AudioSource, share: Float, inputs: [String: AudioArbiter.Input]) {
        self.source = source
        self.share = share
        self.inputs = inputs
    }

    /// Whether input `id` is in the mix (even fading out).
    public func contains(_ id: String) -> Bool { mixer.ids.contains(id) }

    /// Adds (or replaces) input `id`, rising from silence to `gain` over `fadeInFrames`.
    public mutating func add(_ id: String, source sample: SampleSource, gain: Float, fadeInFrames: Int) {
        inputs[id] = .init(source: source, gain: gain)
        mixer.add(id, source: sample, gain: gain * share, fadeInFrames: fadeInFrames)
    }

    /// Moves input `id` to `gain` over `frames` (it glides to silence when `gain` is 0 and stays).
    public mutating func setGain(_ id: String, to gain: Float, overFrames frames: Int) {
        guard mixer.ids.contains(id) else { return }
        inputs[id] = .init(source: source, gain: gain)
        mixer.setGain(id, to: gain * share, overFrames: frames)
    }

    /// Fades input `id` to silence over `frames` and removes it.
    public mutating func fadeOut(_ id: String, overFrames frames: Int) {
        inputs[id] = nil
        mixer.fadeOut(id, overFrames: frames)
    }

    /// Changes an input's source in place (a guided meditation's pause), under the engine's lock.
    public mutating func withMixer<T>(_ body: (inout Mixer) -> T) -> T { body(&mixer) }
}

import NoiseClockAudio
import NoiseClockCore
import NoiseClockSystem

/// How the mix as stored becomes the mix heard: each layer's gain, a change of the mix glided or
/// faded in the mixer, and a layer whose file was not opened before its change opened after it.
extension NoisePlayer {
    /// A layer's own gain; the arbiter silences it while something of higher priority sounds.
    func gain(_ layer: NoiseMix.Layer) -> Float {
        Volume.gain(layer.volume) * Volume.gain(mix.volume)
    }

    /// A sound already in the mix (even fading out) glides to its new gain and plays on; a new one
    /// fades in from the start of its file (the source opened for it). Restarting a playing sound
    /// would be a click. False when it is not in the mix and no source was opened for it.
    func place(_ layer: NoiseMix.Layer, in mixer: inout SourceMix) -> Bool {
        if mixer.contains(Self.input(layer.id)) {
            mixer.setGain(Self.input(layer.id), to: gain(layer), overFrames: AudioFormat.frames(milliseconds: 200))
        } else if let source = opened.removeValue(forKey: layer.id) {
            mixer.add(Self.input(layer.id), source: source, gain: gain(layer), fadeInFrames: fadeFrames)
        } else {
            return false
        }
        return true
    }

    /// Moves every layer's gain to `target(layer)` over `frames`.
    func glide(
        _ layers: [NoiseMix.Layer], overFrames frames: Int, in mixer: inout SourceMix, to target: (NoiseMix.Layer) -> Float
    ) {
        for layer in layers { mixer.setGain(Self.input(layer.id), to: target(layer), overFrames: frames) }
    }

    /// Makes the mixer play `mix`, coming from `before`: sounds that left fade out, new ones fade
    /// in, the others glide to their gain (unless the sleep timer's fade runs); `B/noise`.
    func apply(from before: NoiseMix) {
        let after = mix
        guard after != before else { return }
        if after.sleepTimerEndsAt != before.sleepTimerEndsAt { sleepFadeStarted = false }
        let playing = after.playing ? after.layers : []
        let previous = before.playing ? before.layers : []
        let fading = sleepFadeStarted
        var unopened: [NoiseMix.Layer] = []
        arbiter.update(.noise) { mixer in
            for old in previous where !playing.contains(where: { $0.id == old.id }) {
                mixer.fadeOut(Self.input(old.id), overFrames: fadeFrames)
            }
            for layer in playing where !(fading && mixer.contains(Self.input(layer.id))) {
                if !place(layer, in: &mixer) { unopened.append(layer) }
            }
        }
        for layer in unopened { openLater(layer.id) }
        wakeUp.wake()
        publishState()
    }

    /// A layer that plays without a source opened for it (a change made current by another's
    /// write): its file is opened on a thread, and it fades in then if it still plays.
    func openLater(_ id: String) {
        let input = Self.input(id), logger = logger
        arbiter.open(id, library: library, as: input) { [self] source in
            guard mix.playing, let layer = mix.layers.first(where: { $0.id == id }) else { return }
            let gain = gain(layer), frames = fadeFrames
            arbiter.update(.noise) { mixer in
                if !mixer.contains(input) { mixer.add(input, source: source, gain: gain, fadeInFrames: frames) }
            }
        } failed: { error in
            logger.error("a noise sound cannot be played", metadata: ["sound": "\(id)", "error": "\(error)"])
        }
    }

}

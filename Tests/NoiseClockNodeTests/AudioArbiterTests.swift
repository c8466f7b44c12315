import NoiseClockAudio
import NoiseClockCore
import Synchronization
import NoiseClockSystem
import Testing

@testable import NoiseClockNode

@Suite("One source at a time: the audio arbiter (SPEC §10)")
@NodeActor
struct AudioArbiterTests {
    static let fade = AudioFormat.frames(milliseconds: 500)

    nonisolated static var pairs: [(AudioSource, AudioSource)] {
        AudioSource.allCases.flatMap { low in AudioSource.allCases.filter { $0 > low }.map { (low, $0) } }
    }

    /// A tone that never ends.
    static func tone() -> SampleSource { BufferSource(samples: [1000, 1000], loops: nil) }

    /// What the lower source keeps of its gain under the higher: noise is ducked under a preview,
    /// everything under speech (SPEC §16), everything else is silent.
    static func expectedShare(_ low: AudioSource, under high: AudioSource) -> Float {
        high == .speech || (low == .noise && high == .preview) ? 0.2 : 0
    }

    @Test("the priority order is alarm, timer, speech, meditation, preview, noise")
    func order() {
        #expect(AudioSource.allCases.sorted(by: >) == [.alarm, .timer, .speech, .meditation, .preview, .noise])
        #expect(Self.pairs.count == 15)
    }

    @Test("a higher source covers a lower one that sounds, and gives it back when it ends", arguments: pairs)
    func higherStartsLater(low: AudioSource, high: AudioSource) {
        let output = FakeAudioOutput()
        let arbiter = AudioArbiter(output: output, fadeFrames: Self.fade)
        arbiter.claim(low)
        arbiter.update(low) { $0.add("low", source: Self.tone(), gain: 0.5, fadeInFrames: 0) }
        #expect(output.gain(of: "low") == 0.5)

        arbiter.claim(high)
        arbiter.update(high) { $0.add("high", source: Self.tone(), gain: 0.8, fadeInFrames: 0) }
        #expect(output.gain(of: "high") == 0.8)
        #expect(output.gain(of: "low") == 0.5 * Self.expectedShare(low, under: high))
        #expect(output.ids.contains("low"), "the covered source keeps its place in the mix")
        #expect(arbiter.top == high && !arbiter.isAudible(low) && arbiter.isAudible(high))

        // A change the covered source makes meanwhile is remembered, not heard.
        arbiter.update(low) { $0.setGain("low", to: 0.3, overFrames: 0) }
        #expect(output.gain(of: "low") == 0.3 * Self.expectedShare(low, under: high))

        arbiter.update(high) { $0.fadeOut("high", overFrames: 0) }
        arbiter.claim(high, false)
        #expect(output.gain(of: "low") == 0.3)
        #expect(arbiter.top == low)
    }

    @Test("a lower source that starts under a higher one is added silent, and heard when the higher ends", arguments: pairs)
    func lowerStartsLater(low: AudioSource, high: AudioSource) {
        let output = FakeAudioOutput()
        let arbiter = AudioArbiter(output: output, fadeFrames: Self.fade)
        arbiter.claim(high)
        arbiter.update(high) { $0.add("high", source: Self.tone(), gain: 0.8, fadeInFrames: 0) }
        arbiter.claim(low)
        arbiter.update(low) { $0.add("low", source: Self.tone(), gain: 0.5, fadeInFrames: 0) }
        #expect(output.gain(of: "low") == 0.5 * Self.expectedShare(low, under: high))
        #expect(output.gain(of: "high") == 0.8)
        #expect(arbiter.top == high)

        arbiter.claim(high, false)
        #expect(output.gain(of: "low") == 0.5)
        // Releasing its claim alone does not silence the higher source's inputs: it owns them.
        #expect(output.gain(of: "high") == 0.8)
    }

    @Test("the listener hears each change of the top source once")
    func listener() {
        let arbiter = AudioArbiter(output: FakeAudioOutput(), fadeFrames: Self.fade)
        let heard = Mutex<[AudioSource?]>([])
        arbiter.onTopChange { top in heard.withLock { $0.append(top) } }
        arbiter.claim(.meditation)
        arbiter.claim(.noise)
        arbiter.claim(.alarm)
        arbiter.claim(.alarm)
        arbiter.claim(.alarm, false)
        arbiter.claim(.meditation, false)
        arbiter.claim(.noise, false)
        #expect(heard.withLock { $0 } == [.meditation, .alarm, .meditation, .noise, nil])
    }

    @Test("a tone replaces the tone of its own source (one fades out while the next rises) and claims the output until stopped")
    func tones() {
        let output = FakeAudioOutput()
        let arbiter = AudioArbiter(output: output, fadeFrames: Self.fade)
        arbiter.update(.noise) { $0.add("noise:rain", source: Self.tone(), gain: 0.25, fadeInFrames: 0) }
        arbiter.startTone(.timer, sample: Self.tone(), gain: 0.5, rampFrames: 0)
        #expect(output.gain(of: "timer:1") == 0.5)
        #expect(output.gain(of: "noise:rain") == 0)
        arbiter.startTone(.alarm, sample: Self.tone(), gain: 0.7, rampFrames: 0)
        #expect(output.gain(of: "timer:1") == 0)
        arbiter.startTone(.alarm, sample: Self.tone(), gain: 0.6, rampFrames: 0)
        #expect(output.gain(of: "alarm:2") == 0 && output.gain(of: "alarm:3") == 0.6)
        #expect(arbiter.toneSounding(.alarm) && arbiter.toneSounding(.timer))

        arbiter.stopTone(.alarm)
        #expect(!arbiter.toneSounding(.alarm))
        #expect(output.gain(of: "timer:1") == 0.5)
        #expect(output.gain(of: "noise:rain") == 0)
        arbiter.stopTone(.timer)
        #expect(output.gain(of: "noise:rain") == 0.25)
        #expect(arbiter.top == nil)
        output.render(milliseconds: 600)
        #expect(output.ids == ["noise:rain"], "the tones faded out and left the mix")
    }
}

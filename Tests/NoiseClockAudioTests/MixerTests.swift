import Testing
@testable import NoiseClockAudio

@Suite("The software mixer")
struct MixerTests {
    func render(_ mixer: inout Mixer, frames: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * 2)
        out.withUnsafeMutableBufferPointer { mixer.render(into: $0) }
        return out
    }

    func constant(_ value: Int16, frames: Int) -> [Int16] { [Int16](repeating: value, count: frames * 2) }

    @Test("a gain is applied to every sample")
    func gain() {
        var mixer = Mixer()
        mixer.add("a", source: BufferSource(samples: constant(10_000, frames: 100)), gain: 0.5, fadeInFrames: 0, immediate: true)
        let out = render(&mixer, frames: 100)
        #expect(out.allSatisfy { $0 == 5_000 })
    }

    @Test("a fade-in rises from silence over at least 20 ms, never jumping")
    func fadeInRamp() {
        var mixer = Mixer()
        let frames = 2_000
        mixer.add("a", source: BufferSource(samples: constant(20_000, frames: frames)), gain: 1, fadeInFrames: 10)
        let out = render(&mixer, frames: frames)
        let left = stride(from: 0, to: out.count, by: 2).map { Int(out[$0]) }
        // 20 ms at 44.1 kHz is 882 frames: the minimum even though 10 were asked for.
        #expect(left[0] < 100)
        #expect(left[440] > 9_000 && left[440] < 11_000)
        #expect(left[881] == 20_000 || left[882] == 20_000)
        #expect(zip(left, left.dropFirst()).allSatisfy { $1 >= $0 && $1 - $0 <= 30 })
    }

    @Test("during a ramp every sample is the exact product rounded, within one step: an input's fade over samples of every size, and the master's over a sum past 16 bits, which clips instead of wrapping")
    func rampArithmetic() {
        let frames = 3_000
        // Samples over the whole 16-bit range, both channels different.
        let samples = (0..<frames * 2).map { Int16(truncatingIfNeeded: ($0 &* 7_919) % 65_536 - 32_768) }
        var mixer = Mixer()
        mixer.add("a", source: BufferSource(samples: samples), gain: 0.8, fadeInFrames: 2_000)
        var ramp = GainRamp(0)
        ramp.move(to: 0.8, overFrames: 2_000)
        let out = render(&mixer, frames: frames)
        var worst = 0.0
        for frame in 0..<frames {
            let gain = Double(ramp.advance())
            for channel in 0..<2 {
                let exact = (Double(samples[frame * 2 + channel]) * gain).rounded()
                worst = max(worst, abs(Double(out[frame * 2 + channel]) - exact))
            }
        }
        #expect(worst <= 1, "an input's ramp is off by \(worst)")

        var loud = Mixer()
        for id in ["a", "b", "c", "d"] {
            loud.add(id, source: BufferSource(samples: constant(30_000, frames: frames)), gain: 1, fadeInFrames: 0, immediate: true)
        }
        loud.setMaster(0.2, overFrames: 2_500)
        var master = GainRamp(1)
        master.move(to: 0.2, overFrames: 2_500)
        let mixed = render(&loud, frames: frames)
        worst = 0
        for frame in 0..<frames {
            let exact = min(Double(Int16.max), (120_000 * Double(master.advance())).rounded())
            worst = max(worst, abs(Double(mixed[frame * 2]) - exact), abs(Double(mixed[frame * 2 + 1]) - exact))
        }
        #expect(worst <= 1, "the master's ramp is off by \(worst)")
        #expect(mixed[0] == Int16.max && mixed[mixed.count - 1] == 24_000)
    }

    @Test("a sum beyond 16 bits saturates at the limit instead of wrapping")
    func saturation() {
        var mixer = Mixer()
        mixer.add("a", source: BufferSource(samples: constant(30_000, frames: 10)), gain: 1, fadeInFrames: 0, immediate: true)
        mixer.add("b", source: BufferSource(samples: constant(30_000, frames: 10)), gain: 1, fadeInFrames: 0, immediate: true)
        #expect(render(&mixer, frames: 10).allSatisfy { $0 == Int16.max })
        mixer.add("c", source: BufferSource(samples: constant(-30_000, frames: 10)), gain: 1, fadeInFrames: 0, immediate: true)
        mixer.add("d", source: BufferSource(samples: constant(-30_000, frames: 10)), gain: 1, fadeInFrames: 0, immediate: true)
        #expect(render(&mixer, frames: 10).allSatisfy { $0 == Int16.min })
    }

    @Test("the master gain scales the whole mix, smoothly")
    func master() {
        var mixer = Mixer()
        mixer.add("a", source: BufferSource(samples: constant(8_000, frames: 5_000)), gain: 1, fadeInFrames: 0, immediate: true)
        mixer.setMaster(0.25, overFrames: 0)
        let out = render(&mixer, frames: 2_000)
        #expect(out[0] < 8_000 && out[0] > 7_900)
        #expect(out[out.count - 1] == 2_000)
    }

    @Test("a faded-out input is removed once silent; an ended source is removed at once")
    func fadeOutRemoves() {
        var mixer = Mixer()
        mixer.add("long", source: BufferSource(samples: constant(1_000, frames: 10_000)), gain: 1, fadeInFrames: 0, immediate: true)
        mixer.add("short", source: BufferSource(samples: constant(1_000, frames: 10)), gain: 1, fadeInFrames: 0, immediate: true)
        _ = render(&mixer, frames: 100)
        #expect(mixer.ids == ["long"])
        mixer.fadeOut("long", overFrames: 0)
        _ = render(&mixer, frames: 800)
        #expect(mixer.ids == ["long"])
        _ = render(&mixer, frames: 100)
        #expect(mixer.isEmpty)
    }

    @Test("volume is squared: 50 is a quarter of the gain of 100; out-of-range volumes are clamped")
    func volumeCurve() {
        #expect(Volume.gain(100) == 1)
        #expect(Volume.gain(50) == 0.25)
        #expect(Volume.gain(0) == 0)
        #expect(Volume.gain(150) == 1)
        #expect(Volume.gain(-5) == 0)
    }

    @Test("a looped buffer repeats exactly")
    func looping() {
        let source = BufferSource(samples: [1, 1, 2, 2, 3, 3], loops: 3)
        var out = [Int16](repeating: 0, count: 20)
        let frames = out.withUnsafeMutableBufferPointer { source.render(into: $0) }
        #expect(frames == 9)
        #expect(Array(out.prefix(18)) == [1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3])
    }
}

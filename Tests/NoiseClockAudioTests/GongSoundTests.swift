import Foundation
import Testing
@testable import NoiseClockAudio

/// The gong and timer tones in `Resources/gongs` (made by scripts/make-sounds.sh), decoded with the
/// node's own decoder and measured: they must be what SPEC §10 says they are.
@Suite("Gong and timer tones")
struct GongSoundTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // NoiseClockAudioTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package root
        .appendingPathComponent("Resources/gongs").path

    static let rate = Double(AudioFormat.sampleRate)

    /// The left channel of a decoded file, as Double samples in -1...1.
    static func decode(_ id: String) throws -> [Double] {
        let decoder = try MP3Decoder(path: "\(folder)/\(id).mp3")
        let stereo = try decoder.decodeAll()
        #expect(stereo.count == decoder.frameCount * 2)
        return stride(from: 0, to: stereo.count, by: 2).map { Double(stereo[$0]) / 32768 }
    }

    static func dB(_ x: Double) -> Double { 20 * log10(max(x, 1e-12)) }

    /// RMS level (dBFS) of the samples from `start` to `end` seconds.
    static func level(_ samples: [Double], from start: Double, to end: Double) -> Double {
        let slice = samples[Int(start * rate)..<min(samples.count, Int(end * rate))]
        return dB((slice.reduce(0) { $0 + $1 * $1 } / Double(max(slice.count, 1))).squareRoot())
    }

    /// The level (dB, arbitrary reference) of `frequency` in a Hann-windowed stretch, by Goertzel.
    static func power(_ samples: [Double], window: [Double], from start: Int, at frequency: Double) -> Double {
        let k = 2 * cos(2 * .pi * frequency / rate)
        var s1 = 0.0, s2 = 0.0
        for i in 0..<window.count {
            let s0 = samples[start + i] * window[i] + k * s1 - s2
            s2 = s1
            s1 = s0
        }
        let n = Double(window.count)
        return 10 * log10(max((s1 * s1 + s2 * s2 - k * s1 * s2) / (n * n), 1e-24))
    }

    /// The strongest frequency (and its level) between `low` and `high`, in `step` Hz steps.
    static func peak(
        _ samples: [Double], window: [Double], from start: Int, between low: Double, and high: Double, step: Double
    ) -> (frequency: Double, level: Double) {
        var best = (frequency: low, level: -Double.infinity)
        var frequency = low
        while frequency <= high {
            let level = power(samples, window: window, from: start, at: frequency)
            if level > best.level { best = (frequency, level) }
            frequency += step
        }
        return best
    }

    @Test(
        "each tone has its length, a peak under 0 dBFS, starts and ends near silence, and dies away",
        arguments: [
            ("singing-bowl", 20.0...30.0, 50.0),
            ("soft-bell", 8.0...12.0, 40.0),
            // The timer chime loops: it ends in the quiet tail of its last note.
            ("timer-chime", 2.0...4.0, 25.0),
        ])
    func shape(id: String, seconds: ClosedRange<Double>, decay: Double) throws {
        let samples = try Self.decode(id)
        let length = Double(samples.count) / Self.rate
        #expect(seconds.contains(length), "\(id) lasts \(length) s")

        let peak = samples.reduce(0) { max($0, abs($1)) }
        // Mastered like the alarm tones (-3 dBFS peak): loud enough, never clipping.
        #expect(Self.dB(peak) < -1 && Self.dB(peak) > -6, "\(id) peaks at \(Self.dB(peak)) dBFS")

        let first = Self.level(samples, from: 0, to: 1)
        let last = Self.level(samples, from: length - 1, to: length)
        #expect(first > -20, "\(id): the first second is at \(first) dBFS")
        #expect(last < first - decay, "\(id): the last second is at \(last) dBFS, the first at \(first)")

        // No click where it starts or ends (or, for the chime, where the loop joins): the first and
        // last samples are near silence (under -50 dBFS), and so is the jump from the last to the first.
        let edge = 0.003
        #expect(abs(samples[0]) < edge && abs(samples[samples.count - 1]) < edge, "\(id): \(samples[0]) ... \(samples[samples.count - 1])")
        #expect(abs(samples[samples.count - 1] - samples[0]) < edge)
        // And it rises over milliseconds, not at once: the first 0.2 ms stay under -30 dBFS.
        #expect(samples[0..<9].allSatisfy { abs($0) < 0.03 }, "\(id) starts with a step")
    }

    @Test("the singing bowl is a bowl: a 200-260 Hz fundamental with inharmonic partials near 2.7 and 5.2 times it, none at the harmonics")
    func bowlSpectrum() throws {
        let samples = try Self.decode("singing-bowl")
        // Two seconds from 0.5 s: fine enough to find each beating pair (0.5 Hz apart) as one peak.
        let count = Int(2 * Self.rate), start = Int(0.5 * Self.rate)
        let window = (0..<count).map { 0.5 - 0.5 * cos(2 * .pi * Double($0) / Double(count - 1)) }
        let peak = { (low: Double, high: Double, step: Double) in
            Self.peak(samples, window: window, from: start, between: low, and: high, step: step)
        }

        let coarse = peak(150, 320, 1)
        let fundamental = peak(coarse.frequency - 1, coarse.frequency + 1, 0.1)
        let f0 = fundamental.frequency
        #expect((200...260).contains(f0), "fundamental at \(f0) Hz")

        let second = peak(2.5 * f0, 2.95 * f0, 0.5)
        let third = peak(4.9 * f0, 5.5 * f0, 1)
        let ratio2 = second.frequency / f0, ratio3 = third.frequency / f0
        #expect((2.6...2.85).contains(ratio2), "second partial at \(ratio2) × f0")
        #expect((5.0...5.4).contains(ratio3), "third partial at \(ratio3) × f0")
        #expect(second.level > fundamental.level - 20, "second partial \(second.level - fundamental.level) dB under the fundamental")
        #expect(third.level > fundamental.level - 35, "third partial \(third.level - fundamental.level) dB under the fundamental")

        // Where a harmonic tone (a plain synth beep) would have its overtones there is nothing.
        for multiple in [2.0, 3.0, 4.0] {
            let harmonic = peak(multiple * f0 - 3, multiple * f0 + 3, 0.5)
            #expect(harmonic.level < second.level - 40, "\(multiple) × f0 is \(harmonic.level - second.level) dB from the 2.7 partial")
            #expect(harmonic.level < third.level - 20, "\(multiple) × f0 is \(harmonic.level - third.level) dB from the 5.2 partial")
        }
    }

    @Test("the singing bowl beats slowly: its level swells and dips by several dB every one to three seconds as it decays")
    func bowlBeats() throws {
        let samples = try Self.decode("singing-bowl")
        // The level in 100 ms steps from 6 to 16 s (the fundamental's pair dominates by then), less
        // the straight line of its exponential decay (in dB).
        let levels = (60..<160).map { Self.level(samples, from: Double($0) / 10, to: Double($0 + 1) / 10) }
        let xs = levels.indices.map(Double.init)
        let mx = xs.reduce(0, +) / Double(xs.count), my = levels.reduce(0, +) / Double(levels.count)
        let slope = zip(xs, levels).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) } / xs.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
        let residual = zip(xs, levels).map { $1 - (my + slope * ($0 - mx)) }
        let depth = (residual.max() ?? 0) - (residual.min() ?? 0)
        let crossings = zip(residual, residual.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count

        #expect(slope * 10 < -0.5 && slope * 10 > -5, "decays \(slope * 10) dB/s: a long ring")
        #expect(depth > 4 && depth < 20, "beats \(depth) dB deep")
        // Two crossings a beat: 10 s of beats every 1-3 s.
        #expect((6...20).contains(crossings), "\(crossings) crossings in 10 s")
    }
}

#if canImport(Glibc)
import Glibc
#endif
import NoiseClockAudio

/// The short chime before an announcement (SPEC §16), made by the project as the gongs are: two
/// soft bell notes a fourth apart, G5 then C5's octave (784 Hz, 1047 Hz), each a sine with a
/// little of its octave and twelfth, an 8 ms rise and a 0.35 s decay, at about -16 dBFS, then a
/// breath of silence before the voice. Made in the engine's format when it is needed (1.15 s).
public enum Chime {
    public static let seconds = 1.15
    /// The notes: start (s), frequency (Hz).
    static let notes: [(start: Double, frequency: Double)] = [(0, 783.99), (0.18, 1046.5)]
    static let peak = 0.16

    /// Interleaved stereo in `AudioFormat`.
    public static func samples() -> [Int16] {
        let rate = Double(AudioFormat.sampleRate)
        let frames = Int(seconds * rate)
        var output = [Int16](repeating: 0, count: frames * AudioFormat.channels)
        for frame in 0..<frames {
            let t = Double(frame) / rate
            var value = 0.0
            for note in notes where t >= note.start {
                let age = t - note.start
                let envelope = min(1, age / 0.008) * exp(-age / 0.35)
                let phase = 2 * Double.pi * note.frequency * age
                value += envelope * (sin(phase) + 0.18 * sin(2 * phase) + 0.06 * sin(3 * phase))
            }
            // The tail (about -45 dBFS by then) fades to nothing over the last 150 ms: no click.
            value *= min(1, (seconds - t) / 0.15)
            let sample = Int16(clamping: Int((value * peak * 32_767 / 1.24).rounded()))
            output[frame * 2] = sample
            output[frame * 2 + 1] = sample
        }
        return output
    }
}

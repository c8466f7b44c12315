#if canImport(Glibc)
import Glibc
#endif
import NoiseClockAudio

/// Speech from an engine's rate (espeak-ng's 22,050 Hz, Piper's 16,000 or 22,050) to the engine's
/// format (`AudioFormat`: 44.1 kHz stereo), fed in pieces as they arrive. A windowed sinc (16 zero
/// crossings each side, Blackman window, the kernel tabled at 256 phases and interpolated between
/// them): the images above the source's Nyquist frequency that a linear interpolation leaves, a
/// hiss on every sibilant, are gone; going down in rate, the cutoff moves down with it.
public struct Resampler {
    static let zeroCrossings = 16
    static let phases = 256

    public let inputRate: Int
    public let channels: Int
    /// Input frames per output frame.
    private let ratio: Double
    /// The cutoff as a share of the input's Nyquist frequency (1 going up, less going down).
    private let scale: Double
    /// Input frames each side of an output frame that its sum reaches.
    private let reach: Int
    private let table: [Float]
    /// Input frames not yet used up, deinterleaved by channel.
    private var history: [[Float]]
    /// The next output frame's position in `history`, in input frames.
    private var time: Double

    public init(inputRate: Int, channels: Int) {
        self.inputRate = inputRate
        self.channels = channels
        ratio = Double(inputRate) / Double(AudioFormat.sampleRate)
        scale = min(1, 1 / ratio)
        reach = Int((Double(Self.zeroCrossings) / scale).rounded(.up))
        var table = [Float](repeating: 0, count: Self.zeroCrossings * Self.phases + 2)
        for i in 0..<table.count {
            let u = Double(i) / Double(Self.phases)
            guard u < Double(Self.zeroCrossings) else { continue }
            let sinc = u == 0 ? 1 : sin(Double.pi * u) / (Double.pi * u)
            let x = u / Double(Self.zeroCrossings)
            let window = 0.42 + 0.5 * cos(Double.pi * x) + 0.08 * cos(2 * Double.pi * x)
            table[i] = Float(sinc * window)
        }
        self.table = table
        // Silence before the first frame, so that the first output frame is the first input frame.
        history = Array(repeating: Array(repeating: 0, count: reach), count: channels)
        time = Double(reach)
    }

    /// The kernel at `distance` input frames from the output frame.
    @inline(__always)
    private func kernel(_ distance: Double) -> Float {
        let position = abs(distance) * scale * Double(Self.phases)
        let index = Int(position)
        guard index + 1 < table.count else { return 0 }
        let fraction = Float(position - Double(index))
        return table[index] + (table[index + 1] - table[index]) * fraction
    }

    /// Takes interleaved samples of `channels` at `inputRate`; the stereo frames at 44.1 kHz they
    /// complete, interleaved.
    public mutating func process(_ samples: [Int16]) -> [Int16] {
        let frames = samples.count / channels
        for channel in 0..<channels {
            history[channel].reserveCapacity(history[channel].count + frames)
            for frame in 0..<frames { history[channel].append(Float(samples[frame * channels + channel])) }
        }
        return render()
    }

    /// The last output frames: the input's end, rung out.
    public mutating func finish() -> [Int16] {
        for channel in 0..<channels { history[channel].append(contentsOf: repeatElement(0, count: reach + 1)) }
        return render()
    }

    private mutating func render() -> [Int16] {
        let count = history.first?.count ?? 0
        var output: [Int16] = []
        output.reserveCapacity(Int(Double(count) / ratio + 2) * AudioFormat.channels)
        let gain = Float(scale)
        while Int(time) + reach + 1 < count {
            let center = Int(time)
            var left: Float = 0, right: Float = 0
            for n in (center - reach + 1)...(center + reach) {
                let weight = kernel(time - Double(n))
                left += history[0][n] * weight
                if channels == 2 { right += history[1][n] * weight }
            }
            if channels == 1 { right = left }
            output.append(Int16(clamping: Int((left * gain).rounded())))
            output.append(Int16(clamping: Int((right * gain).rounded())))
            time += ratio
        }
        let used = Int(time) - reach
        if used > 0 {
            for channel in 0..<channels { history[channel].removeFirst(used) }
            time -= Double(used)
        }
        return output
    }
}

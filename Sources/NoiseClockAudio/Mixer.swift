/// A gain that moves in a straight line to its target, one step per frame, so a change of volume
/// is never a jump (a click).
public struct GainRamp: Sendable, Hashable {
    public private(set) var current: Float
    public private(set) var target: Float
    private var step: Float = 0

    public init(_ value: Float) {
        current = value
        target = value
    }

    /// Moves to `target` over `frames` frames (at once when `frames` is 0).
    public mutating func move(to target: Float, overFrames frames: Int) {
        self.target = target
        if frames <= 0 {
            current = target
            step = 0
        } else {
            step = (target - current) / Float(frames)
        }
    }

    public var isSettled: Bool { current == target }

    /// The gain for the next frame.
    public mutating func advance() -> Float {
        guard step != 0 else { return current }
        let next = current + step
        if (step > 0 && next >= target) || (step < 0 && next <= target) {
            current = target
            step = 0
        } else {
            current = next
        }
        return current
    }
}

/// Volume 0-100 as the user sets it, to a linear gain: squared, so that 50 sounds about half as
/// loud as 100 (-12 dB) rather than barely quieter.
public enum Volume {
    public static func gain(_ percent: Int) -> Float {
        let p = Float(max(0, min(100, percent))) / 100
        return p * p
    }
}

/// The software mixer: named inputs, each with its own smoothed gain, a smoothed master gain, and
/// saturation (a sum beyond 16 bits is clipped to the limit, never wrapped around).
/// Not thread-safe: the engine keeps it behind a lock.
public struct Mixer {
    /// No gain change is shorter than 20 ms.
    public static let minimumRampFrames = AudioFormat.frames(milliseconds: 20)

    final class Input {
        let id: String
        let source: SampleSource
        var gain: GainRamp
        var removeWhenSilent = false

        init(id: String, source: SampleSource, gain: GainRamp) {
            self.id = id
            self.source = source
            self.gain = gain
        }
    }

    private var inputs: [Input] = []
    private var master = GainRamp(1)
    private var scratch: [Int16] = []
    private var accumulator: [Int32] = []

    public init() {}

    public var isEmpty: Bool { inputs.isEmpty }
    /// Whether an input has sound to give now (`SampleSource.isReady`).
    public var hasReadyInput: Bool { inputs.contains { $0.source.isReady } }
    public var ids: [String] { inputs.map(\.id) }
    public var masterGain: Float { master.target }

    public func gain(of id: String) -> Float? { inputs.first { $0.id == id }?.gain.target }

    /// Adds (or replaces) input `id`, rising from silence to `gain` over `fadeInFrames`
    /// (`immediate` starts at `gain` at once: for tests and sample-exact output only).
    public mutating func add(_ id: String, source: SampleSource, gain: Float, fadeInFrames: Int, immediate: Bool = false) {
        inputs.removeAll { $0.id == id }
        var ramp = GainRamp(immediate ? gain : 0)
        if !immediate { ramp.move(to: gain, overFrames: max(fadeInFrames, Self.minimumRampFrames)) }
        inputs.append(Input(id: id, source: source, gain: ramp))
    }

    public mutating func setGain(_ id: String, to gain: Float, overFrames frames: Int) {
        guard let input = inputs.first(where: { $0.id == id }) else { return }
        input.gain.move(to: gain, overFrames: max(frames, Self.minimumRampFrames))
        input.removeWhenSilent = false
    }

    /// Fades input `id` to silence and then removes it.
    public mutating func fadeOut(_ id: String, overFrames frames: Int) {
        guard let input = inputs.first(where: { $0.id == id }) else { return }
        input.gain.move(to: 0, overFrames: max(frames, Self.minimumRampFrames))
        input.removeWhenSilent = true
    }

    public mutating func setMaster(_ gain: Float, overFrames frames: Int) {
        master.move(to: gain, overFrames: max(frames, Self.minimumRampFrames))
    }

    /// A gain (0 or more) as Q15 fixed point, rounded to nearest. A multiply and a truncating
    /// conversion: `Float.rounded()` is a call into libm for every sample on x86-64's baseline,
    /// and a ramp (an alarm's 30 s rise, every fade) renders whole buffers of them at once.
    @inline(__always)
    static func q15(_ gain: Float) -> Int32 { Int32(gain * 32_768 + 0.5) }

    /// Fills `output` with the next frames of the mix (silence when there is no input).
    public mutating func render(into output: UnsafeMutableBufferPointer<Int16>) {
        let frames = output.count / AudioFormat.channels
        let samples = frames * AudioFormat.channels
        if accumulator.count < samples { accumulator = [Int32](repeating: 0, count: samples) }
        if scratch.count < samples { scratch = [Int16](repeating: 0, count: samples) }

        // This runs 20 times a second for as long as noise plays: pointers, not checked array
        // subscripts, and no per-sample work for a gain that is settled at 1.
        var ended: [String] = []
        accumulator.withUnsafeMutableBufferPointer { sum in
            for i in 0..<samples { sum[i] = 0 }
            scratch.withUnsafeMutableBufferPointer { buffer in
                let part = UnsafeMutableBufferPointer(rebasing: buffer[0..<samples])
                for input in inputs {
                    let produced = input.source.render(into: part)
                    let count = produced * AudioFormat.channels
                    if input.gain.isSettled {
                        let gain = input.gain.current
                        if gain == 1 {
                            for i in 0..<count { sum[i] &+= Int32(part[i]) }
                        } else if gain != 0 {
                            // Fixed point (Q15), rounded to nearest: no float per sample.
                            let q15 = Self.q15(gain)
                            for i in 0..<count { sum[i] &+= (Int32(part[i]) &* q15 &+ 16_384) >> 15 }
                        }
                    } else {
                        // A ramp (a fade, an alarm's rise): the gain moves each frame, still in Q15.
                        for frame in 0..<frames {
                            let q15 = Self.q15(input.gain.advance())
                            guard frame < produced else { continue }
                            let base = frame * AudioFormat.channels
                            sum[base] &+= (Int32(part[base]) &* q15 &+ 16_384) >> 15
                            sum[base + 1] &+= (Int32(part[base + 1]) &* q15 &+ 16_384) >> 15
                        }
                    }
                    if produced < frames || (input.removeWhenSilent && input.gain.current == 0) { ended.append(input.id) }
                }
            }
            if master.isSettled && master.current == 1 {
                for i in 0..<samples { output[i] = Int16(clamping: sum[i]) }
            } else {
                // The sum of several inputs can pass 16 bits, so the gain gets 24 bits (Q15 would be
                // off by up to two steps there) and the products 64, then clipped.
                for frame in 0..<frames {
                    let q24 = Int64(master.advance() * 16_777_216 + 0.5)
                    let base = frame * AudioFormat.channels
                    output[base] = Int16(clamping: (Int64(sum[base]) &* q24 &+ 8_388_608) >> 24)
                    output[base + 1] = Int16(clamping: (Int64(sum[base + 1]) &* q24 &+ 8_388_608) >> 24)
                }
            }
        }
        if !ended.isEmpty { inputs.removeAll { ended.contains($0.id) } }
    }
}

// @unchecked Sendable: a Mixer and its sources are only used under AudioEngine's lock, by one
// thread at a time (the audio thread rendering, or a caller changing the mix).
extension Mixer: @unchecked Sendable {}

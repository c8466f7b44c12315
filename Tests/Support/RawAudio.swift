import Foundation

/// 16-bit samples of a raw ALSA file sink (`file:'PATH',raw`: 44.1 kHz, stereo, interleaved).
public func samples(_ path: String) -> [Int16] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

/// The RMS of the samples between `start` and `end` seconds into a raw sink file's samples.
public func rms(_ samples: [Int16], from start: Double, to end: Double) -> Double {
    let lower = min(samples.count, Int(start * 44_100) * 2), upper = min(samples.count, Int(end * 44_100) * 2)
    guard upper > lower else { return 0 }
    let window = samples[lower..<upper]
    return (window.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(window.count)).squareRoot()
}

/// The RMS of each consecutive `window`-second slice of a raw sink file's samples, in order.
/// Tests that look for a change of level use these instead of wall-clock positions: a sink on a
/// loaded machine can start late or fall behind, so "second 2 of the file" is not "2 s after the command".
public func windowedRMS(_ samples: [Int16], window: Double = 0.1) -> [Double] {
    let count = Int(window * 44_100) * 2
    guard count > 0 else { return [] }
    return stride(from: 0, to: samples.count - count + 1, by: count).map { start in
        rms(samples, from: Double(start) / 88_200, to: Double(start + count) / 88_200)
    }
}

/// The pitch of interleaved stereo samples (left channel) in Hz: its swings from below -1000 to
/// above +1000 a second (a hysteresis, so that the faint noise of a codec's silence counts none).
public func pitch(_ samples: [Int16]) -> Double {
    var swings = 0
    var high: Bool?
    for index in stride(from: 0, to: samples.count, by: 2) {
        let sample = samples[index]
        if sample > 1000, high != true {
            if high == false { swings += 1 }
            high = true
        } else if sample < -1000, high != false {
            high = false
        }
    }
    return Double(swings) / (Double(samples.count / 2) / 44_100.0)
}

/// The left channel of interleaved stereo samples, as numbers.
public func leftChannel(_ samples: [Int16]) -> [Double] {
    stride(from: 0, to: samples.count - 1, by: 2).map { Double(samples[$0]) }
}

/// The RMS of `signal` (at `rate`) between `low` and `high` Hz: a fourth-order band-pass, two RBJ
/// biquads each side (Butterworth Q), as `sox … sinc low-high stat` measures it. What tests of
/// speech and tones use to say where the energy is: speech has most of it from 300 to 3400 Hz.
public func bandRMS(_ signal: [Double], rate: Double = 44_100, low: Double, high: Double) -> Double {
    func biquad(_ input: [Double], highPass: Bool, frequency: Double) -> [Double] {
        let w = 2 * Double.pi * frequency / rate, alpha = sin(w) / (2 * 0.7071), c = cos(w)
        let b0 = highPass ? (1 + c) / 2 : (1 - c) / 2, b1 = highPass ? -(1 + c) : 1 - c, b2 = b0
        let a0 = 1 + alpha, a1 = -2 * c, a2 = 1 - alpha
        var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
        return input.map { x in
            let y = (b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2) / a0
            (x2, x1, y2, y1) = (x1, x, y1, y)
            return y
        }
    }
    var filtered = signal
    for _ in 0..<2 {
        filtered = biquad(filtered, highPass: true, frequency: low)
        filtered = biquad(filtered, highPass: false, frequency: high)
    }
    guard !filtered.isEmpty else { return 0 }
    return (filtered.reduce(0) { $0 + $1 * $1 } / Double(filtered.count)).squareRoot()
}

/// The RMS of all of `signal`.
public func totalRMS(_ signal: [Double]) -> Double {
    guard !signal.isEmpty else { return 0 }
    return (signal.reduce(0) { $0 + $1 * $1 } / Double(signal.count)).squareRoot()
}

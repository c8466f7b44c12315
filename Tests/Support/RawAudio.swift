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

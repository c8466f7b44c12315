import Foundation
import NoiseClockTestSupport
import Logging
@testable import NoiseClockAudio

/// A fresh folder, removed when the test's closure returns.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("audio-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Encodes interleaved 44.1 kHz 16-bit samples (`channels` of them) to an MP3 with lame, waiting
/// for it without holding a thread of the test pool.
func makeMP3(_ samples: [Int16], channels: Int, at path: String) async throws {
    let raw = path + ".raw"
    try samples.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: raw)) }
    defer { try? FileManager.default.removeItem(atPath: raw) }
    try await lame(["-m", channels == 1 ? "m" : "j", "-b", "128", raw, path])
}

/// Runs lame on raw 44.1 kHz 16-bit little-endian input (`arguments` after the input format).
func lame(_ arguments: [String], rate: String = "44.1") async throws {
    let (code, output) = try await runTool(
        "/usr/bin/lame", ["--silent", "-r", "-s", rate, "--bitwidth", "16", "--signed", "--little-endian"] + arguments)
    guard code == 0 else { throw AudioError(subject: arguments.last ?? "", reason: "lame failed: \(output)") }
}

/// `seconds` of a sine at `frequency`, mono, at `amplitude` of full scale.
func sine(seconds: Double, frequency: Double = 440, amplitude: Double = 0.5) -> [Int16] {
    let count = Int(seconds * 44_100)
    return (0..<count).map { Int16(amplitude * 32767 * sin(2 * .pi * frequency * Double($0) / 44_100)) }
}

/// The bytes of a file as 16-bit samples.
func samples(inFile path: String) -> [Int16] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

func quietLogger() -> Logger {
    var logger = Logger(label: "audio-test")
    logger.logLevel = .critical
    return logger
}

/// How long a test waits for a file decoded on a "loop decode" thread: it runs at nice 10 by
/// design, so while the whole suite keeps every core busy it can wait seconds for its turn.
let backgroundDecodeTimeout: Duration = .seconds(60)

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Root mean square of the samples.
func rms(_ samples: ArraySlice<Int16>) -> Double {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}

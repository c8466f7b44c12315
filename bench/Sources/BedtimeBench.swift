// The bedtime rows (`--only bedtime`, SPEC §13): an idle node with a light sensor configured (a
// fake iio folder) and the kids' clock on stays within the idle wake-up budget; a one-minute
// wind-down's sunset on a fake backlight follows the curve within 2 %.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport

/// `--bedtime-seconds N`: the idle window of the bedtime node (0 leaves the wake-ups row out).
let bedtimeSeconds = option("--bedtime-seconds", default: 180)

func bedtimeRows(brokerPort: Int) async throws -> [Row] {
    let root = try makeTemporaryDirectory("bedtime-bench")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let panel = "\(root)/panel", sensor = "\(root)/iio:device0"
    for folder in [panel, sensor] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
    for (file, value) in [("max_brightness", "10000"), ("brightness", "10000"), ("bl_power", "0")] {
        try "\(value)\n".write(toFile: "\(panel)/\(file)", atomically: true, encoding: .utf8)
    }
    try "40\n".write(toFile: "\(sensor)/in_illuminance_input", atomically: true, encoding: .utf8)
    let node = try NodeProcess(
        port: brokerPort, nodeID: "bedtime-bench",
        environment: ["NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_DISPLAY_BACKLIGHT": panel, "NOISECLOCK_DISPLAY_LIGHT_SENSOR": sensor])
    let process = try node.start(logLevel: "warning")
    defer { process.signal(SIGKILL) }
    let watcher = try await Probe(port: brokerPort, subscriptions: [node.topics.availability])
    while let message = await watcher.iterator.next(), message.text != "online" {}
    let client = try await CorrelatedClient(port: brokerPort, responseTopic: "bench/bedtime/answers")
    func ask(_ verb: String, _ payload: String) async throws -> JSONValue? {
        let correlation = "\(verb)-\(UUID().uuidString.prefix(6))"
        client.send(node.topics.command(verb), payload, correlation: correlation)
        let deadline = ContinuousClock.now + .seconds(30)
        while client.answer(correlation) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return client.answer(correlation)
    }
    var rows: [Row] = []
    // The kids' clock on, the night by the clock (the sensor configured, not read), the day at 100 %.
    let set = try await ask("settings", #"{"kids":{"enabled":true},"face":{"day_brightness":100,"night":{"enabled":false,"brightness":0}},"bedtime":{"wind_down_min":1,"sounds":[]}}"#)
    guard set?["status"] == "ok" else { throw BenchFailure(description: "bedtime: settings refused: \(set?.serialized ?? "no answer")") }

    if bedtimeSeconds > 0 {
        try await Task.sleep(for: .seconds(2))
        let switches = ThreadSwitches(pid: process.pid)
        switches.sample()
        let start = ContinuousClock.now
        while ContinuousClock.now < start + .seconds(bedtimeSeconds) {
            try await Task.sleep(for: .seconds(1))
            switches.sample()
        }
        let minutes = ms(ContinuousClock.now - start) / 60_000
        let threads = switches.threads
        let total = threads.reduce(0) { $0 + $1.switches }
        let perMinute = Double(total) / minutes
        let sensorThread = threads.contains { $0.name == "light sensor" }
        let perThread = threads.filter { $0.switches > 0 }.map { "\($0.name) \(f(Double($0.switches) / minutes, 1))" }
        progress("bedtime idle: \(total) switches in \(f(minutes * 60, 1)) s: \(perThread.joined(separator: ", "))")
        rows.append(Row(
            what: "idle wake-ups with a light sensor configured (display.light_sensor, night by the clock) and the kids' clock on, \(bedtimeSeconds) s: context switches over all threads, a minute",
            measured: "\(f(perMinute, 1)) a minute (\(total) in \(f(minutes * 60, 1)) s); per thread: \(perThread.joined(separator: ", ")); light sensor thread: \(sensorThread ? "ran" : "none")",
            baseline: "—", target: "≤ 4 a minute (SPEC §7)", met: perMinute <= 4 && !sensorThread))
    }

    // The sunset: a one-minute wind-down from 100 % to 0 %, the screen read every 200 ms.
    _ = try await ask("settings", #"{"kids":{"enabled":false}}"#)
    var screen: [(from: Double, until: Double, percent: Double)] = []
    let started = try await ask("bedtime/start", "")
    guard started?["status"] == "ok" else { throw BenchFailure(description: "bedtime/start: \(started?.serialized ?? "no answer")") }
    // The wind-down's own start (to the microsecond) is in bedtime.json once it is stored.
    var begin: Double?
    let stored = "\(node.stateDirectory)/bedtime.json"
    let readUntil = Date().addingTimeInterval(63)
    while Date() < readUntil {
        if begin == nil {
            begin = (try? JSONValue.parse(Array((try? Data(contentsOf: URL(fileURLWithPath: stored))) ?? Data())))?["wind_down"]?["started_at"]?.numberValue
        }
        let from = Date().timeIntervalSince1970
        if let percent = panelPercent(panel) { screen.append((from, Date().timeIntervalSince1970, percent)) }
        try await Task.sleep(for: .milliseconds(200))
    }
    guard let begin else { throw BenchFailure(description: "bedtime: no wind_down.started_at in \(stored)") }
    // As for the sunrise: a reading against the curve's range over its read and the 50 ms before.
    let stepLag = 0.05
    var deviation: [Double] = []
    var off: [String] = []
    for sample in screen where sample.from >= begin + stepLag && sample.from < begin + 60 {
        let high = Double(SunriseCurve.brightness((sample.from - stepLag - begin) / 60, from: 100, to: 0))
        let low = Double(SunriseCurve.brightness(min(1, (sample.until - begin) / 60), from: 100, to: 0))
        let distance = sample.percent < low ? low - sample.percent : sample.percent > high ? sample.percent - high : 0
        deviation.append(distance)
        if distance > 2 { off.append("\(f(sample.from - begin, 3)) s: screen \(f(sample.percent, 1)) %, curve \(f(low, 0))-\(f(high, 0)) %") }
    }
    if !off.isEmpty { progress("sunset: \(off.count) readings off the curve by more than 2 %: \(off.prefix(12).joined(separator: "; "))") }
    let ended = screen.last?.percent ?? .nan
    let worst = deviation.max() ?? .nan
    rows.append(Row(
        what: "sunset (a one-minute wind-down by bedtime/start, 100 % to the night's 0 %, a backlight of 10000 steps): screen vs SPEC §12's curve run down (over each reading and the 50 ms before it), max",
        measured: "within \(f(worst, 1)) % (\(deviation.count) readings); at the end \(f(ended, 1)) %",
        baseline: "—", target: "≤ 2 %, at the night level at the end", met: deviation.count >= 250 && worst <= 2 && ended == 0))
    process.signal(SIGTERM)
    _ = await process.waitForExit(timeout: .seconds(5))
    await client.stop()
    await watcher.client.stop(timeout: .milliseconds(200))
    return rows
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

// The sunrise row (`--only sunrise`, SPEC §12): 20 alarms with a one-minute sunrise on 5 nodes,
// each node driving one lamp (`wake.lights`, Zigbee2MQTT's schema, a command every 10 s) and a
// backlight in a fake sysfs tree. Every lamp command must come within 1 s of its step, the last at
// the ring at full; the screen must follow the curve within 2 %.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport

/// `--sunrise-rounds N`: sunrises per node, two minutes apart (4 × 5 nodes = 20).
let sunriseRounds = option("--sunrise-rounds", default: 4)

func sunriseRow(brokerPort: Int) async throws -> Row {
    let nodeCount = 5, interval = 10.0
    let zone = TimeZone(identifier: "Europe/Berlin") ?? .current
    var nodes: [(node: NodeProcess, process: ChildProcess, panel: String)] = []
    for index in 0..<nodeCount {
        let root = try makeTemporaryDirectory("sunrise-backlight")
        let panel = "\(root)/panel"
        try FileManager.default.createDirectory(atPath: panel, withIntermediateDirectories: true)
        for (file, value) in [("max_brightness", "10000"), ("brightness", "0"), ("bl_power", "0")] {
            try "\(value)\n".write(toFile: "\(panel)/\(file)", atomically: true, encoding: .utf8)
        }
        let configuration = "wake:\n  lights:\n    - topic: bench/lamp-\(index)/set\n      min_interval_s: \(Int(interval))\n"
        let node = try NodeProcess(
            port: brokerPort, nodeID: "sunrise-\(index)",
            environment: ["NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_DISPLAY_BACKLIGHT": panel], configuration: configuration)
        nodes.append((node, try node.start(logLevel: "warning"), panel))
    }
    defer { for entry in nodes { entry.process.signal(SIGKILL) } }
    let watcher = try await Probe(port: brokerPort, subscriptions: nodes.flatMap { [$0.node.topics.event, $0.node.topics.availability] })
    var online = 0
    while online < nodeCount, let message = await watcher.iterator.next() {
        if message.text == "online" { online += 1 }
    }
    let client = try await CorrelatedClient(port: brokerPort, responseTopic: "bench/sunrise/answers")
    // A night all day at 0 %, so the screen's level is the sunrise's alone.
    for (index, entry) in nodes.enumerated() {
        client.send(
            entry.node.topics.command("settings"), #"{"face":{"night":{"enabled":true,"start":"00:00","end":"23:59","brightness":0}}}"#,
            correlation: "night-\(index)")
    }
    // Alarms two minutes apart, the first at the next whole minute at least 90 s away, each with a
    // one-minute sunrise; a dismiss after each round's rings.
    let (first, formatter) = alarmMinutes(atLeast: 90, in: zone)
    var adds: [String] = []
    var rings: [Date] = []
    for round in 0..<sunriseRounds {
        let ring = first.addingTimeInterval(Double(round * 120))
        rings.append(ring)
        for entry in nodes {
            let correlation = "add-\(adds.count)"
            client.send(
                entry.node.topics.command("alarm/add"), #"{"time":"\#(formatter.string(from: ring))","sunrise_min":1,"lights":true,"label":"bench"}"#,
                correlation: correlation)
            adds.append(correlation)
        }
    }
    let addDeadline = ContinuousClock.now + .seconds(60)
    while client.answeredCount(adds) < adds.count, ContinuousClock.now < addDeadline { try await Task.sleep(for: .milliseconds(50)) }
    let added = adds.filter { client.answer($0)?["status"] == "ok" }.count
    progress("sunrise: \(added) alarms on \(nodeCount) nodes, the first ringing at \(formatter.string(from: first))")

    let stamps = try await StampedSubscriber(brokerPort: brokerPort, topics: (0..<nodeCount).map { "bench/lamp-\($0)/set" })
    // The screens, read every 200 ms through each sunrise: (read from, read until, node, percent).
    var screen: [(from: Double, until: Double, node: Int, percent: Double)] = []
    let end = (rings.last ?? first).addingTimeInterval(3)
    var ringingThisRound = 0
    while Date() < end {
        for (index, entry) in nodes.enumerated() {
            let from = Date().timeIntervalSince1970
            guard let percent = panelPercent(entry.panel) else { continue }
            screen.append((from, Date().timeIntervalSince1970, index, percent))
        }
        while let message = await watcher.nextAny(timeout: .milliseconds(200)) {
            guard message.topic.hasSuffix("/event"), (try? JSONValue.parse(message.payload))?["event"] == "alarm_ringing" else { continue }
            ringingThisRound += 1
            if ringingThisRound == nodeCount {
                watcher.client.publish(MQTTMessage(topic: "noiseclock/all/cmd/dismiss", payload: []))
                ringingThisRound = 0
            }
        }
    }
    let commands = try await stamps.finish()

    // Each lamp command against its step: start + k × interval, and the ring at full.
    var lateness: [Double] = []
    var fullAtRing = 0
    for ring in rings.map(\.timeIntervalSince1970) {
        let start = ring - 60
        for index in 0..<nodeCount {
            let mine = commands.filter { $0.topic == "bench/lamp-\(index)/set" && $0.received >= start - 1 && $0.received < ring + 5 }
            for (k, command) in mine.enumerated() {
                let step = min(ring, start + Double(k) * interval)
                lateness.append(abs(command.received - step) * 1000)
            }
            if let last = mine.last, last.payload["brightness"] == 254, abs(last.received - ring) <= 1 { fullAtRing += 1 }
        }
    }
    // The screen against the curve while it was read, during the sunrises (the backlight steps in
    // whole percents at the instants the curve crosses them: the curve's value rounded is what it
    // should show). A step is a timer like any other and may come a few milliseconds late (alarm
    // accuracy measures that), so a reading is held against the curve over its read and the
    // `stepLag` before it: its deviation is its distance from the curve's range over that window.
    // (So the readings held against it begin `stepLag` into the sunrise: before, the screen may
    // still show what it showed before the sunrise, the full light of the last round's wake-up.)
    let stepLag = 0.05
    var deviation: [Double] = []
    var off: [String] = []
    for sample in screen {
        guard let ring = rings.map(\.timeIntervalSince1970).first(where: { sample.from >= $0 - 60 + stepLag && sample.from < $0 }) else { continue }
        let start = ring - 60
        let low = Double(SunriseCurve.backlight((sample.from - stepLag - start) / 60, from: 0))
        let high = Double(SunriseCurve.backlight(min(1, (sample.until - start) / 60), from: 0))
        let distance = sample.percent < low ? low - sample.percent : sample.percent > high ? sample.percent - high : 0
        deviation.append(distance)
        if distance > 2 {
            off.append("node \(sample.node) at \(f(sample.from - start, 3)) s into the sunrise of \(f(ring, 0)) (read in \(f((sample.until - sample.from) * 1000, 1)) ms): screen \(f(sample.percent, 1)) %, curve \(f(low, 0))-\(f(high, 0)) %")
        }
    }
    // Readings off the curve, to tell a harness race from a late or stale screen.
    if !off.isEmpty { progress("sunrise: \(off.count) readings off the curve by more than 2 %: \(off.prefix(12).joined(separator: "; "))") }
    for entry in nodes { entry.process.signal(SIGTERM) }
    for entry in nodes { _ = await entry.process.waitForExit(timeout: .seconds(5)) }
    await client.stop()
    await watcher.client.stop(timeout: .milliseconds(200))

    let expectedCommands = added * 7  // 6 steps of 10 s, and full at the ring
    let worst = lateness.max() ?? .nan, worstScreen = deviation.max() ?? .nan
    return Row(
        what: "sunrise (\(added) alarms with a 1-minute sunrise on \(nodeCount) nodes, a lamp each, a command every 10 s; a backlight each): lamp commands vs their step p99 / max, at full at the ring; screen vs the curve (over each reading and the 50 ms before it), max",
        measured: "\(f(percentile(lateness, 99), 0)) / \(f(worst, 0)) ms (\(lateness.count) of \(expectedCommands) commands), \(fullAtRing) of \(added) full at the ring; screen within \(f(worstScreen, 1)) % (\(deviation.count) readings)",
        baseline: "—", target: "each ≤ 1000 ms, all full at the ring; ≤ 2 %",
        met: added >= 20 && lateness.count >= expectedCommands && worst <= 1000 && fullAtRing == added && worstScreen <= 2)
}

/// A fake panel's level in percent, read as a consistent pair: `bl_power` and `brightness` are two
/// files the node writes one after the other (the level first, then the power), so a read that
/// straddles the node's writes could pair an old level with a new power; and in this fake tree of
/// plain files (not sysfs, whose writes are atomic) a file is empty for the instant between the
/// node's `O_TRUNC` and its write, which is no level at all (a first whole run read such an empty
/// `bl_power` as "off" in mid-sunrise, at the very steps all five nodes took together). Reads
/// until two whole reads in a row agree; nil when none do in 20 tries. At `bl_power` other than 0
/// the panel is off (0 %) whatever `brightness` says.
func panelPercent(_ panel: String) -> Double? {
    func number(_ file: String) -> Int? {
        (try? String(contentsOfFile: "\(panel)/\(file)", encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
    func read() -> (power: Int, level: Int)? {
        guard let power = number("bl_power"), let level = number("brightness") else { return nil }
        return (power, level)
    }
    var last = read()
    for _ in 0..<20 {
        let next = read()
        if let next, let previous = last, next == previous { return next.power == 0 ? Double(next.level) / 100 : 0 }
        last = next
    }
    return nil
}

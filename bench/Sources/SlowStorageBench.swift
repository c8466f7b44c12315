// The slow-storage row (`--only slow-storage`, SPEC §7): every fsync 300 ms slower (the faultfs
// shim, Tests/FaultFS), a stored command every 100 ms on each node and a ping every 100 ms, while
// 20 alarms on 5 nodes ring together. Nothing may wait for the disk but the stored commands.
// The slow-reads row (`--only slow-reads`) is the same with every open of an `.mp3` 400 ms slower
// (a cold card) and a noise change every 300 ms on each node: no file is opened on the loop.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport

/// `--slow-storage-minutes N`: minutes of alarms (one per node per minute); 4 × 5 nodes = 20.
let slowStorageMinutes = option("--slow-storage-minutes", default: 4)
/// `--slow-storage-delay-ms N`: what the shim adds to every fsync and fdatasync.
let slowStorageDelay = option("--slow-storage-delay-ms", default: 300)
/// `--slow-reads-delay-ms N`: what the shim adds to every open of an `.mp3`.
let slowReadsDelay = option("--slow-reads-delay-ms", default: 400)

/// What the disk makes slow, and the load that meets it.
enum SlowDisk {
    /// Every fsync slower; a settings change every 100 ms on each node (each one written).
    case storage
    /// Every open of a sound file slower; a noise change every 300 ms on each node (each one opened).
    case reads
}

func slowStorageRow(brokerPort: Int) async throws -> Row { try await slowDiskRow(.storage, brokerPort: brokerPort) }

func slowReadsRow(brokerPort: Int) async throws -> Row { try await slowDiskRow(.reads, brokerPort: brokerPort) }

func slowDiskRow(_ disk: SlowDisk, brokerPort: Int) async throws -> Row {
    let name = disk == .storage ? "slow storage" : "slow reads"
    let nodeCount = 5
    let library = try await FaultFS.library()
    var nodes: [(NodeProcess, ChildProcess)] = []
    for index in 0..<nodeCount {
        let state = try makeTemporaryDirectory("state")
        let node = try NodeProcess(
            port: brokerPort, nodeID: "slow-\(index)", stateDirectory: state,
            environment: ["NOISECLOCK_AUDIO_DEVICE": "null"].merging(
                FaultFS.environment(
                    library: library, stateDirectory: state, control: "/nonexistent",
                    delayMilliseconds: disk == .storage ? slowStorageDelay : 0, openDelayMilliseconds: disk == .reads ? slowReadsDelay : 0)
            ) { a, _ in a })
        nodes.append((node, try node.start(logLevel: "warning")))
    }
    defer { for (_, process) in nodes { process.signal(SIGKILL) } }
    let watcher = try await Probe(
        port: brokerPort, subscriptions: nodes.flatMap { [$0.0.topics.event, $0.0.topics.availability] })
    var online = 0
    while online < nodeCount, let message = await watcher.iterator.next() {
        if message.text == "online" { online += 1 }
    }
    let client = try await CorrelatedClient(port: brokerPort, responseTopic: "bench/slow-storage/answers")

    // One-shot alarms at the next whole minutes at least 20 s away (each add waits for its write).
    let (firstMinute, formatter) = alarmMinutes(atLeast: 20, in: TimeZone(identifier: "Europe/Berlin") ?? .current)
    var adds: [String] = []
    for minute in 0..<slowStorageMinutes {
        let time = formatter.string(from: firstMinute.addingTimeInterval(Double(minute * 60)))
        for (node, _) in nodes {
            let correlation = "add-\(adds.count)"
            client.send(node.topics.command("alarm/add"), #"{"time":"\#(time)","label":"bench"}"#, correlation: correlation)
            adds.append(correlation)
        }
    }
    let addDeadline = ContinuousClock.now + .seconds(60)
    while client.answeredCount(adds) < adds.count, ContinuousClock.now < addDeadline { try await Task.sleep(for: .milliseconds(50)) }
    let added = adds.filter { client.answer($0)?["status"] == "ok" }.count
    progress(
        "\(name): \(added) alarms on \(nodeCount) nodes, first at \(formatter.string(from: firstMinute)); "
            + (disk == .storage ? "fsync +\(slowStorageDelay) ms" : "open of an .mp3 +\(slowReadsDelay) ms"))

    // The load: every 100 ms a settings change on each node (alternating, so each one changes
    // something and is written) and a ping to one of them, until the last alarm has rung.
    let stamps = try await StampedSubscriber(brokerPort: brokerPort, topics: nodes.map { $0.0.topics.event })
    var stored: [(String, ContinuousClock.Instant)] = []
    var pings: [(String, ContinuousClock.Instant)] = []
    let loadEnds = ContinuousClock.now + .seconds(Int64(firstMinute.timeIntervalSinceNow) + Int64(slowStorageMinutes * 60 + 5))
    var rang = 0
    var ringingThisMinute = 0
    var tick = 0
    var next = ContinuousClock.now
    while ContinuousClock.now < loadEnds {
        for (index, (node, _)) in nodes.enumerated() where disk == .storage || tick % 3 == 0 {
            let correlation = "set-\(stored.count)"
            if disk == .storage {
                client.send(node.topics.command("settings"), #"{"show_seconds":\#((tick + index) % 2 == 0)}"#, correlation: correlation)
            } else {
                // Every 300 ms another sound, so each change opens a file.
                let sound = ["pink-noise", "brown-noise"][(tick / 3 + index) % 2]
                client.send(node.topics.command("noise/play"), #"{"sound":"\#(sound)"}"#, correlation: correlation)
            }
            stored.append((correlation, ContinuousClock.now))
        }
        let correlation = "ping-\(pings.count)"
        client.send(nodes[tick % nodeCount].0.topics.command("ping"), "", correlation: correlation)
        pings.append((correlation, ContinuousClock.now))
        tick += 1
        next += .milliseconds(100)
        // Rings seen meanwhile: once every node has rung this minute, one dismiss for all.
        while let message = await watcher.nextAny(timeout: max(.zero, next - ContinuousClock.now)) {
            guard message.topic.hasSuffix("/event"), let event = try? JSONValue.parse(message.payload),
                  event["event"] == "alarm_ringing"
            else { continue }
            rang += 1
            ringingThisMinute += 1
            if ringingThisMinute == nodeCount {
                watcher.client.publish(MQTTMessage(topic: "noiseclock/all/cmd/dismiss", payload: []))
                ringingThisMinute = 0
            }
        }
    }
    let settle = ContinuousClock.now + .seconds(10)
    while client.answeredCount(stored.map(\.0)) < stored.count, ContinuousClock.now < settle { try await Task.sleep(for: .milliseconds(100)) }
    let stamped = try await stamps.finish()
    let lateness = StampedSubscriber.lateness(stamped, field: "fires_at") { $0.payload["event"] == "alarm_ringing" }
    func latencies(_ sent: [(String, ContinuousClock.Instant)]) -> [Double] {
        sent.compactMap { correlation, at in client.arrival(correlation).map { ms($0 - at) } }
    }
    let storedLatency = latencies(stored)
    let storedOK = stored.filter { client.answer($0.0)?["status"] == "ok" }.count
    let pingLatency = latencies(pings)
    // Where the time goes: each minute's rings in the order they arrived, and the slowest pings
    // with how far they were sent from the nearest ring.
    let rings = stamped.filter { $0.payload["event"] == "alarm_ringing" }
    let ringLines = Dictionary(grouping: zip(rings, lateness), by: { $0.0.payload["fires_at"]?.stringValue ?? "" })
        .sorted { $0.key < $1.key }
        .map { minute, group in group.map { "\($0.0.topic.split(separator: "/").dropFirst().first ?? "") \(f($0.1, 1))" }.joined(separator: ", ") }
    progress("\(name): rings late (ms), by minute in arrival order: \(ringLines.joined(separator: " | "))")
    let nowWall = Date().timeIntervalSince1970, nowMono = ContinuousClock.now
    let slowest = pings.compactMap { correlation, at in client.arrival(correlation).map { (ms($0 - at), at) } }.sorted { $0.0 > $1.0 }.prefix(8)
    let slowLines = slowest.map { latency, at in
        let sentWall = nowWall - Double((nowMono - at).components.attoseconds) / 1e18 - Double((nowMono - at).components.seconds)
        let fromRing = rings.map { ($0.received - sentWall) * 1000 }.min { abs($0) < abs($1) } ?? .nan
        return "\(f(latency, 1)) ms (sent \(f(-fromRing, 0)) ms from a ring)"
    }
    progress("\(name): slowest pings: \(slowLines.joined(separator: ", "))")
    for (_, process) in nodes { process.signal(SIGTERM) }
    for (_, process) in nodes { _ = await process.waitForExit(timeout: .seconds(5)) }
    await client.stop()
    await watcher.client.stop(timeout: .milliseconds(200))

    let ringP99 = percentile(lateness, 99), pingP99 = percentile(pingLatency, 99), storedP99 = percentile(storedLatency, 99)
    if disk == .reads {
        return Row(
            what: "slow reads (every open of an .mp3 +\(slowReadsDelay) ms; a noise change every 300 ms on each of \(nodeCount) nodes, a ping every 100 ms; \(lateness.count) of \(added) alarms ringing together): ring lateness p99 / ping p99 / noise answers p50, p99 (ok of sent)",
            measured: "\(f(ringP99, 1)) / \(f(pingP99, 1)) / \(f(percentile(storedLatency, 50), 0)), \(f(storedP99, 0)) ms (\(storedOK) of \(stored.count))",
            baseline: "—", target: "≤ 10 / ≤ 5 ms",
            met: lateness.count == added && added >= 20 && ringP99 <= 10 && pingP99 <= 5)
    }
    return Row(
        what: "slow storage (every fsync +\(slowStorageDelay) ms; a settings change every 100 ms on each of \(nodeCount) nodes, a ping every 100 ms; \(lateness.count) of \(added) alarms ringing together): ring lateness p99 / ping p99 / stored answers p50, p99 (ok of sent)",
        measured: "\(f(ringP99, 1)) / \(f(pingP99, 1)) / \(f(percentile(storedLatency, 50), 0)), \(f(storedP99, 0)) ms (\(storedOK) of \(stored.count))",
        baseline: "—", target: "≤ 10 / ≤ 5 / p99 ≤ 1500 ms, none lost",
        met: lateness.count == added && added >= 20 && ringP99 <= 10 && pingP99 <= 5 && storedP99 <= 1500 && storedOK == stored.count)
}

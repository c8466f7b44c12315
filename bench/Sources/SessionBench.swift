// The timer and meditation rows (`--only sessions`): a timer ring and a meditation gong are timed
// like an alarm (SPEC §7 "alarm accuracy", §10): the event at a subscriber minus its due instant,
// with several nodes ringing together.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport

/// `--session-nodes N`: nodes ringing together (the alarm row uses 5).
let sessionNodes = option("--session-nodes", default: 5)
/// `--session-wake-seconds N`: the wake-ups window with two timers running and a meditation paused.
let sessionWakeSeconds = option("--session-wake-seconds", default: 120)

func sessionRows(brokerPort: Int) async throws -> [Row] {
    var rows: [Row] = []
    var nodes: [(NodeProcess, ChildProcess)] = []
    for index in 0..<sessionNodes {
        let node = try NodeProcess(
            port: brokerPort, nodeID: "session-\(index)",
            environment: ["NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_TIMERS_RING_TIMEOUT_S": "5"])
        nodes.append((node, try node.start(logLevel: "warning")))
    }
    defer { for (_, process) in nodes { process.signal(SIGKILL) } }
    let probe = try await Probe(
        port: brokerPort,
        subscriptions: nodes.flatMap {
            [$0.0.topics.event, $0.0.topics.availability, $0.0.topics.response("timer/start"), $0.0.topics.response("meditation/start"),
             $0.0.topics.response("meditation/stop")]
        })
    var online = 0
    while online < nodes.count, let message = await probe.iterator.next() {
        if message.text == "online" { online += 1 }
    }

    // Timers: four on each node, 6, 9, 12 and 15 s out (each ends on a whole second, so the nodes'
    // timers end together).
    let iso = ISO8601DateFormatter()
    var due: [String: Date] = [:]
    for seconds in [6, 9, 12, 15] {
        for (node, _) in nodes {
            probe.client.publish(MQTTMessage(topic: node.topics.command("timer/start"), payload: Array(#"{"seconds":\#(seconds),"label":"bench"}"#.utf8)))
            guard let answer = await probe.next(on: node.topics.response("timer/start")),
                  let data = try? JSONValue.parse(answer.payload)["data"],
                  let id = data["id"]?.stringValue, let end = data["ends_at"]?.stringValue.flatMap(iso.date(from:))
            else { continue }
            due[id] = end
        }
    }
    // Timed by a subscriber that stamps each message as it arrives (Stamps.swift).
    let timerStamps = try await StampedSubscriber(brokerPort: brokerPort, topics: nodes.map { $0.0.topics.event })
    var finished = 0
    let until = ContinuousClock.now + .seconds(30)
    while finished < due.count, ContinuousClock.now < until {
        guard let message = await probe.nextAny(timeout: .seconds(1)) else { continue }
        guard message.topic.hasSuffix("/event"), let event = try? JSONValue.parse(message.payload),
              event["event"] == "timer_finished", let id = event["timer_id"]?.stringValue, due[id] != nil
        else { continue }
        finished += 1
    }
    let lateness = try await timerStamps.finish().compactMap { message -> Double? in
        guard message.payload["event"] == "timer_finished", let id = message.payload["timer_id"]?.stringValue, let end = due[id] else { return nil }
        return (message.received - end.timeIntervalSince1970) * 1000
    }
    let p99 = percentile(lateness, 99)
    rows.append(Row(
        what: "timer accuracy (\(lateness.count) of \(due.count) timers, \(nodes.count) nodes ringing together): timer_finished received by mosquitto_sub − ends_at, p50 / p99 / max",
        measured: "\(f(percentile(lateness, 50), 1)) / \(f(p99, 1)) / \(f(lateness.max() ?? .nan, 1)) ms",
        baseline: "—", target: "p99 ≤ 10 ms", met: lateness.count == due.count && due.count >= 20 && p99 <= 10))
    progress("timer accuracy done")

    // Gongs: four rounds of a session started on every node at once; the start gong of each falls
    // on the same whole second (`next_gong_at`), and `meditation_started` is sent as it is struck.
    var gongDue: [String: Date] = [:]
    var gongLateness: [Double] = []
    let gongStamps = try await StampedSubscriber(brokerPort: brokerPort, topics: nodes.map { $0.0.topics.event })
    for _ in 0..<4 {
        gongDue = [:]
        for (node, _) in nodes {
            probe.client.publish(MQTTMessage(
                topic: node.topics.command("meditation/start"), payload: Array(#"{"minutes":5,"preparation_s":2,"gong":"soft-bell"}"#.utf8)))
            guard let answer = await probe.next(on: node.topics.response("meditation/start")),
                  let data = try? JSONValue.parse(answer.payload)["data"],
                  let gong = data["next_gong_at"]?.stringValue.flatMap(iso.date(from:))
            else { continue }
            gongDue[node.topics.event] = gong
        }
        var struck = 0
        let roundEnds = ContinuousClock.now + .seconds(10)
        while struck < gongDue.count, ContinuousClock.now < roundEnds {
            guard let message = await probe.nextAny(timeout: .seconds(1)) else { continue }
            guard gongDue[message.topic] != nil, let event = try? JSONValue.parse(message.payload),
                  event["event"] == "meditation_started"
            else { continue }
            struck += 1
        }
        // This round's gongs, as the stamping subscriber received them (each node's first
        // `meditation_started` after the round's start).
        let round = try await gongStamps.take()
        for (topic, due) in gongDue {
            guard let message = round.first(where: { $0.topic == topic && $0.payload["event"] == "meditation_started" }) else { continue }
            gongLateness.append((message.received - due.timeIntervalSince1970) * 1000)
        }
        for (node, _) in nodes {
            probe.client.publish(MQTTMessage(topic: node.topics.command("meditation/stop"), payload: []))
            _ = await probe.next(on: node.topics.response("meditation/stop"))
        }
    }
    _ = try await gongStamps.finish()
    let gongP99 = percentile(gongLateness, 99)
    rows.append(Row(
        what: "gong accuracy (\(gongLateness.count) start gongs, \(nodes.count) nodes striking together): meditation_started received by mosquitto_sub − next_gong_at, p50 / p99 / max",
        measured: "\(f(percentile(gongLateness, 50), 1)) / \(f(gongP99, 1)) / \(f(gongLateness.max() ?? .nan, 1)) ms",
        baseline: "—", target: "p99 ≤ 10 ms", met: gongLateness.count >= 20 && gongP99 <= 10))
    progress("gong accuracy done")

    // Wake-ups with two timers running and a meditation paused (SPEC §7's idle budget, §10).
    if sessionWakeSeconds > 0, let (node, process) = nodes.first {
        for minutes in [45, 90] {
            probe.client.publish(MQTTMessage(topic: node.topics.command("timer/start"), payload: Array("\(minutes)".utf8)))
            _ = await probe.next(on: node.topics.response("timer/start"))
        }
        probe.client.publish(MQTTMessage(topic: node.topics.command("meditation/start"), payload: Array(#"{"minutes":30,"preparation_s":0}"#.utf8)))
        _ = await probe.next(on: node.topics.response("meditation/start"))
        probe.client.publish(MQTTMessage(topic: node.topics.command("meditation/pause"), payload: []))
        // The start gong rings out (up to 30 s) before the window opens.
        try await Task.sleep(for: .seconds(35))
        let switches = ThreadSwitches(pid: process.pid)
        switches.sample()
        let start = ContinuousClock.now
        while ContinuousClock.now < start + .seconds(sessionWakeSeconds) {
            try await Task.sleep(for: .seconds(1))
            switches.sample()
        }
        let minutes = ms(ContinuousClock.now - start) / 60_000
        let threads = switches.threads
        let total = threads.reduce(0) { $0 + $1.switches }
        let perMinute = Double(total) / minutes
        let perThread = threads.filter { $0.switches > 0 }.map { "\($0.name) \(f(Double($0.switches) / minutes, 1))" }
        rows.append(Row(
            what: "wake-ups with two timers running and a meditation paused (keepalive 30 s), \(sessionWakeSeconds) s: voluntary + involuntary context switches over all threads, a minute",
            measured: "\(f(perMinute, 1)) a minute: \(perThread.joined(separator: ", "))", baseline: "—", target: "≤ 10 a minute",
            met: perMinute <= 10))
        progress("session wake-ups done")
    }

    for (_, process) in nodes { process.signal(SIGTERM) }
    for (_, process) in nodes { _ = await process.waitForExit(timeout: .seconds(3)) }
    await probe.client.stop(timeout: .milliseconds(200))
    return rows
}

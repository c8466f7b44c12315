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
        subscriptions: nodes.flatMap { [$0.0.topics.event, $0.0.topics.availability, $0.0.topics.response("timer/start")] })
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
    var lateness: [Double] = []
    let until = ContinuousClock.now + .seconds(30)
    while lateness.count < due.count, ContinuousClock.now < until {
        guard let message = await probe.nextAny(timeout: .seconds(1)) else { continue }
        let received = Date()
        guard message.topic.hasSuffix("/event"), let event = try? JSONValue.parse(message.payload),
              event["event"] == "timer_finished", let id = event["timer_id"]?.stringValue, let end = due[id]
        else { continue }
        lateness.append(received.timeIntervalSince(end) * 1000)
    }
    let p99 = percentile(lateness, 99)
    rows.append(Row(
        what: "timer accuracy (\(lateness.count) of \(due.count) timers, \(nodes.count) nodes ringing together): timer_finished received − ends_at, p50 / p99 / max",
        measured: "\(f(percentile(lateness, 50), 1)) / \(f(p99, 1)) / \(f(lateness.max() ?? .nan, 1)) ms",
        baseline: "—", target: "p99 ≤ 50 ms", met: lateness.count == due.count && due.count >= 20 && p99 <= 50))
    progress("timer accuracy done")

    for (_, process) in nodes { process.signal(SIGTERM) }
    for (_, process) in nodes { _ = await process.waitForExit(timeout: .seconds(3)) }
    await probe.client.stop(timeout: .milliseconds(200))
    return rows
}

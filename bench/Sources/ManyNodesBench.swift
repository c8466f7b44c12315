// SPEC §7 "many nodes": a fleet of nodes on one broker (50, and 1000 as in a care home or a hotel
// with a clock in every room), one command on `<base>/all/cmd/dismiss` answered by every node on
// its `B/response/dismiss`; for the large fleet also its total memory and idle CPU.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport

/// The sum over processes of `voluntary_ctxt_switches` of every thread (a wake-up each).
func wakeUps(_ pids: [pid_t]) -> Int {
    pids.reduce(0) { total, pid in
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return total + tasks.reduce(0) { sum, tid in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/status", encoding: .utf8),
                  let line = text.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
                  let count = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "")
            else { return sum }
            return sum + count
        }
    }
}

/// Proportional set size of a process in MB (`Pss` of /proc/PID/smaps_rollup): its own pages
/// plus its share of those it shares, so a sum over processes counts shared libraries once.
func pss(_ pid: pid_t) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") }),
          let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return .nan }
    return kilobytes / 1024
}

func fleetRow(brokerPort: Int, brokerPID: pid_t?, size: Int, rounds: Int, targetP99: Double, idleSeconds: Int) async throws -> Row {
    progress("many nodes: starting \(size) nodes")
    let probe = try await Probe(port: brokerPort, subscriptions: ["noiseclock/+/availability"])
    var fleet: [(node: NodeProcess, process: ChildProcess)] = []
    let startedAt = ContinuousClock.now
    for _ in 0..<size {
        let member = try NodeProcess(port: brokerPort, environment: ["NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_BATTERY_SOURCE": "none"])
        fleet.append((member, try member.start(logLevel: "warning")))
    }
    let dismissTopics = Set(fleet.map { $0.node.topics.response("dismiss") })
    let availabilityTopics = Set(fleet.map { $0.node.topics.availability })
    var online: Set<String> = []
    let onlineBy = ContinuousClock.now + .seconds(max(60, size / 2))
    while online.count < size, ContinuousClock.now < onlineBy {
        guard let message = await probe.nextAny(timeout: .seconds(1)) else { continue }
        if availabilityTopics.contains(message.topic), message.text == "online" { online.insert(message.topic) }
    }
    let startSeconds = ms(ContinuousClock.now - startedAt) / 1000
    progress("many nodes: \(online.count) of \(size) online after \(f(startSeconds, 1)) s")
    let pids = fleet.map(\.process.pid)

    // The idle fleet: its CPU (utime + stime of every node), wake-ups and memory, once settled.
    var idle = ""
    if idleSeconds > 0 {
        try await Task.sleep(for: .seconds(10))
        let cpuStart = pids.reduce(0) { $0 + cpuSeconds($1) }, wakeStart = wakeUps(pids)
        let brokerStart = brokerPID.map(cpuSeconds) ?? .nan
        let began = ContinuousClock.now
        try await Task.sleep(for: .seconds(idleSeconds))
        let seconds = ms(ContinuousClock.now - began) / 1000
        let cpu = (pids.reduce(0) { $0 + cpuSeconds($1) } - cpuStart) / seconds * 100
        let wakes = Double(wakeUps(pids) - wakeStart) / seconds
        let brokerCPU = brokerPID.map { (cpuSeconds($0) - brokerStart) / seconds * 100 } ?? .nan
        let anonymous = pids.reduce(0) { $0 + procStatus($1, "RssAnon") }
        let proportional = pids.reduce(0) { $0 + pss($1) }
        let brokerRSS = brokerPID.map { procStatus($0, "VmRSS") } ?? .nan
        idle = "; idle, all \(size) over \(idleSeconds) s: CPU \(f(cpu, 2)) % of a core in all (\(f(cpu / Double(size), 4)) % each), "
            + "\(f(wakes, 1)) wake-ups/s in all, memory RssAnon \(f(anonymous / 1024, 2)) GB in all (\(f(anonymous / Double(size), 2)) MB each), "
            + "PSS \(f(proportional / 1024, 2)) GB in all; the broker \(f(brokerCPU, 2)) % CPU, \(f(brokerRSS, 1)) MB RSS"
        progress("many nodes: \(idle)")
    }

    // Each node's answer within 5 s of its round's publish, matched by the round's transaction and
    // timed by a subscriber that stamps each message as it arrives (Stamps.swift: the bench's own
    // Swift client would add its handling of a thousand answers in a row to the later ones); round
    // 0 warms up and is not counted.
    let stamps = try await StampedSubscriber(brokerPort: brokerPort, topics: ["noiseclock/+/response/dismiss"])
    var latencies: [Double] = []
    var answeredPerRound: [Int] = []
    var statuses: [String: Int] = [:]
    for round in 0...rounds {
        let transaction = "many-\(round)"
        _ = try await stamps.take()
        let published = Date().timeIntervalSince1970
        probe.client.publish(MQTTMessage(topic: "noiseclock/all/cmd/dismiss", payload: Array(#"{"transaction":"\#(transaction)"}"#.utf8)))
        try await Task.sleep(for: .seconds(size > 100 ? 3 : 1))
        var answered: Set<String> = []
        var times: [Double] = []
        for message in try await stamps.take()
        where dismissTopics.contains(message.topic) && message.payload["transaction"]?.stringValue == transaction
            && message.received - published <= 5 && answered.insert(message.topic).inserted {
            times.append((message.received - published) * 1000)
            if round > 0 {
                let answer = message.payload
                let status = answer["status"]?.stringValue == "ok" ? "ok" : answer["error"]?["code"]?.stringValue ?? "?"
                statuses[status, default: 0] += 1
            }
        }
        if round > 0 {
            latencies += times
            answeredPerRound.append(answered.count)
        }
    }
    _ = try await stamps.finish()
    // `exit(0)` at the end skips every deinit: stop the nodes here.
    for member in fleet { member.process.signal(SIGTERM) }
    var stoppedCleanly = 0
    for member in fleet {
        if await member.process.waitForExit(timeout: .seconds(5)) != nil {
            stoppedCleanly += 1
        } else {
            member.process.signal(SIGKILL)
            _ = await member.process.waitForExit(timeout: .seconds(2))
        }
        try? FileManager.default.removeItem(atPath: member.node.stateDirectory)
        try? FileManager.default.removeItem(atPath: member.process.logPath)
        try? FileManager.default.removeItem(atPath: "\(member.node.stateDirectory)/../\(member.node.nodeID).yaml")
    }
    await probe.client.stop(timeout: .milliseconds(200))
    let expected = size * rounds
    let fullRounds = answeredPerRound.filter { $0 == size }.count
    let p99 = percentile(latencies, 99)
    progress("many nodes: answers \(statuses), \(stoppedCleanly) of \(size) stopped on SIGTERM")
    return Row(
        what: "many nodes: \(size) nodes, `noiseclock/all/cmd/dismiss` \(rounds)×: publish → each node's `B/response/dismiss` received by mosquitto_sub, p50 / p99 / max",
        measured: "\(f(percentile(latencies, 50), 1)) / \(f(p99, 1)) / \(f(latencies.max() ?? .nan, 1)) ms; \(latencies.count) of \(expected) answered, all \(size) in \(fullRounds) of \(rounds) rounds; \(online.count) online \(f(startSeconds, 1)) s after the first start" + idle,
        baseline: "—", target: "all \(size) answer, p99 ≤ \(f(targetP99, 0)) ms", met: latencies.count == expected && p99 <= targetP99)
}

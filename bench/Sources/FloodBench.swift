// The flood row (`--only flood`; SPEC §8 "Memory is bounded under any input", issue 45): 20,000
// commands of 60 KiB at QoS 0, sent as fast as the sender's socket takes them, at one node on the
// loopback broker (whose `max_queued_messages 100000` lets it keep the whole flood for the node,
// as a faster broker or a local client would, instead of dropping what the node has not read).
// Each is a settings change padded with spaces to 60 KiB (valid JSON, alternating, so each one
// changes something and waits for its write): the intake's places fill and what waits reaches its
// byte bound. Measured: the node's peak RssAnon (sampled every 5 ms), the time from the flood's
// end (the sender's queue written) to the next ping's answer, and that an alarm added after it is
// stored (answered ok, then in B/alarms). Every client and the node talk to 127.0.0.1 only.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import NoiseClockTestSupport

/// `--flood-count N`: how many commands the flood sends; `--flood-kib N`: the size of each.
let floodCount = option("--flood-count", default: 20_000)
let floodKiB = option("--flood-kib", default: 60)

/// The largest RssAnon of a process seen by sampling it every 5 ms until `stop`.
final class AnonymousPeak: Sendable {
    private let peak = Mutex<Double>(0)
    private let running = Atomic<Bool>(true)

    init(pid: pid_t) {
        Thread { [self] in
            while running.load(ordering: .relaxed) {
                let now = procStatus(pid, "RssAnon")
                if !now.isNaN { peak.withLock { $0 = max($0, now) } }
                usleep(5_000)
            }
        }.start()
    }

    /// The peak so far, in MB; sampling ends.
    func stop() -> Double {
        running.store(false, ordering: .relaxed)
        return peak.withLock { $0 }
    }
}

func floodRow(brokerPort: Int) async throws -> Row {
    let node = try NodeProcess(
        port: brokerPort, nodeID: "flood", stateDirectory: try makeTemporaryDirectory("flood"),
        environment: ["NOISECLOCK_MQTT_HOST": "127.0.0.1", "NOISECLOCK_AUDIO_DEVICE": "null"])
    let process = try node.start(logLevel: "warning")
    defer { process.signal(SIGKILL) }
    let answers = node.topics.response("settings"), alarms = node.topics.state(StateTopic.alarms)
    let status = node.topics.state(StateTopic.status)
    let client = try await CorrelatedClient(port: brokerPort, responseTopic: "bench/flood/answers", watching: [answers, alarms, status])
    let online = ContinuousClock.now + .seconds(10)
    while client.answer("warm-up") == nil, ContinuousClock.now < online {
        client.send(node.topics.command("ping"), "", correlation: "warm-up")
        try await Task.sleep(for: .milliseconds(200))
    }
    client.clearMessages()
    let anonymousBefore = procStatus(process.pid, "RssAnon")

    // The sender: its own client and loop, its queue kept small (half of it is all `waitForRoom`
    // lets wait), so the flood goes out as fast as its socket takes it and no faster.
    var logger = Logger(label: "bench-flood")
    logger.logLevel = .error
    let sender = try MQTTClient(
        options: MQTTOptions(host: "127.0.0.1", port: brokerPort, clientID: "bench-flood-\(UUID().uuidString.prefix(6))", queueLimit: 256, inFlightLimit: 128),
        logger: logger, loop: NodeExecutor(name: "flood sender"))
    sender.start()
    for await event in sender.events where event == .connected { break }
    let padding = floodKiB * 1024
    let payloads = [true, false].map { on in
        var bytes = Array(#"{"show_seconds":\#(on)}"#.utf8)
        bytes += [UInt8](repeating: UInt8(ascii: " "), count: max(0, padding - bytes.count))
        return bytes
    }
    let peak = AnonymousPeak(pid: process.pid)
    let floodStart = ContinuousClock.now
    for index in 0..<floodCount {
        if !sender.hasRoom { await sender.waitForRoom() }
        sender.publish(MQTTMessage(topic: node.topics.command("settings"), payload: payloads[index % 2], qos: 0))
    }
    // The flood's end: everything handed to the broker's socket (stop waits for that, then disconnects).
    await sender.stop(timeout: .seconds(300))
    let floodEnd = ContinuousClock.now
    let sent = ms(floodEnd - floodStart) / 1000
    progress("flood: \(floodCount) × \(floodKiB) KiB sent in \(f(sent)) s (\(sender.droppedMessages) dropped by the sender)")

    // A ping at once and then every second until one is answered.
    var pingAnswered: Duration?
    var pings = 0
    let pingDeadline = floodEnd + .seconds(120)
    while pingAnswered == nil, ContinuousClock.now < pingDeadline {
        client.send(node.topics.command("ping"), "", correlation: "ping-\(pings)")
        pings += 1
        let next = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < next, pingAnswered == nil {
            try await Task.sleep(for: .milliseconds(5))
            if let arrival = (0..<pings).compactMap({ client.arrival("ping-\($0)") }).min() { pingAnswered = arrival - floodEnd }
        }
    }
    progress("flood: the next ping answered \(pingAnswered.map { "\(f(ms($0) / 1000, 2)) s" } ?? "never") after the flood's end (\(pings) sent)")

    // Then an alarm: answered ok, and found in B/alarms.
    client.send(node.topics.command("alarm/add"), #"{"time":"06:45","label":"after the flood"}"#, correlation: "alarm")
    let alarmDeadline = ContinuousClock.now + .seconds(60)
    while client.answer("alarm") == nil, ContinuousClock.now < alarmDeadline { try await Task.sleep(for: .milliseconds(20)) }
    let added = client.answer("alarm")
    let alarmID = added?["data"]?["id"]?.stringValue
    var listed = false
    while let alarmID, !listed, ContinuousClock.now < alarmDeadline {
        listed = client.messages(on: alarms).contains { message in
            guard case .array(let items)? = try? JSONValue.parse(message.payload) else { return false }
            return items.contains { $0["id"]?.stringValue == alarmID }
        }
        if !listed { try await Task.sleep(for: .milliseconds(20)) }
    }
    // Whatever of the flood is still to come, within a few seconds, for the count of the answers.
    try await Task.sleep(for: .seconds(3))
    let anonymousPeak = peak.stop(), peakRSS = procStatus(process.pid, "VmHWM"), alive = process.isRunning
    var ok = 0, unavailable = 0, other = 0
    for message in client.messages(on: answers) {
        let answer = try? JSONValue.parse(message.payload)
        if answer?["status"]?.stringValue == "ok" {
            ok += 1
        } else if answer?["error"]?["code"]?.stringValue == "unavailable" {
            unavailable += 1
        } else {
            other += 1
        }
    }
    let unanswered = floodCount - ok - unavailable - other
    // What the node says it refused and dropped (B/status `commands`, the latest published).
    let counted = client.messages(on: status).last.flatMap { try? JSONValue.parse($0.payload) }?["commands"]
    let countedText = "B/status: refused \(counted?["refused"]?.intValue ?? 0), dropped \(counted?["dropped"]?.intValue ?? 0)"
    progress("flood: answers ok \(ok), unavailable \(unavailable), other \(other), none \(unanswered) (\(countedText)); RssAnon before \(f(anonymousBefore, 1)) MB, peak \(f(anonymousPeak, 1)) MB, VmHWM \(f(peakRSS, 1)) MB")
    process.signal(SIGTERM)
    _ = await process.waitForExit(timeout: .seconds(5))
    await client.stop()

    let pingSeconds = pingAnswered.map { ms($0) / 1000 } ?? .infinity
    let stored = added?["status"]?.stringValue == "ok" && listed
    return Row(
        what: "flood: \(floodCount) × \(floodKiB) KiB commands at QoS 0 (settings changes padded with spaces), as fast as the sender's socket takes them, at one node: peak RssAnon / next ping after the flood's end / an alarm added after it",
        measured: "\(f(anonymousPeak, 1)) MB (before \(f(anonymousBefore, 1)), VmHWM \(f(peakRSS, 1))) / \(pingAnswered == nil ? "never" : "\(f(pingSeconds, 2)) s") / \(stored ? "ok, in B/alarms" : "\(added?["status"]?.stringValue ?? "no answer")\(listed ? "" : ", not in B/alarms")"); sent in \(f(sent, 1)) s; answers ok \(ok), unavailable \(unavailable), other \(other), none \(unanswered) (\(countedText))\(alive ? "" : "; the node died")",
        baseline: "—", target: "RssAnon ≤ 64 MB; ping ≤ 10 s; the alarm stored",
        met: alive && anonymousPeak <= 64 && pingSeconds <= 10 && stored)
}

import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Synchronization
import Testing

/// The earliest the node's first attempt at or after `after` (since the loss) can come: the plain
/// schedule's, unless the spread may move the attempt before it to `after` or later.
private func earliestAttempt(after: Duration) -> Duration {
    var attempt: Duration = .seconds(1), step: Duration = .seconds(1), previous: Duration = .zero
    while attempt < after {
        previous = attempt
        step = min(step * 2, .seconds(30))
        attempt += step
    }
    return previous * (1 + ReconnectBackoff.spread) >= after ? after : attempt
}

/// The node's own record of one reconnection, from its log: the delay it chose after the loss
/// ("MQTT connection lost; reconnecting") and after each failed attempt ("MQTT broker not reachable;
/// retrying"), up to "MQTT connected". Its attempts were due at the running sums of `delays`: the
/// last one succeeded, the ones before it failed.
private struct Reconnection {
    var delays: [Double] = []
    var losses = 0
    var connected = false

    init(log segment: String) {
        for line in segment.split(separator: "\n") where line.contains("[NoiseClockMQTT]") {
            if line.hasSuffix("MQTT connected") {
                connected = true
                break
            }
            let lost = line.hasSuffix("MQTT connection lost; reconnecting")
            guard lost || line.hasSuffix("MQTT broker not reachable; retrying") else { continue }
            if lost { losses += 1 }
            if let range = line.range(of: "retry_in="),
                let delay = Double(line[range.upperBound...].prefix { $0 != " " })
            {
                delays.append(delay)
            }
        }
    }

    /// When the attempts were due, in seconds after the loss (the last one the successful one).
    var attempts: [Double] { delays.indices.map { delays[...$0].reduce(0, +) } }
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The pings the load sends: correlation and when it went out.
private final class SentLog: Sendable {
    let items = Mutex<[(correlation: String, at: ContinuousClock.Instant)]>([])
    func add(_ correlation: String) { items.withLock { $0.append((correlation, .now)) } }
    var all: [(correlation: String, at: ContinuousClock.Instant)] { items.withLock { $0 } }
}

@Suite("Broker killed and restarted under load (SPEC §8)")
struct BrokerRestartTests {
    @Test("the broker is SIGKILLed and restarted 10 times under a stream of commands: the node reconnects with its backoff, answers again, every retained state is back at the broker, and the alarms survive")
    func restartsUnderLoad() async throws {
        // Mosquitto with persistence off (see Broker): after each restart the broker knows nothing,
        // so every retained state a fresh subscriber sees is one the node published again.
        try await withBroker { broker in
            try await withStopping(NodeProcess(port: broker.port, environment: ["NOISECLOCK_AUDIO_DEVICE": "null"])) { node in
                let process = try node.start(logLevel: "info")
                let topics = node.topics
                // Seen online by a client that is gone before the load starts (so not withNode's).
                try await withClient(port: broker.port, subscriptions: [topics.availability]) { first in
                    try #require(await first.waitFor(topics.availability, where: { $0.text == "online" }) != nil, "log:\n\(process.log)")
                }

                // The load: a ping every 20 ms, each with its own correlation, from a client that itself
                // reconnects (200 ms … 1 s) and keeps what it sends while the broker is away.
                try await withStopping(CorrelatedClient(port: broker.port, responseTopic: "\(topics.node)/response/test/load")) { load in
                    let sent = SentLog()
                    let pinger = Task {
                        var count = 0
                        while !Task.isCancelled {
                            count += 1
                            let correlation = "ping-\(count)"
                            // Stamped once handed to the client, so a ping stamped before a fence's
                            // send is queued ahead of the fence.
                            load.send(topics.command("ping"), "", correlation: correlation)
                            sent.add(correlation)
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                    }
                    defer { pinger.cancel() }

                    // Alarms six hours ahead (they never ring during the test), added one by one with their answers awaited.
                    var calendar = Calendar(identifier: .gregorian)
                    calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .current
                    let hour = (calendar.component(.hour, from: Date()) + 6) % 24
                    var alarmIDs: Set<String> = []
                    var additions = 0
                    func addAlarm() async throws {
                        additions += 1
                        let correlation = "add-\(additions)"
                        let payload = #"{"time":"\#(String(format: "%02d:%02d", hour, additions))","days":["mon","tue","wed","thu","fri"],"label":"restart \#(additions)"}"#
                        load.send(topics.command("alarm/add"), payload, correlation: correlation)
                        _ = await eventually { load.answer(correlation) != nil }
                        let answer = try #require(load.answer(correlation), "alarm/add \(additions) not answered")
                        #expect(answer["status"] == "ok", "alarm/add \(additions): \(answer.serialized)")
                        if let id = answer["data"]?["id"]?.stringValue { alarmIDs.insert(id) }
                    }
                    try await addAlarm()
                    try await addAlarm()

                    /// Sends one ping of its own and waits for its answer: the node's command subscriptions work.
                    func answered(_ correlation: String) async -> Bool {
                        load.send(topics.command("ping"), "", correlation: correlation)
                        return await eventually { load.answer(correlation) != nil }
                    }
                    #expect(await answered("check-start"))

                    /// A ping of its own, answered: every ping handed to the client before it was sent
                    /// has been answered too (one connection each way, pings answered in order), so a
                    /// steady window ends at the instant the fence was sent. Returns that instant.
                    func fence(_ correlation: String) async throws -> ContinuousClock.Instant {
                        let at = ContinuousClock.now
                        try #require(await answered(correlation), "\(correlation): no answer while connected")
                        return at
                    }

                    // Downtimes that land between the node's attempts (at 1, 3, 7 s after the loss), so that
                    // some restarts are caught by the first attempt and others by the second or third.
                    let downtimes: [Duration] = [
                        .milliseconds(200), .milliseconds(200), .milliseconds(1500), .milliseconds(200), .milliseconds(2500),
                        .milliseconds(200), .milliseconds(3500), .milliseconds(200), .milliseconds(200), .milliseconds(200),
                    ]
                    let wanted = [
                        topics.availability, topics.status, topics.settings, topics.clock, topics.alarms, topics.alarmNext,
                        topics.alarmState, topics.noise,
                    ]
                    var reconnects: [(down: Duration, back: Duration, attempts: [Double])] = []
                    // Pings sent while broker and node were both up (from a confirmed answer until a fence
                    // answered before the next kill): every one of these must be answered.
                    var steady: [(from: ContinuousClock.Instant, to: ContinuousClock.Instant)] = []
                    var steadyFrom = ContinuousClock.now

                    for (index, downtime) in downtimes.enumerated() {
                        let restart = index + 1
                        // A second of steady load before each kill.
                        try await Task.sleep(for: .seconds(1))
                        steady.append((steadyFrom, try await fence("fence-\(restart)")))
                        // The node's log from here on is this restart's.
                        let logMark = process.log.utf8.count
                        let killed = ContinuousClock.now
                        await broker.kill()
                        try await Task.sleep(for: downtime)
                        // The broker takes connections somewhere between `starting` and `up` (its start can
                        // take a while on a loaded machine): the node's first attempt after `starting` is the
                        // earliest it may be back.
                        let starting = ContinuousClock.now
                        try await broker.start()
                        let up = ContinuousClock.now
                        let down = up - killed

                        // Online seen by a fresh subscriber.
                        let (online, back) = try await withClient(port: broker.port, subscriptions: [topics.availability]) { watcher in
                            let online = await watcher.waitFor(topics.availability) { $0.text == "online" }
                            return (online, ContinuousClock.now - up)
                        }
                        try #require(online != nil, "restart \(restart): the node never came back; log:\n\(process.log)")

                        // Back at the first attempt after the broker is, with the doubling steps between its
                        // attempts: neither stuck (an attempt failing while the broker is up) nor hammering
                        // (attempts faster than 1 s, 2 s, 4 s … ). Judged from the node's own record of its
                        // attempts, not from when a test client saw it online (a loaded machine stretches
                        // that by seconds); the log line comes a moment after the message, so it is waited for.
                        var reconnection = Reconnection(log: "")
                        _ = await eventually {
                            reconnection = Reconnection(log: String(decoding: process.log.utf8.dropFirst(logMark), as: UTF8.self))
                            return reconnection.connected
                        }
                        let attempts = reconnection.attempts
                        reconnects.append((down, back, attempts))
                        try #require(reconnection.connected && reconnection.losses == 1 && !attempts.isEmpty, "restart \(restart): the node's log has no single loss and connection; log:\n\(process.log)")
                        for (step, delay) in reconnection.delays.enumerated() {
                            let plain = Double(1 << min(step, 5))
                            #expect(
                                delay >= min(plain, 30) - 0.000_001 && delay <= min(plain * (1 + ReconnectBackoff.spread), 30) + 0.001,
                                "restart \(restart): delay \(step + 1) was \(delay) s, its backoff step is \(min(plain, 30)) s")
                        }
                        // Each failed attempt was due before the broker was up (a correct node's attempts come no
                        // sooner than due, and fail only while the broker is away).
                        if let lastFailed = attempts.dropLast().last {
                            #expect(lastFailed <= seconds(down), "restart \(restart): an attempt due \(lastFailed) s after the loss failed, the broker was up \(down) after the kill")
                        }
                        let earliest = killed + earliestAttempt(after: starting - killed) - .milliseconds(500)
                        #expect(up + back >= earliest, "restart \(restart): online \(up + back - killed) after the kill, before its backoff's first attempt after the broker's start")

                        // Its subscriptions are back: a command is answered.
                        #expect(await answered("check-\(restart)"), "restart \(restart): no answer; log:\n\(process.log)")
                        steadyFrom = ContinuousClock.now

                        // Every retained state is at the broker again, for a subscriber that comes afterwards.
                        try await withClient(port: broker.port, subscriptions: ["\(topics.node)/#"]) { fresh in
                            let complete = await eventually {
                                wanted.allSatisfy { topic in fresh.messages(on: topic).contains { $0.retain } }
                            }
                            let missing = wanted.filter { topic in !fresh.messages(on: topic).contains { $0.retain } }
                            #expect(complete, "restart \(restart): not retained at the broker: \(missing)")
                            #expect(fresh.messages(on: topics.availability).last?.text == "online")
                            let retainedAlarms = fresh.messages(on: topics.alarms).last { $0.retain }.flatMap { try? JSONValue.parse($0.payload) }
                            var retainedIDs: Set<String> = []
                            if case .array(let items)? = retainedAlarms {
                                retainedIDs = Set(items.compactMap { $0["id"]?.stringValue })
                            }
                            #expect(retainedIDs == alarmIDs, "restart \(restart): retained alarms \(retainedIDs.sorted()), added \(alarmIDs.sorted())")
                        }

                        // One more alarm under load before the next kill.
                        try await addAlarm()
                    }
                    steady.append((steadyFrom, try await fence("fence-end")))
                    pinger.cancel()
                    try await Task.sleep(for: .seconds(1))

                    // The alarms added before (12: 2 at first, one after each restart) are all in the node's answer.
                    try await withClient(port: broker.port, subscriptions: []) { list in
                        let ping = try await list.request(topics, "ping")
                        #expect(ping["status"] == "ok")
                    }
                    try await withClient(port: broker.port, subscriptions: [topics.alarms]) { final in
                        let finalAlarms = await final.waitFor(topics.alarms).flatMap { try? JSONValue.parse($0.payload) }
                        var finalIDs: Set<String> = []
                        if case .array(let items)? = finalAlarms { finalIDs = Set(items.compactMap { $0["id"]?.stringValue }) }
                        #expect(alarmIDs.count == 12)
                        #expect(finalIDs == alarmIDs, "after the last restart: \(finalIDs.sorted()) of \(alarmIDs.sorted())")
                    }

                    let pings = sent.all
                    let answeredCount = load.answeredCount(pings.map(\.correlation))
                    let steadyPings = pings.filter { ping in steady.contains { ping.at >= $0.from && ping.at < $0.to } }
                    let steadyAnswered = load.answeredCount(steadyPings.map(\.correlation))
                    let unansweredSteady = steadyPings.filter { load.answer($0.correlation) == nil }.map(\.correlation)
                    print("BrokerRestartTests: reconnect after each restart (broker down; the node's attempts, due after the loss, from its log; online seen by a fresh client):")
                    for (index, reconnect) in reconnects.enumerated() {
                        let attempts = reconnect.attempts.map { String(format: "%.2f", $0) }.joined(separator: ", ")
                        print(String(format: "  restart %2d: down %.2f s, ", index + 1, seconds(reconnect.down))
                            + "attempts due at \(attempts) s after the loss, "
                            + String(format: "online seen %.3f s after the broker", seconds(reconnect.back)))
                    }
                    print("BrokerRestartTests: pings answered \(answeredCount) of \(pings.count) sent; while broker and node were up \(steadyAnswered) of \(steadyPings.count); alarm/add answered ok \(alarmIDs.count) of \(additions)")
                    #expect(steadyAnswered == steadyPings.count, "unanswered while connected: \(unansweredSteady.prefix(20))")
                    #expect(steadyPings.count > 200)
                }
                process.signal(SIGTERM)
                #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
            }
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Synchronization
import Testing

/// When the node's next connect attempt after a loss at 0 comes: 1 s, then 2 s, 4 s … (30 s at most)
/// after each failed one, so at 1, 3, 7, 15 … s, each wait up to a quarter longer at random
/// (`ReconnectBackoff.spread`). How long after the broker is back (at `downFor`) the node can be
/// expected online: the first attempt of the plain schedule at or after `downFor`, stretched by
/// `stretch` (an attempt of the spread schedule comes at most that much later than its plain one).
private func backoffWait(downFor: Duration, stretch: Double = 1) -> Duration {
    var attempt: Duration = .seconds(1), step: Duration = .seconds(1)
    while attempt < downFor {
        step = min(step * 2, .seconds(30))
        attempt += step
    }
    return attempt * stretch - downFor
}

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
                        _ = await eventually(timeout: .seconds(5)) { load.answer(correlation) != nil }
                        let answer = try #require(load.answer(correlation), "alarm/add \(additions) not answered")
                        #expect(answer["status"] == "ok", "alarm/add \(additions): \(answer.serialized)")
                        if let id = answer["data"]?["id"]?.stringValue { alarmIDs.insert(id) }
                    }
                    try await addAlarm()
                    try await addAlarm()

                    /// Sends one ping of its own and waits for its answer: the node's command subscriptions work.
                    func answered(_ correlation: String, within timeout: Duration) async -> Bool {
                        load.send(topics.command("ping"), "", correlation: correlation)
                        return await eventually(timeout: timeout) { load.answer(correlation) != nil }
                    }
                    #expect(await answered("check-start", within: .seconds(5)))

                    /// A ping of its own, answered: every ping handed to the client before it was sent
                    /// has been answered too (one connection each way, pings answered in order), so a
                    /// steady window ends at the instant the fence was sent. Returns that instant.
                    func fence(_ correlation: String) async throws -> ContinuousClock.Instant {
                        let at = ContinuousClock.now
                        try #require(await answered(correlation, within: .seconds(5)), "\(correlation): no answer while connected")
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
                    var reconnects: [(down: Duration, back: Duration, bound: Duration)] = []
                    // Pings sent while broker and node were both up (from a confirmed answer until a fence
                    // answered before the next kill): every one of these must be answered.
                    var steady: [(from: ContinuousClock.Instant, to: ContinuousClock.Instant)] = []
                    var steadyFrom = ContinuousClock.now

                    for (index, downtime) in downtimes.enumerated() {
                        let restart = index + 1
                        // A second of steady load before each kill.
                        try await Task.sleep(for: .seconds(1))
                        steady.append((steadyFrom, try await fence("fence-\(restart)")))
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
                        let bound = backoffWait(downFor: down, stretch: 1 + ReconnectBackoff.spread)

                        // Online seen by a fresh subscriber (its own connect takes a few milliseconds).
                        let (online, back) = try await withClient(port: broker.port, subscriptions: [topics.availability]) { watcher in
                            let online = await watcher.waitFor(topics.availability, timeout: bound + .seconds(5)) { $0.text == "online" }
                            return (online, ContinuousClock.now - up)
                        }
                        try #require(online != nil, "restart \(restart): the node never came back; log:\n\(process.log)")
                        reconnects.append((down, back, bound))
                        // Back at the first attempt after the broker is: neither later (a stuck client) nor
                        // much sooner (attempts faster than the doubling 1 s, 2 s, 4 s … would hammer a broker).
                        #expect(back <= bound + .seconds(2), "restart \(restart): online \(back) after the broker, its backoff allows \(bound)")
                        let earliest = killed + earliestAttempt(after: starting - killed) - .milliseconds(500)
                        #expect(up + back >= earliest, "restart \(restart): online \(up + back - killed) after the kill, before its backoff's first attempt after the broker's start")

                        // Its subscriptions are back: a command is answered.
                        #expect(await answered("check-\(restart)", within: .seconds(5)), "restart \(restart): no answer; log:\n\(process.log)")
                        steadyFrom = ContinuousClock.now

                        // Every retained state is at the broker again, for a subscriber that comes afterwards.
                        try await withClient(port: broker.port, subscriptions: ["\(topics.node)/#"]) { fresh in
                            let complete = await eventually(timeout: .seconds(5)) {
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
                    print("BrokerRestartTests: reconnect after each restart (broker down → broker up → node online seen; the backoff's next attempt, checked with 2 s of slack for a fresh client and a loaded machine):")
                    for (index, reconnect) in reconnects.enumerated() {
                        print(String(
                            format: "  restart %2d: down %.2f s, online %.3f s after the broker (next attempt by %.2f s)", index + 1, seconds(reconnect.down),
                            seconds(reconnect.back), seconds(reconnect.bound)))
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

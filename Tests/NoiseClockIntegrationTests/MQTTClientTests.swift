import Foundation
import Logging
import NoiseClockSystem
import Synchronization
import NoiseClockTestSupport
import Testing

@testable import NoiseClockMQTT

/// libmosquitto refuses a keepalive under 5 s.
private let keepalive = 5

/// The clients' own loop: on the process's shared one they would wait behind every other test's
/// `@NodeActor` work (a property test's steps), and these tests time the keepalive to the second.
private let testLoop = NodeExecutor(name: "mqtt test loop")

private func makeClient(port: Int, queueLimit: Int = 1000, inFlightLimit: Int = 200, loop: NodeExecutor = testLoop) throws -> MQTTClient {
    var logger = Logger(label: "mqtt-client-test")
    logger.logLevel = .critical
    return try MQTTClient(
        options: MQTTOptions(
            host: "127.0.0.1", port: port, clientID: "test-\(UUID().uuidString.prefix(8))", keepaliveSeconds: keepalive,
            minimumReconnectDelay: .milliseconds(200), maximumReconnectDelay: .seconds(1), queueLimit: queueLimit,
            inFlightLimit: inFlightLimit),
        logger: logger, loop: loop)
}

/// A client's connection events, with when each came.
private final class EventLog: Sendable {
    private let items = Mutex<[(event: MQTTConnectionEvent, at: ContinuousClock.Instant)]>([])
    func add(_ event: MQTTConnectionEvent) { items.withLock { $0.append((event, .now)) } }
    var all: [(event: MQTTConnectionEvent, at: ContinuousClock.Instant)] { items.withLock { $0 } }
}

/// Starts `client`, records its events until `body` returns, and stops it.
private func withConnected(_ client: MQTTClient, _ body: (EventLog) async throws -> Void) async throws {
    let log = EventLog()
    let reader = Task {
        for await event in client.events { log.add(event) }
    }
    client.start()
    do {
        try #require(await eventually(timeout: .seconds(10)) { log.all.contains { $0.event == .connected } }, "never connected")
        try await body(log)
    } catch {
        await client.stop(timeout: .milliseconds(500))
        reader.cancel()
        throw error
    }
    await client.stop(timeout: .milliseconds(500))
    reader.cancel()
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The client's network loop (MQTTNetworkLoop.swift): it wakes for the broker and for the keepalive,
/// not for what other threads publish, and it keeps the connection alive from what goes out.
@Suite("MQTT client: network thread and keepalive, against a scripted broker")
struct MQTTClientTests {
    @Test("an idle connection sends PINGREQ a keepalive (plus its half-second grace) after the last packet, waking twice for it; the heartbeat is fresh while it waits; stop sends DISCONNECT")
    func idlePings() async throws {
        let broker = try ScriptedBroker()
        defer { broker.close() }
        let client = try makeClient(port: broker.port)
        var turnsIdle = 0
        try await withConnected(client) { _ in
            let turns = client.networkTurns.load(ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(6_500))
            turnsIdle = client.networkTurns.load(ordering: .relaxed) - turns
            // Fresh means "now" (no attempt to connect under way): not earlier than this look began,
            // however long the machine takes between the two reads.
            let looked = ContinuousClock.now
            #expect(client.lastHeartbeat >= looked, "a quiet connection is a live one")
        }
        let connect = try #require(broker.packets(1).first)
        let pings = broker.packets(12)
        // The broker records the DISCONNECT as it reads it, a moment after stop returns.
        #expect(await eventually { !broker.packets(14).isEmpty })
        let disconnect = try #require(broker.packets(14).first, "stop sends DISCONNECT")
        // A ping 5.5 s after the last packet out (the CONNECT, then each PINGREQ), never sooner: as
        // many as the connection's life holds. (Not a fixed count: on a loaded machine the test's
        // own steps can stretch the connection's life past a second ping.)
        #expect(!pings.isEmpty, "no ping in \(seconds(disconnect.at - connect.at)) s")
        var previous = connect.at
        for ping in pings {
            let gap = seconds(ping.at - previous)
            #expect(gap >= 5.25 && gap <= 7.5, "a ping \(gap) s after the packet before it")
            previous = ping.at
        }
        #expect(seconds(disconnect.at - previous) < 5.75, "a ping was due before the DISCONNECT but did not come")
        #expect(broker.packets(1).count == 1, "one connection")
        // The ping's turns: its timer, then PINGRESP.
        #expect(turnsIdle <= 2 * pings.count, "\(turnsIdle) turns for \(pings.count) pings")
    }

    @Test("packets going out keep the connection alive, though nothing comes in: no PINGREQ; QoS 0 publishes do not wake the network thread, QoS 1 ones wake it for their PUBACK")
    func publishingKeepsAlive() async throws {
        let broker = try ScriptedBroker()
        defer { broker.close() }
        let client = try makeClient(port: broker.port)
        var turns: [Int: Int] = [:]
        try await withConnected(client) { _ in
            // 7.2 s at QoS 0, past the keepalive with nothing coming in: libmosquitto's own loop pings there.
            for (qos, count, interval) in [(0, 8, 900), (1, 5, 200)] {
                let before = client.networkTurns.load(ordering: .relaxed)
                for n in 0..<count {
                    client.publish(MQTTMessage(topic: "test/keepalive", text: "\(n)", qos: qos))
                    try await Task.sleep(for: .milliseconds(interval))
                }
                turns[qos] = client.networkTurns.load(ordering: .relaxed) - before
            }
        }
        #expect(broker.packets(3).count == 13)
        // No ping while packets go out within a keepalive of each other. (On a loaded machine the
        // test's own sleeps can stretch a gap past the keepalive; a ping after such a gap is right.)
        let outgoing = (broker.packets(1) + broker.packets(3)).map(\.at).sorted()
        for ping in broker.packets(12) {
            let before = outgoing.last { $0 < ping.at }
            #expect(before.map { seconds(ping.at - $0) >= 5.25 } ?? false, "a ping \(before.map { seconds(ping.at - $0) } ?? 0) s after a packet went out")
        }
        // A ping, when a stretched gap made one due, is two turns of its own: its timer and PINGRESP.
        let pings = broker.packets(12).count
        #expect((turns[0] ?? -1) <= 1 + 2 * pings, "\(turns[0] ?? -1) turns for 8 QoS 0 publishes and \(pings) pings")
        #expect((turns[1] ?? -1) >= 4, "\(turns[1] ?? -1) turns for 5 QoS 1 publishes")
    }

    @Test("publish on the loop thread is written at the turn's end; publishNow is written at once, with what the turn handed over before it")
    func publishNowWritesAtOnce() async throws {
        let broker = try ScriptedBroker()
        defer { broker.close() }
        let client = try makeClient(port: broker.port)
        try await withConnected(client) { _ in
            let before = broker.packets(3).count
            // One turn of the loop, held until the broker has read the publishes (or 10 s): nothing
            // but this turn's end writes to the socket while it runs.
            let seen: (afterPublish: Int, afterPublishNow: Int) = await withCheckedContinuation { continuation in
                client.loop.execute {
                    func published(within limit: Duration) -> Int {
                        let deadline = ContinuousClock.now + limit
                        while broker.packets(3).count - before < 2, ContinuousClock.now < deadline { usleep(1_000) }
                        return broker.packets(3).count - before
                    }
                    client.publish(MQTTMessage(topic: "test/now", text: "kept for the turn's end"))
                    let afterPublish = published(within: .milliseconds(300))
                    client.publishNow(MQTTMessage(topic: "test/now", text: "at once"))
                    continuation.resume(returning: (afterPublish, published(within: .seconds(10))))
                }
            }
            #expect(seen.afterPublish == 0, "publish wrote before the turn ended")
            #expect(seen.afterPublishNow == 2, "publishNow wrote \(seen.afterPublishNow) of the turn's 2 publishes at once")
        }
    }

    @Test("QoS 0 messages queued behind the in-flight limit go out once those ahead of them are written, not at the next packet in or the keepalive")
    func queuedQoS0FollowsTheWrite() async throws {
        let broker = try ScriptedBroker()
        defer { broker.close() }
        let client = try makeClient(port: broker.port, inFlightLimit: 2)
        try await withConnected(client) { _ in
            let before = broker.packets(3).count
            // One turn publishes 10: 2 handed to libmosquitto, 8 queued behind them; nothing comes in.
            client.loop.execute {
                for n in 0..<10 { client.publish(MQTTMessage(topic: "test/qos0", text: "\(n)", qos: 0)) }
            }
            let all = await eventually(timeout: .seconds(3)) { broker.packets(3).count - before == 10 }
            #expect(all, "\(broker.packets(3).count - before) of 10 QoS 0 publishes out within 3 s (the keepalive is 5 s)")
        }
    }

    @Test("a PINGREQ left unanswered for a keepalive ends the connection (a disconnected event), and the client connects again")
    func unansweredPing() async throws {
        let broker = try ScriptedBroker(answersPings: false)
        defer { broker.close() }
        let client = try makeClient(port: broker.port)
        try await withConnected(client) { log in
            #expect(await eventually(timeout: .seconds(30)) { log.all.filter { $0.event == .connected }.count >= 2 })
            let events = log.all
            let connected = try #require(events.first { $0.event == .connected })
            let lost = try #require(events.first { if case .disconnected = $0.event { true } else { false } })
            #expect(lost.at > connected.at)
        }
        let connects = broker.packets(1)
        #expect(connects.count >= 2 && connects.dropFirst().first?.connection == 1)
        let ping = try #require(broker.packets(12).first)
        let pingAfter = seconds(ping.at - connects[0].at)
        #expect(pingAfter >= 5.25 && pingAfter <= 7.5, "the ping came \(pingAfter) s after the CONNECT")
        // The ping at 5.5 s, given up 5.5 s later, the CONNECT again after at most 0.25 s. Timed from
        // the broker's records, made on its own thread: the test's event log is read on the shared
        // task pool, which the other suites' work can hold up for many seconds on a loaded machine.
        // The bounds still tell a client that gives up at the ping (or waits for ever) from one
        // that waits a keepalive.
        let again = try #require(connects.first { $0.connection == 1 })
        let backAfterPing = seconds(again.at - ping.at)
        #expect(backAfterPing >= 4.5 && backAfterPing <= 15.0, "connected again \(backAfterPing) s after the ping")
    }

    @Test("waitForRoom waits without polling: no timer wakes while the queue is half full, and the PUBACK that makes room resumes it")
    func waitForRoomWithoutPolling() async throws {
        let broker = try ScriptedBroker(holdsPubacks: true)
        defer { broker.close() }
        let client = try makeClient(port: broker.port, queueLimit: 4, inFlightLimit: 1)
        try await withConnected(client) { _ in
            // One in flight (its PUBACK held back), two queued: half of the 4.
            for n in 0..<3 { client.publish(MQTTMessage(topic: "test/room", text: "\(n)", qos: 1)) }
            try #require(await eventually(timeout: .seconds(10)) { broker.packets(3).count == 1 && !client.hasRoom })
            let resumed = Mutex<ContinuousClock.Instant?>(nil)
            // On the client's loop, not the test pool, which other suites can hold up for seconds.
            let waiter = Task(executorPreference: client.loop) {
                await client.waitForRoom()
                resumed.withLock { $0 = .now }
            }
            let timerWakes = TimeSource.shared.wakeCount
            try await Task.sleep(for: .milliseconds(300))
            #expect(TimeSource.shared.wakeCount - timerWakes <= 25, "\(TimeSource.shared.wakeCount - timerWakes) timer wakes while waiting for room")
            #expect(resumed.withLock { $0 } == nil, "resumed with no room")
            let released = ContinuousClock.now
            broker.releasePubacks()
            await waiter.value
            let at = try #require(resumed.withLock { $0 })
            #expect(at - released < .seconds(10))
            #expect(client.hasRoom)
            broker.releasePubacks()
        }
    }

    @Test("stop waits for the queue to reach the broker without polling, and goes on as soon as the last PUBACK comes")
    func stopWaitsForTheLastPuback() async throws {
        let broker = try ScriptedBroker(holdsPubacks: true)
        defer { broker.close() }
        let client = try makeClient(port: broker.port)
        let log = EventLog()
        let reader = Task { for await event in client.events { log.add(event) } }
        defer { reader.cancel() }
        client.start()
        try #require(await eventually(timeout: .seconds(10)) { log.all.contains { $0.event == .connected } }, "never connected")
        client.publish(MQTTMessage(topic: "test/flush", text: "kept until acknowledged", qos: 1))
        try #require(await eventually(timeout: .seconds(10)) { broker.packets(3).count == 1 })
        let timerWakes = TimeSource.shared.wakeCount
        // On the client's loop, not the test pool, which other suites can hold up for seconds. The
        // flush may wait up to 36 s (0.6 of the timeout); the PUBACK ends it long before.
        let stopping = Task(executorPreference: client.loop) {
            await client.stop(timeout: .seconds(60))
            return ContinuousClock.now
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(TimeSource.shared.wakeCount - timerWakes <= 25, "\(TimeSource.shared.wakeCount - timerWakes) timer wakes while waiting for the PUBACK")
        #expect(broker.packets(14).isEmpty, "disconnected before the queue reached the broker")
        let released = ContinuousClock.now
        broker.releasePubacks()
        let stopped = await stopping.value
        #expect(stopped - released < .seconds(10), "stop went on \(stopped - released) after the PUBACK")
        #expect(await eventually { !broker.packets(14).isEmpty }, "stop sends DISCONNECT")
    }
}

/// How the client hands over what it reads: to one consumer, with nothing lost before it comes.
@Suite("MQTT client: delivering messages, against Mosquitto")
struct MQTTClientDeliveryTests {
    @Test("messages read before a handler is installed wait for it and reach it first, in order; the next ones reach it as they are read, on the loop thread")
    func earlyMessagesReachTheHandler() async throws {
        try await withBroker { broker in
            try await withClient(port: broker.port, subscriptions: []) { sender in
                let topic = "delivery/\(UUID().uuidString.prefix(8))"
                let client = try makeClient(port: broker.port)
                client.subscribe([topic])
                try await withConnected(client) { log in
                    try await checkDelivery(client: client, sender: sender, topic: topic, log: log)
                }
            }
        }
    }

    @Test("a consumer may publish at QoS 0 from inside the delivery of a message and have it written at once: messages are handed on after libmosquitto's read, whose on_message holds the lock writing a QoS 0 publish takes again")
    func publishingFromTheDelivery() async throws {
        try await withBroker { broker in
            let topic = "delivery/\(UUID().uuidString.prefix(8))"
            try await withClient(port: broker.port, subscriptions: ["\(topic)/echo"]) { watcher in
                // A loop of its own: were the delivery inside the callback, this thread would hang for good.
                let client = try makeClient(port: broker.port, loop: NodeExecutor(name: "mqtt echo loop"))
                client.subscribe(["\(topic)/in"])
                client.deliver { [weak client] message in
                    client?.publishNow(MQTTMessage(topic: "\(topic)/echo", payload: message.payload, qos: 0))
                }
                let log = EventLog()
                let reader = Task { for await event in client.events { log.add(event) } }
                defer { reader.cancel() }
                client.start()
                try #require(await eventually(timeout: .seconds(10)) { log.all.contains { $0.event == .subscribed } }, "never subscribed")
                watcher.publish("\(topic)/in", "one")
                let first = await watcher.waitFor("\(topic)/echo", timeout: .seconds(10))
                #expect(first?.text == "one", "the echo published from the delivery never came: the loop is stuck")
                // A stuck loop would never run the stop either.
                guard first != nil else { return }
                watcher.publish("\(topic)/in", "two")
                #expect(await watcher.waitFor("\(topic)/echo", timeout: .seconds(10)) { $0.text == "two" } != nil)
                await client.stop(timeout: .milliseconds(500))
            }
        }
    }
}

private func checkDelivery(client: MQTTClient, sender: TestClient, topic: String, log: EventLog) async throws {
    try #require(await eventually(timeout: .seconds(10)) { log.all.contains { $0.event == .subscribed } }, "never subscribed")
    sender.publish(topic, "one")
    sender.publish(topic, "two")
    // Read and kept: no consumer yet.
    let kept = await eventually(timeout: .seconds(10)) { await inbox(of: client) == 2 }
    try #require(kept, "the client holds the two messages it read")
    let received = Received()
    let loop = client.loop
    client.deliver { message in received.add(message.text, onLoop: loop.inLoop) }
    sender.publish(topic, "three")
    #expect(await eventually(timeout: .seconds(10)) { received.all.count == 3 })
    let all = received.all
    #expect(all.map(\.text) == ["one", "two", "three"])
    #expect(all.allSatisfy { $0.onLoop }, "handed over on the loop thread")
    #expect(await inbox(of: client) == 0)
}

/// What a handler got, and whether on the loop thread.
private final class Received: Sendable {
    private let items = Mutex<[(text: String, onLoop: Bool)]>([])
    func add(_ text: String, onLoop: Bool) { items.withLock { $0.append((text, onLoop)) } }
    var all: [(text: String, onLoop: Bool)] { items.withLock { $0 } }
}

/// How many messages `client` holds for a consumer that has not come, read on its loop.
private func inbox(of client: MQTTClient) async -> Int {
    await withCheckedContinuation { continuation in
        client.loop.execute { continuation.resume(returning: client.link.inbox.count) }
    }
}

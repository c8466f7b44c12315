import Foundation
import Logging
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import Synchronization

/// A real libmosquitto client that records every message it receives, for assertions.
public final class TestClient: Sendable {
    /// The test clients' own event loop: the node's (`NodeExecutor.shared`) runs, in a test
    /// process, the features of every in-process test at once, and a client waiting behind them
    /// sent its messages late.
    static let loop = NodeExecutor(name: "test clients")

    public let client: MQTTClient
    private final class Inbox: Sendable {
        let items = Mutex<[MQTTMessage]>([])
    }
    private let inbox = Inbox()
    /// The filters subscribed at the start (acknowledged before `init` returned).
    private let subscriptions: [String]

    public init(port: Int, subscriptions: [String], protocolVersion: MQTTOptions.ProtocolVersion = .v5, tls: MQTTOptions.TLS? = nil,
         username: String? = nil, password: String? = nil) async throws {
        var logger = Logger(label: "test-client")
        logger.logLevel = .warning
        let client = try MQTTClient(
            options: MQTTOptions(
                host: "127.0.0.1", port: port, clientID: "test-\(UUID().uuidString.prefix(8))", username: username,
                password: password, protocolVersion: protocolVersion, tls: tls,
                minimumReconnectDelay: .milliseconds(200), maximumReconnectDelay: .seconds(1)),
            logger: logger, loop: Self.loop)
        self.client = client
        let inbox = self.inbox
        // On the clients' loop thread as each is read: a test that looks finds every message
        // read so far, however long the test pool's threads were busy elsewhere.
        client.deliver { message in inbox.items.withLock { $0.append(message) } }
        self.subscriptions = subscriptions
        client.subscribe(subscriptions)
        client.start()
        // Waits on the connection's own events, not a clock. A deadline could only end this wait
        // while events still came (without them `next()` waits on), so it ended connections that
        // were on their way: at the start of a whole `make test` beside two busy loops, with every
        // task held for 31 s (property walks that never suspended held the test pool's two threads;
        // see `yieldToOtherTests`), three clients' connections were lost, made again at once, and
        // the next event came past a 30 s deadline.
        // It gives up when the connection is lost again and again.
        if await Self.waitForSubscription(client.events, subscriptions: subscriptions) { return }
        throw TestClientError.notSubscribed
    }

    public enum TestClientError: Error { case notSubscribed, noAnswer(String) }

    /// How many lost connections end the wait for a subscription.
    static let lostConnectionsAllowed = 20

    /// Waits until `events` say every subscription is acknowledged (without subscriptions: the
    /// connection is made); false after `lostConnectionsAllowed` lost connections.
    static func waitForSubscription(_ events: AsyncStream<MQTTConnectionEvent>, subscriptions: [String]) async -> Bool {
        var lost = 0
        for await event in events {
            switch event {
            case .subscribed: return true
            case .connected where subscriptions.isEmpty: return true
            case .connected: continue
            case .disconnected:
                lost += 1
                if lost >= lostConnectionsAllowed { return false }
            }
        }
        return false
    }

    public func stop() async {
        await client.stop(timeout: .milliseconds(500))
    }

    public var messages: [MQTTMessage] { inbox.items.withLock { $0 } }

    public func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    public func clear() { inbox.items.withLock { $0.removeAll() } }

    /// The first message on `topic` that satisfies `predicate`, waiting up to `timeout`.
    public func waitFor(_ topic: String, timeout: Duration = eventHangGuard, where predicate: @Sendable (MQTTMessage) -> Bool = { _ in true })
        async -> MQTTMessage?
    {
        var found: MQTTMessage?
        _ = await eventually(timeout: timeout) {
            found = messages(on: topic).first(where: predicate)
            return found != nil
        }
        return found
    }

    public func publish(_ topic: String, _ text: String, retain: Bool = false) {
        client.publish(MQTTMessage(topic: topic, text: text, retain: retain))
    }

    public func publish(_ topic: String, bytes: [UInt8]) {
        client.publish(MQTTMessage(topic: topic, payload: bytes))
    }

    /// Sends a command with an MQTT 5 Response Topic and Correlation Data and returns the parsed answer.
    public func request(_ topics: Topics, _ verb: String, _ payload: String = "", timeout: Duration = eventHangGuard) async throws -> JSONValue {
        let correlation = Array(UUID().uuidString.utf8)
        let responseTopic = "\(topics.node)/response/test/\(UUID().uuidString.prefix(8))"
        // The answer must find a subscription in place: one of the start's, or a new one once
        // the broker has acknowledged it.
        if !subscriptions.contains(where: { covers($0, responseTopic) }) {
            client.subscribe([responseTopic])
            guard await eventually(timeout: timeout, { client.isSubscribed(responseTopic) }) else {
                throw TestClientError.notSubscribed
            }
        }
        client.publish(
            MQTTMessage(topic: topics.command(verb), payload: Array(payload.utf8), responseTopic: responseTopic, correlationData: correlation))
        guard let answer = await waitFor(responseTopic, timeout: timeout, where: { $0.correlationData == correlation }) else {
            throw TestClientError.noAnswer(verb)
        }
        return try JSONValue.parse(answer.payload)
    }
}

extension JSONValue {
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

extension TestClient {
    /// The latest message on `topic`, parsed as JSON.
    public func latest(_ topic: String) -> JSONValue? {
        messages(on: topic).last.flatMap { try? JSONValue.parse($0.payload) }
    }

    /// Waits until the latest message on `topic` satisfies `predicate`; returns it (or the last seen).
    public func latest(_ topic: String, timeout: Duration = eventHangGuard, where predicate: (JSONValue) -> Bool) async -> JSONValue? {
        var found: JSONValue?
        _ = await eventually(timeout: timeout) {
            found = latest(topic)
            return found.map(predicate) ?? false
        }
        return found
    }
}

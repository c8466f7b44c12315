import Foundation
import Logging
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import Synchronization

/// An MQTT 5 client for many requests in flight at once: every request carries the same Response
/// Topic and its own Correlation Data, and each answer is filed under that correlation as it
/// arrives (no wait for a subscription per request, unlike `TestClient.request`). It also keeps
/// the messages of the topics it watches.
public final class CorrelatedClient: Sendable {
    /// The correlated clients' own event loop: they stream thousands of commands (a crash test, a
    /// broker restarted under load, the bench), and the test clients' loop, which every other test
    /// waits on for its connection and its messages, must not be behind them.
    static let loop = NodeExecutor(name: "correlated clients")
    public let client: MQTTClient
    public let responseTopic: String
    private final class Inbox: Sendable {
        let answers = Mutex<[String: JSONValue]>([:])
        /// When each answer was read off the connection.
        let arrivals = Mutex<[String: ContinuousClock.Instant]>([:])
        let watched = Mutex<[String: [MQTTMessage]]>([:])
    }
    private let inbox = Inbox()

    public init(port: Int, responseTopic: String, watching topics: [String] = []) async throws {
        var logger = Logger(label: "correlated-client")
        logger.logLevel = .warning
        let client = try MQTTClient(
            options: MQTTOptions(
                host: "127.0.0.1", port: port, clientID: "test-\(UUID().uuidString.prefix(8))",
                minimumReconnectDelay: .milliseconds(200), maximumReconnectDelay: .seconds(1), queueLimit: 100_000,
                inFlightLimit: 1000),
            logger: logger, loop: Self.loop)
        self.client = client
        self.responseTopic = responseTopic
        let inbox = self.inbox
        // On the clients' loop thread as each is read (no hop to the test pool, whose threads
        // may be busy elsewhere): the arrival is when it came off the connection.
        client.deliver { message in
            if message.topic == responseTopic, let correlation = message.correlationData {
                let value = (try? JSONValue.parse(message.payload)) ?? .null
                let key = String(decoding: correlation, as: UTF8.self)
                inbox.arrivals.withLock { $0[key] = ContinuousClock.now }
                inbox.answers.withLock { $0[key] = value }
            } else {
                inbox.watched.withLock { $0[message.topic, default: []].append(message) }
            }
        }
        client.subscribe([responseTopic] + topics)
        client.start()
        // On the connection's events, not a clock (see `TestClient.init`).
        if await TestClient.waitForSubscription(client.events, subscriptions: [responseTopic] + topics) { return }
        throw TestClient.TestClientError.notSubscribed
    }

    /// Publishes a request on `topic`; its answer will be filed under `correlation`.
    public func send(_ topic: String, _ payload: String, correlation: String) {
        client.publish(
            MQTTMessage(
                topic: topic, payload: Array(payload.utf8), qos: 1, responseTopic: responseTopic,
                correlationData: Array(correlation.utf8)))
    }

    /// The answer filed under `correlation`, if it has come.
    public func answer(_ correlation: String) -> JSONValue? { inbox.answers.withLock { $0[correlation] } }

    /// When the answer filed under `correlation` arrived, if it has.
    public func arrival(_ correlation: String) -> ContinuousClock.Instant? { inbox.arrivals.withLock { $0[correlation] } }

    /// How many of `correlations` have been answered.
    public func answeredCount(_ correlations: some Sequence<String>) -> Int {
        inbox.answers.withLock { answers in correlations.reduce(0) { $0 + (answers[$1] == nil ? 0 : 1) } }
    }

    /// The messages received on a watched topic.
    public func messages(on topic: String) -> [MQTTMessage] { inbox.watched.withLock { $0[topic] ?? [] } }

    public func clearMessages() { inbox.watched.withLock { $0.removeAll() } }

    public func stop() async {
        await client.stop(timeout: .milliseconds(500))
    }
}

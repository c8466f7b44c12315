/// One MQTT message, in either direction.
public struct MQTTMessage: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool
    /// MQTT 5 Response Topic (request/response); nil on MQTT 3.1.1.
    public var responseTopic: String?
    /// MQTT 5 Correlation Data, echoed on a response.
    public var correlationData: [UInt8]?

    public init(
        topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false, responseTopic: String? = nil,
        correlationData: [UInt8]? = nil
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }

    public init(topic: String, text: String, qos: Int = 1, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    public var text: String { String(decoding: payload, as: UTF8.self) }

    /// About what the message holds in memory: its bytes and a fixed cost for the rest. What
    /// waits to be handled is bounded by it, so a flood of small messages is bounded too.
    public var heldBytes: Int {
        payload.count + topic.utf8.count + (responseTopic?.utf8.count ?? 0) + (correlationData?.count ?? 0) + 128
    }
}

public enum MQTTConnectionEvent: Sendable, Hashable {
    /// The broker accepted the connection; `online` and every retained state have been queued again.
    case connected
    /// Every subscription of this connection has been acknowledged.
    case subscribed
    case disconnected(reason: String)
}

extension MQTTTransport {
    public func waitForRoom() async {}
    public var hasRoom: Bool { true }
    public func publishNow(_ message: MQTTMessage) { publish(message) }
}

/// What the node needs of an MQTT client, so services can be tested with a fake.
public protocol MQTTTransport: Sendable {
    /// Queues a message and returns at once, connected or not (see `MQTTClient` for the queue's limits).
    func publish(_ message: MQTTMessage)
    /// `publish`, written to the socket at once when called on the loop thread, with what the turn
    /// handed over before it, instead of at the turn's end: for a message a subscriber times
    /// something by (an alarm's `alarm_ringing`), which then does not wait for the rest of the turn.
    func publishNow(_ message: MQTTMessage)
    /// Adds subscriptions, kept and restored after every reconnect.
    func subscribe(_ filters: [String])
    /// Hands every message from the broker on the subscribed topics to `handler`, on the node's
    /// loop thread (`NodeExecutor.shared`) as it is read: first those that came before, in order.
    /// One consumer, once.
    func deliver(to handler: @escaping @Sendable (MQTTMessage) -> Void)
    /// Connection changes. One consumer.
    var events: AsyncStream<MQTTConnectionEvent> { get }
    var isConnected: Bool { get }
    /// Returns when the outgoing queue has room again, at once when it has or the broker is away.
    /// A producer that can wait (the command loop) calls it, so a burst slows down instead of
    /// overflowing the queue.
    func waitForRoom() async
    /// False while the outgoing queue is too full for a producer that can wait (`waitForRoom`).
    var hasRoom: Bool { get }
    /// True when requests can carry a Response Topic and Correlation Data (MQTT 5).
    var supportsProperties: Bool { get }
    /// Publishes the latest value of every retained topic again (what a reconnect does), e.g.
    /// when Home Assistant has restarted and needs every state.
    func republishRetained()
}

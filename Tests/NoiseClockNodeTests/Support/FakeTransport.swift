import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import Synchronization

/// An `MQTTTransport` without a broker: it records what the node publishes and subscribes to, and
/// lets a test play the broker's side by injecting incoming messages and connection events.
final class FakeTransport: MQTTTransport {
    private struct State {
        var published: [MQTTMessage] = []
        /// The topics of the messages published with `publishNow`, in order.
        var publishedNow: [String] = []
        var subscriptions: [String] = []
        var connected = false
        var republished = 0
        var handler: (@Sendable (MQTTMessage) -> Void)?
        var inbox: [MQTTMessage] = []
    }

    let events: AsyncStream<MQTTConnectionEvent>
    let supportsProperties: Bool
    private let connection: AsyncStream<MQTTConnectionEvent>.Continuation
    private let state = Mutex(State())

    init(supportsProperties: Bool = true) {
        self.supportsProperties = supportsProperties
        (events, connection) = AsyncStream.makeStream(of: MQTTConnectionEvent.self)
    }

    deinit {
        connection.finish()
    }

    // MARK: MQTTTransport

    func publish(_ message: MQTTMessage) {
        state.withLock { $0.published.append(message) }
    }

    func publishNow(_ message: MQTTMessage) {
        state.withLock { state in
            state.published.append(message)
            state.publishedNow.append(message.topic)
        }
    }

    /// The topics of the messages published with `publishNow` (written at once), in order.
    var publishedNow: [String] { state.withLock { $0.publishedNow } }

    /// As the client does: on the node's loop thread, those injected before first.
    func deliver(to handler: @escaping @Sendable (MQTTMessage) -> Void) {
        NodeExecutor.shared.execute { [self] in
            let early = state.withLock { state in
                state.handler = handler
                defer { state.inbox = [] }
                return state.inbox
            }
            for message in early { handler(message) }
        }
    }

    func subscribe(_ filters: [String]) {
        state.withLock { $0.subscriptions += filters }
    }

    var isConnected: Bool { state.withLock { $0.connected } }

    /// Counts the calls; what the real client re-sends is its own table.
    func republishRetained() {
        state.withLock { $0.republished += 1 }
    }

    var republished: Int { state.withLock { $0.republished } }

    // MARK: The broker's side

    /// A message from the broker, as if some client had published it on a subscribed topic.
    func inject(_ message: MQTTMessage) {
        NodeExecutor.shared.execute { [self] in
            let handler = state.withLock { state in
                if state.handler == nil { state.inbox.append(message) }
                return state.handler
            }
            handler?(message)
        }
    }

    func send(_ event: MQTTConnectionEvent) {
        state.withLock {
            switch event {
            case .connected, .subscribed: $0.connected = true
            case .disconnected: $0.connected = false
            }
        }
        connection.yield(event)
    }

    // MARK: What the node did

    var published: [MQTTMessage] { state.withLock { $0.published } }

    var subscriptions: [String] { state.withLock { $0.subscriptions } }

    func published(on topic: String) -> [MQTTMessage] {
        published.filter { $0.topic == topic }
    }

    func clearPublished() {
        state.withLock { $0.published.removeAll() }
    }

    /// Waits (on the real clock, polling) until at least `count` messages were published, and returns
    /// them all; returns what there is when `timeout` passes first.
    @discardableResult
    func waitForPublished(count: Int, timeout: Duration = .seconds(20)) async -> [MQTTMessage] {
        _ = await eventually(timeout: timeout) { self.published.count >= count }
        return published
    }
}

extension MQTTMessage {
    /// The payload as JSON; nil when it is not JSON.
    var json: JSONValue? { try? JSONValue.parse(payload) }
}

extension JSONValue {
    subscript(_ key: String) -> JSONValue? { objectValue?[key] }

    var doubleValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }
}

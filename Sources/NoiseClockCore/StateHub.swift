import Synchronization

/// A change of the node's state as its subscribers see it: a retained state (`topic` relative to
/// `B`, e.g. `clock` or `alarm/next`) or an event (the `B/event` object).
public enum StateChange: Sendable, Hashable {
    case state(topic: String, value: JSONValue)
    case event(JSONValue)
}

/// Every retained state of the node (topic to its latest JSON value) and every event, fanned out
/// in order to each subscriber: the MQTT publisher, and any other transport. A new subscriber
/// first gets a snapshot of the latest values, in the order the topics first appeared, then each
/// change. Transport-neutral: it knows no broker and no topic prefix.
///
/// Handlers run synchronously, under the hub's lock, so every subscriber sees the same order;
/// a handler must be quick (hand the change to a queue) and must not call back into the hub.
public final class StateHub: Sendable {
    public struct Subscription: Sendable, Hashable {
        let id: Int
    }

    private struct State {
        var latest: [String: JSONValue] = [:]
        var order: [String] = []
        var subscribers: [(id: Int, handler: @Sendable (StateChange) -> Void)] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Sets the retained value of `topic` and hands it to every subscriber, unless it equals the
    /// value already held: retained states go out on change (`always` sends it again anyway, for a
    /// state that must be refreshed on a schedule, such as `B/battery`).
    public func publish(_ topic: String, _ value: JSONValue, always: Bool = false) {
        state.withLock { state in
            let previous = state.latest.updateValue(value, forKey: topic)
            if previous == nil { state.order.append(topic) }
            guard always || previous != value else { return }
            for subscriber in state.subscribers { subscriber.handler(.state(topic: topic, value: value)) }
        }
    }

    /// Hands an event to every subscriber; events are not kept.
    public func emit(_ event: JSONValue) {
        state.withLock { state in
            for subscriber in state.subscribers { subscriber.handler(.event(event)) }
        }
    }

    /// Adds a subscriber: `handler` gets every retained value now, then each change.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (StateChange) -> Void) -> Subscription {
        state.withLock { state in
            for topic in state.order {
                if let value = state.latest[topic] { handler(.state(topic: topic, value: value)) }
            }
            state.nextID += 1
            state.subscribers.append((state.nextID, handler))
            return Subscription(id: state.nextID)
        }
    }

    public func unsubscribe(_ subscription: Subscription) {
        state.withLock { $0.subscribers.removeAll { $0.id == subscription.id } }
    }

    /// The latest value of each retained topic, in the order the topics first appeared.
    public var snapshot: [(topic: String, value: JSONValue)] {
        state.withLock { state in state.order.compactMap { topic in state.latest[topic].map { (topic, $0) } } }
    }
}

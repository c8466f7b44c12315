import NoiseClockCore
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
/// Handlers run outside the hub's lock, in the order the changes were made (`InOrder`): the hub's
/// lock is never held while a handler runs, so a handler may publish into the hub (its change is
/// delivered after the current one) or take locks of its own, and no lock order runs through the
/// hub. A publisher must not hold a lock that a handler takes; a handler should be quick (hand the
/// change on to a queue). A publisher never waits for another thread's delivery: its change is
/// queued, and delivered, in order, by the thread already delivering.
///
/// Features tell each other what they need through the hub's typed `signals`, never by reading
/// each other's JSON.
public final class StateHub: Sendable {
    public struct Subscription: Sendable, Hashable {
        let id: Int
    }

    private typealias Handler = @Sendable (StateChange) -> Void

    /// What is waiting to be delivered: a change to the subscribers there were when it was made,
    /// or a new subscriber's snapshot.
    private enum Delivery {
        case change(StateChange, to: [Handler])
        case snapshot([StateChange], to: Handler)
    }

    private struct State {
        var latest: [String: JSONValue] = [:]
        var order: [String] = []
        var subscribers: [(id: Int, handler: Handler)] = []
        var nextID = 0
        var deliveries = InOrder<Delivery>()
    }

    private let state = Mutex(State())

    /// What features tell each other: an alarm or a timer ringing, the settings changed.
    public let signals = Signals()

    public init() {}

    /// Sets the retained value of `topic` and hands it to every subscriber, unless it equals the
    /// value already held: retained states go out on change (`always` sends it again anyway, for a
    /// state that must be refreshed on a schedule, such as `B/battery`).
    public func publish(_ topic: String, _ value: JSONValue, always: Bool = false) {
        let deliver = state.withLock { state -> Bool in
            let previous = state.latest.updateValue(value, forKey: topic)
            if previous == nil { state.order.append(topic) }
            guard always || previous != value else { return false }
            return state.deliveries.add(.change(.state(topic: topic, value: value), to: state.subscribers.map(\.handler)))
        }
        if deliver { drain() }
    }

    /// Hands an event to every subscriber; events are not kept.
    public func emit(_ event: JSONValue) {
        let deliver = state.withLock { state in
            state.deliveries.add(.change(.event(event), to: state.subscribers.map(\.handler)))
        }
        if deliver { drain() }
    }

    /// Adds a subscriber: `handler` gets every retained value now, then each change.
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (StateChange) -> Void) -> Subscription {
        let (subscription, deliver) = state.withLock { state in
            let snapshot = state.order.compactMap { topic in state.latest[topic].map { StateChange.state(topic: topic, value: $0) } }
            state.nextID += 1
            state.subscribers.append((state.nextID, handler))
            return (Subscription(id: state.nextID), state.deliveries.add(.snapshot(snapshot, to: handler)))
        }
        if deliver { drain() }
        return subscription
    }

    /// Removes a subscriber; changes already queued for it may still reach it.
    public func unsubscribe(_ subscription: Subscription) {
        state.withLock { $0.subscribers.removeAll { $0.id == subscription.id } }
    }

    /// The latest value of each retained topic, in the order the topics first appeared.
    public var snapshot: [(topic: String, value: JSONValue)] {
        state.withLock { state in state.order.compactMap { topic in state.latest[topic].map { (topic, $0) } } }
    }

    /// Delivers the queue, outside the lock, until it is empty.
    private func drain() {
        InOrder.drain(take: { batch in state.withLock { $0.deliveries.take(into: &batch) } }) { delivery in
            switch delivery {
            case .change(let change, let handlers):
                for handler in handlers { handler(change) }
            case .snapshot(let changes, let handler):
                for change in changes { handler(change) }
            }
        }
    }
}

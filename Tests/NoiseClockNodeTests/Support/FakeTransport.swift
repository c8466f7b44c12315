import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import NoiseClockTestSupport
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
        /// Tests waiting for the count of published messages to reach theirs.
        var waiters: [(id: Int, ready: @Sendable ([MQTTMessage]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextWaiter = 0
        /// Whether the outgoing queue has room (`hasRoom`); true unless a test says otherwise.
        var room = true
        /// How many times `hasRoom` was read, and `waitForRoom` called.
        var roomChecks = 0
        var roomWaits = 0
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
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
        let ready = state.withLock { state in
            state.published.append(message)
            return Self.takeReady(&state)
        }
        for waiter in ready { waiter.resume(returning: true) }
    }

    private static func takeReady(_ state: inout State) -> [CheckedContinuation<Bool, Never>] {
        let published = state.published
        let ready = state.waiters.filter { $0.ready(published) }
        state.waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
        return ready.map(\.continuation)
    }

    func publishNow(_ message: MQTTMessage) {
        let ready = state.withLock { state in
            state.published.append(message)
            state.publishedNow.append(message.topic)
            return Self.takeReady(&state)
        }
        for waiter in ready { waiter.resume(returning: true) }
    }

    /// As the client's: false while a test holds the outgoing queue full (`setRoom`).
    var hasRoom: Bool {
        state.withLock { state in
            state.roomChecks += 1
            return state.room
        }
    }

    /// Returns when `setRoom(true)` makes room, as the client's does when its queue drains.
    func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                state.roomWaits += 1
                if state.room { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Fills (false) or drains (true) the outgoing queue, as far as `hasRoom` and `waitForRoom` tell.
    func setRoom(_ room: Bool) {
        let waiters = state.withLock { state in
            state.room = room
            defer { if room { state.roomWaiters = [] } }
            return room ? state.roomWaiters : []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// How many times `hasRoom` was read and `waitForRoom` called.
    var roomLooks: (checks: Int, waits: Int) { state.withLock { ($0.roomChecks, $0.roomWaits) } }

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

    /// Waits until at least `count` messages were published, and returns them all. It waits for the
    /// publish itself, not for a time: the services that publish run on the test process's
    /// cooperative pool, which `swift test` fills with a thousand tests at once, so a wall-clock
    /// budget of seconds was sometimes spent before they were scheduled at all. `hangGuard` only
    /// ends a wait for a publish that never comes (the test then fails on what there is).
    @discardableResult
    func waitForPublished(count: Int, hangGuard: Duration = eventHangGuard) async -> [MQTTMessage] {
        _ = await waitUntilPublished(hangGuard: hangGuard) { $0.count >= count }
        return published
    }

    /// Waits until what was published satisfies `ready` (looked at after each publish); false
    /// when `hangGuard` ended the wait first.
    func waitUntilPublished(hangGuard: Duration = eventHangGuard, _ ready: @escaping @Sendable ([MQTTMessage]) -> Bool) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiting = state.withLock { state -> Bool in
                guard !ready(state.published) else { return false }
                state.waiters.append((id, ready, continuation))
                return true
            }
            guard waiting else { return continuation.resume(returning: true) }
            Task { [weak self] in
                try? await Task.sleep(for: hangGuard)
                let expired = self?.state.withLock { state in
                    let index = state.waiters.firstIndex { $0.id == id }
                    return index.map { state.waiters.remove(at: $0).continuation }
                }
                expired??.resume(returning: false)
            }
        }
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

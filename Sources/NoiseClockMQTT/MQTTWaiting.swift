/// Waiting for the client's state: for room in the outgoing queue (`waitForRoom`), for the queue
/// to reach the broker (`stop`). A waiter's continuation is kept with what it waits for, and the
/// change that brings it about resumes it (a PUBACK, a write, the queue handed to libmosquitto,
/// the connection lost): nothing polls, so a wait costs no wake-up of its own.
extension MQTTClient {
    /// What a task waits for.
    enum Condition: Sendable, Hashable {
        /// The outgoing queue is under half full, or the broker is away (`hasRoom`).
        case room
        /// Everything queued has been written and acknowledged, or the broker is away.
        case flushed
    }

    /// Whether `condition` holds in `state` (under the state lock).
    func holds(_ condition: Condition, in state: State) -> Bool {
        switch condition {
        case .room: !(state.connected && state.queue.count >= options.queueLimit / 2)
        case .flushed: !state.connected || (state.queue.isEmpty && state.inFlight == 0)
        }
    }

    /// Returns once `condition` holds, or the task is cancelled.
    func wait(for condition: Condition) async {
        let id = state.withLock { $0.waiters.add() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if holds(condition, in: state) {
                        state.waiters.remove(id)
                        return true
                    }
                    return !state.waiters.park(id, condition, continuation)
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.cancel(id) }?.resume()
        }
    }

    /// After a change of `state` (under its lock): the waiters whose condition now holds, taken
    /// out, to be resumed after unlocking (`resume`).
    func readyWaiters(in state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard state.waiters.hasWaiting else { return [] }
        let room = holds(.room, in: state), flushed = holds(.flushed, in: state)
        return state.waiters.take { $0 == .room ? room : flushed }
    }

    func resume(_ continuations: [CheckedContinuation<Void, Never>]) {
        for continuation in continuations { continuation.resume() }
    }
}

/// The tasks waiting on a client's state, in the order they came (`MQTTClient.wait(for:)`).
///
/// An entry lives from the start of a wait until it is resumed: `pending` until its continuation
/// is stored, then `waiting`; `cancelled` when its task was cancelled while pending. A resumed
/// wait has no entry, so a cancellation that comes after it finds nothing and leaves nothing.
struct StateWaiters {
    private enum Entry {
        case pending
        case waiting(MQTTClient.Condition, CheckedContinuation<Void, Never>)
        case cancelled
    }

    private var entries: [(id: UInt64, entry: Entry)] = []
    private var nextID: UInt64 = 0
    /// How many entries are `waiting`: a change with none costs one comparison.
    private var waitingCount = 0

    var hasWaiting: Bool { waitingCount > 0 }

    /// A new wait, pending.
    mutating func add() -> UInt64 {
        nextID += 1
        entries.append((nextID, .pending))
        return nextID
    }

    /// Stores the continuation of a pending wait; false (and the entry gone) when it was cancelled meanwhile.
    mutating func park(_ id: UInt64, _ condition: MQTTClient.Condition, _ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
        if case .cancelled = entries[index].entry {
            entries.remove(at: index)
            return false
        }
        entries[index].entry = .waiting(condition, continuation)
        waitingCount += 1
        return true
    }

    mutating func remove(_ id: UInt64) {
        entries.removeAll { $0.id == id }
    }

    /// A cancelled wait: its continuation when it was waiting (to resume), or nil (it is marked,
    /// and `park` ends it).
    mutating func cancel(_ id: UInt64) -> CheckedContinuation<Void, Never>? {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        switch entries[index].entry {
        case .waiting(_, let continuation):
            entries.remove(at: index)
            waitingCount -= 1
            return continuation
        case .pending:
            entries[index].entry = .cancelled
            return nil
        case .cancelled:
            return nil
        }
    }

    /// Takes out the waiting entries whose condition `holds`, oldest first.
    mutating func take(where holds: (MQTTClient.Condition) -> Bool) -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        entries.removeAll { item in
            guard case .waiting(let condition, let continuation) = item.entry, holds(condition) else { return false }
            ready.append(continuation)
            return true
        }
        waitingCount -= ready.count
        return ready
    }
}

import NoiseClockCore
import NoiseClockSystem
import Synchronization

/// Why a write was not made durable: the store's own error, or an earlier write of the same
/// document that failed (the later one was built on it, so it is refused with it).
public struct StoreFailure: Error, Sendable, CustomStringConvertible {
    public var reason: String
    /// The document's generation after the failure: changes staged from now on are built on what
    /// is durable, not on the refused change (see `Ledger`).
    public var generation: Int

    public var description: String { reason }
}

/// One write's outcome, awaited by the change that asked for it.
public final class StoreTicket: Sendable {
    private enum Phase {
        case waiting(CheckedContinuation<Result<Void, StoreFailure>, Never>?)
        case done(Result<Void, StoreFailure>)
    }

    private let phase = Mutex(Phase.waiting(nil))

    init() {}

    init(settled result: Result<Void, StoreFailure>) {
        phase.withLock { $0 = .done(result) }
    }

    /// Returns once the write is durable; throws when it is not and never will be.
    public nonisolated(nonsending) func wait() async throws(StoreFailure) {
        try await outcome().get()
    }

    /// The write's outcome, once there is one (what `Ledger.settle` takes). On the caller's
    /// executor (`nonisolated(nonsending)`): the waiter is noted in the same step that staged its
    /// change, so the changes' waits end in the order their writes do. (As a plain nonisolated
    /// function it was a hop to join the loop's queue; a command whose hop had not run before its
    /// write was done settled, and was answered, ahead of an earlier one still waiting.)
    public nonisolated(nonsending) func outcome() async -> Result<Void, StoreFailure> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, StoreFailure>, Never>) in
            let ready: Result<Void, StoreFailure>? = phase.withLock { phase in
                switch phase {
                case .done(let result): return result
                case .waiting: phase = .waiting(continuation); return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The outcome if the write is over, nil while it waits: `Ledger` keeps a change whose write
    /// already succeeded when a later write of the document fails.
    var settledOutcome: Result<Void, StoreFailure>? {
        phase.withLock { phase in
            if case .done(let result) = phase { result } else { nil }
        }
    }

    /// Called once, by the writer thread.
    func settle(_ result: Result<Void, StoreFailure>) {
        let waiter: CheckedContinuation<Result<Void, StoreFailure>, Never>? = phase.withLock { phase in
            guard case .waiting(let continuation) = phase else { return nil }
            phase = .done(result)
            return continuation
        }
        waiter?.resume(returning: result)
    }
}

/// Writes the node's documents on a thread of its own, so that no `fsync` ever runs on the
/// node's thread: an alarm rings, a timer ends and a ping is answered while a slow SD card
/// writes (SPEC §7, slow storage; §8).
///
/// - Group commit: the writes of one document that wait together share one write, of the latest
///   value (each value holds the changes before it, as `Ledger` builds them). A document written
///   every 100 ms on a disk whose write takes 600 ms is written back to back, each write carrying
///   every change that arrived during the one before.
/// - One failure policy: a failed write fails every write of that document that was queued on top
///   of it, and raises the document's generation. A write asked for on an older generation is
///   refused without touching the disk, so a change built on a refused one never reaches it.
/// - Order: documents are written in the order their first waiting write arrived.
///
/// The thread sleeps on a condition variable while nothing is queued: an idle node's writer never wakes.
public final class StoreWriter: Sendable {
    public let store: any Store

    private struct Pending {
        var value: JSONValue
        var tickets: [StoreTicket]
    }

    private struct Document {
        var generation = 0
        var queued: Pending?
    }

    private struct State {
        var documents: [String: Document] = [:]
        /// Names with a queued write, oldest first.
        var order: [String] = []
        var writing = false
        var flushes: [CheckedContinuation<Void, Never>] = []
        var started = false
        /// The last write's error, nil once a write succeeds again.
        var problem: String?
    }

    private let state = Mutex(State())
    private let work = WakeSignal()
    private let name: String
    /// Told when writing starts failing (the error) and when it works again (nil), on the writer's thread.
    private let health: @Sendable (String?) -> Void

    public init(store: any Store, name: String = "store writer", health: @escaping @Sendable (String?) -> Void = { _ in }) {
        self.store = store
        self.name = name
        self.health = health
    }

    /// The generation of document `name`: raised by each failed write of it.
    public func generation(of name: String) -> Int {
        state.withLock { $0.documents[name]?.generation ?? 0 }
    }

    /// Queues `value` as document `name`, built on `generation`. Returns at once; the ticket says
    /// when the write (or a later one of the same document that includes it) is durable.
    @discardableResult
    public func enqueue(_ name: String, _ value: JSONValue, generation: Int) -> StoreTicket {
        let ticket = StoreTicket()
        let (refused, startThread) = state.withLock { state -> (StoreFailure?, Bool) in
            var document = state.documents[name] ?? Document()
            guard generation >= document.generation else {
                return (StoreFailure(reason: "an earlier change of \(name) could not be stored", generation: document.generation), false)
            }
            if document.queued == nil {
                document.queued = Pending(value: value, tickets: [ticket])
                state.order.append(name)
            } else {
                document.queued?.value = value
                document.queued?.tickets.append(ticket)
            }
            state.documents[name] = document
            let start = !state.started
            state.started = true
            return (nil, start)
        }
        if let refused {
            ticket.settle(.failure(refused))
            return ticket
        }
        if startThread {
            Threads.start(name: self.name) { [self] in run() }
        } else {
            work.signal()
        }
        return ticket
    }

    /// Returns once every write queued before it has been made (or has failed). For tests and for
    /// a graceful stop.
    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if state.order.isEmpty && !state.writing { return true }
                state.flushes.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func run() {
        while true {
            let next: (String, Pending, Int)? = state.withLock { state in
                guard !state.order.isEmpty else { return nil }
                let name = state.order.removeFirst()
                guard let pending = state.documents[name]?.queued else { return nil }
                state.documents[name]?.queued = nil
                state.writing = true
                return (name, pending, state.documents[name]?.generation ?? 0)
            }
            guard let (document, pending, generation) = next else {
                let flushes = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    guard state.order.isEmpty else { return [] }
                    defer { state.flushes = [] }
                    return state.flushes
                }
                for flush in flushes { flush.resume() }
                if state.withLock({ $0.order.isEmpty }) {
                    // Once an hour at most when nothing is queued: the wait is for a signal.
                    work.wait(timeout: .seconds(3600))
                }
                continue
            }
            let outcome: Result<Void, StoreFailure>
            do {
                try store.save(document, pending.value)
                outcome = .success(())
            } catch {
                outcome = .failure(StoreFailure(reason: "\(error)", generation: generation + 1))
            }
            let (refusedQueue, healthChange) = state.withLock { state -> ([StoreTicket], String??) in
                state.writing = false
                var refused: [StoreTicket] = []
                let before = state.problem
                switch outcome {
                case .success:
                    state.problem = nil
                case .failure(let failure):
                    state.problem = failure.reason
                    state.documents[document]?.generation = failure.generation
                    // What was queued behind the failed write was built on it: refused with it.
                    if let queued = state.documents[document]?.queued {
                        refused = queued.tickets
                        state.documents[document]?.queued = nil
                        state.order.removeAll { $0 == document }
                    }
                }
                return (refused, before == state.problem ? .none : .some(state.problem))
            }
            // The health first: `B/status` says why before the refused change is answered.
            if let healthChange { health(healthChange) }
            for ticket in pending.tickets { ticket.settle(outcome) }
            if case .failure(let failure) = outcome {
                let refusal = StoreFailure(reason: "an earlier change of \(document) could not be stored: \(failure.reason)", generation: failure.generation)
                for ticket in refusedQueue { ticket.settle(.failure(refusal)) }
            }
        }
    }
}

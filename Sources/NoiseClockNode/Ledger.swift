import FoundationEssentials
import NoiseClockCore

/// A stored document as its owner holds it, written through the `StoreWriter`: the rule every
/// owner of state follows (SPEC §8).
///
/// - `current` is what is durable and what the owner acts on. A command's change is *staged*: run
///   on `staged` (the current state with the changes still being written), queued for writing,
///   and made current only once its write is durable. Until then nothing else sees it: an alarm
///   being added does not ring, a setting does not apply. Changes that wait together share one
///   write (each staged value holds those before it).
/// - A failed write refuses its change and every change staged on top of it: they are answered
///   `unavailable` and `staged` goes back to `current`, so memory is what the disk holds. A change
///   whose own write was already durable is kept (made current by its settle, answered ok): a
///   later write of the document failing does not undo it on disk.
/// - The clock's changes (a ring, a snooze's end) do not wait: `adopt` makes them current at once,
///   replays the staged changes on top (each change is a function, run again, not a value) and
///   queues the result without waiting for it.
///
/// A change must be a pure function of the state: it may run more than once (when staged, on each
/// replay, and when it becomes current), so anything random (a new id) is chosen before.
struct Ledger<State: Equatable & Sendable, Effect: Sendable>: Sendable {
    typealias Change = @Sendable (inout State) throws(CommandError) -> Effect

    /// What staging a change did.
    enum Staged {
        /// It changes nothing: nothing to write, here is its effect.
        case unchanged(Effect)
        /// Queued: wait on the ticket, then `settle(seq, …)`.
        case queued(seq: Int, ticket: StoreTicket)
    }

    private struct Entry: Sendable {
        var seq: Int
        var change: Change
        /// Its own write's: the first that holds it.
        var ticket: StoreTicket
    }

    let name: String
    let writer: StoreWriter
    let encode: @Sendable (State) -> JSONValue
    private(set) var current: State
    private(set) var staged: State
    private var pending: [Entry] = []
    /// Results of changes settled by another change's settle, kept for their own.
    private var settled: [Int: Result<Effect, CommandError>] = [:]
    private var nextSeq = 0
    private var generation: Int

    init(_ name: String, _ state: State, writer: StoreWriter, encode: @escaping @Sendable (State) -> JSONValue) {
        self.name = name
        self.writer = writer
        self.encode = encode
        current = state
        staged = state
        generation = writer.generation(of: name)
    }

    /// Whether changes are waiting for their write.
    var isWriting: Bool { !pending.isEmpty }

    /// Runs `change` on the staged state; throws its error and stages nothing when it throws.
    mutating func stage(_ change: @escaping Change) throws(CommandError) -> Staged {
        catchUp()
        var next = staged
        let effect = try change(&next)
        guard next != staged else { return .unchanged(effect) }
        staged = next
        nextSeq += 1
        let ticket = writer.enqueue(name, encode(next), generation: generation)
        pending.append(Entry(seq: nextSeq, change: change, ticket: ticket))
        return .queued(seq: nextSeq, ticket: ticket)
    }

    /// After change `seq`'s ticket: on success it (and every change staged before it) becomes
    /// current, and the effects of all of them made current now are returned, oldest first, with
    /// its own result last; on failure nothing becomes current: the changes not yet durable are
    /// dropped and it is refused `unavailable`.
    mutating func settle(_ seq: Int, _ outcome: Result<Void, StoreFailure>, what: String) -> (made: [Effect], result: Result<Effect, CommandError>) {
        if let done = settled.removeValue(forKey: seq) { return ([], done) }
        switch outcome {
        case .failure(let failure):
            refuseAll(failure, what: what)
            return ([], settled.removeValue(forKey: seq) ?? .failure(CommandError(.unavailable, "\(what) could not be stored: \(failure.reason)")))
        case .success:
            var made: [Effect] = []
            var own: Result<Effect, CommandError>?
            while let first = pending.first, first.seq <= seq {
                pending.removeFirst()
                var next = current
                let result: Result<Effect, CommandError>
                do {
                    let effect = try first.change(&next)
                    current = next
                    if first.seq != seq { made.append(effect) }
                    result = .success(effect)
                } catch {
                    result = .failure(error)
                }
                if first.seq == seq { own = result } else { settled[first.seq] = result }
            }
            return (made, own ?? .failure(CommandError(.unavailable, "\(what) was not stored")))
        }
    }

    /// A change the clock brings: current at once; the staged changes replayed on it; queued for
    /// writing; the ticket may be waited on or not. A failure to store it shows at the next `stage`.
    @discardableResult
    mutating func adopt(_ next: State) -> StoreTicket? {
        catchUp()
        guard next != current else { return nil }
        current = next
        restage()
        return writer.enqueue(name, encode(staged), generation: generation)
    }

    /// A write of this document failed since the last look (the clock's, not awaited): the staged
    /// changes not yet durable went with it.
    private mutating func catchUp() {
        let now = writer.generation(of: name)
        guard now != generation else { return }
        refuseAll(StoreFailure(reason: "an earlier change of \(name) could not be stored", generation: now), what: name)
    }

    /// Refuses the staged changes whose write failed or never will be made. Those whose own write
    /// succeeded stay, to be made current by their settle: the writer settles a write's tickets
    /// before it makes the next, and a failure refuses every write of the document after it, so by
    /// now they are settled, and they are the oldest.
    private mutating func refuseAll(_ failure: StoreFailure, what: String) {
        generation = max(generation, failure.generation)
        let durable = pending.prefix { entry in
            if case .success = entry.ticket.settledOutcome { true } else { false }
        }.count
        for entry in pending[durable...] {
            settled[entry.seq] = .failure(CommandError(.unavailable, "\(what) could not be stored: \(failure.reason)"))
        }
        pending.removeSubrange(durable...)
        restage()
    }

    /// `staged` as `current` with the pending changes replayed on it; one that no longer applies
    /// is refused with its error.
    private mutating func restage() {
        staged = current
        var kept: [Entry] = []
        for entry in pending {
            var candidate = staged
            do {
                _ = try entry.change(&candidate)
                staged = candidate
                kept.append(entry)
            } catch {
                settled[entry.seq] = .failure(error)
            }
        }
        pending = kept
    }
}

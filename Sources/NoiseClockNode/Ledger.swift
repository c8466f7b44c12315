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
///   `unavailable` and `staged` goes back to `current`, so memory is what the disk holds.
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

    let name: String
    let writer: StoreWriter
    let encode: @Sendable (State) -> JSONValue
    private(set) var current: State
    private(set) var staged: State
    private var pending: [(seq: Int, change: Change)] = []
    /// Effects of changes made current by another change's settle, kept for their own.
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
        pending.append((nextSeq, change))
        return .queued(seq: nextSeq, ticket: writer.enqueue(name, encode(next), generation: generation))
    }

    /// After change `seq`'s ticket: on success it (and every change staged before it) becomes
    /// current, and the effects of all of them made current now are returned, oldest first, with
    /// its own result last; on failure the staged changes are dropped and it throws `unavailable`.
    mutating func settle(_ seq: Int, _ outcome: Result<Void, StoreFailure>, what: String) -> (made: [Effect], result: Result<Effect, CommandError>) {
        if let done = settled.removeValue(forKey: seq) { return ([], done) }
        switch outcome {
        case .failure(let failure):
            refuseAll(failure, what: what)
            return ([], settled.removeValue(forKey: seq) ?? .failure(CommandError(.unavailable, "\(what) could not be stored: \(failure.reason)")))
        case .success:
            var made: [Effect] = []
            while let first = pending.first, first.seq <= seq {
                pending.removeFirst()
                do {
                    let effect = try first.change(&current)
                    if first.seq == seq { return (made, .success(effect)) }
                    made.append(effect)
                    settled[first.seq] = .success(effect)
                } catch {
                    settled[first.seq] = .failure(error)
                }
            }
            return (made, settled.removeValue(forKey: seq) ?? .failure(CommandError(.unavailable, "\(what) was not stored")))
        }
    }

    /// A change the clock brings: current at once; the staged changes replayed on it; queued for
    /// writing; the ticket may be waited on or not. A failure to store it shows at the next `stage`.
    @discardableResult
    mutating func adopt(_ next: State) -> StoreTicket? {
        catchUp()
        guard next != current else { return nil }
        current = next
        staged = next
        var kept: [(seq: Int, change: Change)] = []
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
        return writer.enqueue(name, encode(staged), generation: generation)
    }

    /// A write of this document failed since the last look (the clock's, not awaited): the staged
    /// changes went with it.
    private mutating func catchUp() {
        let now = writer.generation(of: name)
        guard now != generation else { return }
        refuseAll(StoreFailure(reason: "an earlier change of \(name) could not be stored", generation: now), what: name)
    }

    private mutating func refuseAll(_ failure: StoreFailure, what: String) {
        generation = max(generation, failure.generation)
        for entry in pending {
            settled[entry.seq] = .failure(CommandError(.unavailable, "\(what) could not be stored: \(failure.reason)"))
        }
        pending = []
        staged = current
    }
}

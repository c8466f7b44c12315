import FoundationEssentials
import NoiseClockCore

/// A stored document as its owner holds it, written through the `StoreWriter`: the rule every
/// owner of state follows (SPEC §8).
///
/// - `current` is what is durable and what the owner acts on. A command's change is *staged*: run
///   on `staged` (the current state with the changes still being written), queued for writing,
///   and made current only once its write is durable. Until then nothing else sees it: an alarm
///   being added does not ring, a setting does not apply. Changes that wait together share one
///   write (each staged value holds those before it). `commit` is how an owner does it.
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
    /// current. `made` is the effects of the changes made current now, oldest first, its own last
    /// (none of them when an earlier settle made it current): the caller carries them out, so each
    /// is carried out once. `result` is its own. On failure nothing becomes current: the changes
    /// not yet durable are dropped and it is refused `unavailable`.
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
                    made.append(effect)
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

extension Ledger {
    /// What a settle made current, for its owner to carry out.
    struct Made {
        /// `current` before it.
        var before: State
        /// The effects of the changes it made current, oldest first.
        var effects: [Effect]
    }

    /// The one way an owner's command changes its document: stages `change`, waits for its write
    /// without holding the caller's thread, and settles it. `ledger` is called at once with a
    /// closure to run on the owner's ledger (a stored property, or one behind a lock): once to
    /// stage, once to settle, never across the wait, during which other changes are staged and
    /// settled in order. `made` is called before this returns or throws, when the settle made
    /// changes current: this one is among them, last, unless an earlier settle made it current
    /// (and handed it to that owner's `made`), so each effect is carried out once. Returns the
    /// change's effect (at once, unwritten, when it changes nothing); throws its error, or
    /// `unavailable` when it could not be stored.
    static func commit(
        _ change: @escaping Change, what: String,
        in ledger: (_ use: (inout Ledger) -> Void) -> Void,
        made: (Made) -> Void,
        isolation: isolated (any Actor)? = #isolation
    ) async throws(CommandError) -> Effect {
        var staged: Result<Staged, CommandError> = .failure(CommandError(.internal, "\(what) was not staged"))
        ledger { ledger in
            do throws(CommandError) {
                staged = .success(try ledger.stage(change))
            } catch {
                staged = .failure(error)
            }
        }
        switch try staged.get() {
        case .unchanged(let effect):
            return effect
        case .queued(let seq, let ticket):
            let outcome = await ticket.outcome()
            var settled: (made: Made, result: Result<Effect, CommandError>)?
            ledger { ledger in
                let before = ledger.current
                let (effects, result) = ledger.settle(seq, outcome, what: what)
                settled = (Made(before: before, effects: effects), result)
            }
            guard let settled else { throw CommandError(.internal, "\(what) was not settled") }
            if !settled.made.effects.isEmpty { made(settled.made) }
            return try settled.result.get()
        }
    }
}

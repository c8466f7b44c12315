import Foundation
import NoiseClockCore
import PropertyBased
import Testing

@testable import NoiseClockNode

@Suite("The ledger against a model: what was answered is what a restart finds (SPEC §8)")
struct LedgerPropertyTests {
    @Test("changes, clock changes, writes that succeed or fail and owners that look in any order: a restart finds exactly the changes answered ok, in order; memory agrees; each was carried out once")
    func answeredIsWhatARestartFinds() async {
        // Each number is one step (see `LedgerWalk.run`); a failing walk is printed as its steps.
        await propertyCheck(count: 300, input: Gen.int(in: 0...99).array(of: 1...48)) { steps in
            var walk = LedgerWalk()
            await walk.run(steps)
        }
    }
}

/// One walk: a ledger on a `StepStore` (the real `StoreWriter`, each save ended by the walk), and
/// the model, which is only what the owners were answered.
struct LedgerWalk {
    typealias List = LedgerTests.List

    let store = StepStore()
    var ledger: List
    var started: AsyncStream<JSONValue>.Iterator
    /// A save waits in the store for its verdict: it holds `inSave`, and `queued` wait behind it.
    var saving = false
    var inSave: [StoreTicket] = [], queued: [StoreTicket] = []
    var lastSaveOK: Bool?
    /// Staged changes whose owner has not looked yet.
    var waiting: [(seq: Int, item: String, ticket: StoreTicket)] = []
    /// The model: the changes answered ok (by when they were asked for), and the clock's.
    var answered: [(seq: Int, item: String)] = []
    var clock: [String] = []
    var carriedOut: [String] = []
    var made = 0

    init() {
        ledger = LedgerTests.list(StoreWriter(store: store))
        started = store.started.makeAsyncIterator()
    }

    /// 0-29 a command's change, 30-39 a clock's, 40-59 the waiting save succeeds, 60-71 it fails,
    /// 72-99 an owner whose write is over looks (which one: the number). Then every save succeeds,
    /// every owner looks, the latest first, and the store is read as a restart would.
    mutating func run(_ steps: [Int]) async {
        for step in steps {
            switch step {
            case 0..<30: await stage()
            case 30..<40: await adopt()
            case 40..<60: await finish(ok: true)
            case 60..<72: await finish(ok: false)
            default: look(step)
            }
        }
        while saving { await finish(ok: true) }
        while !waiting.isEmpty { look(waiting.count - 1) }
        check()
    }

    private mutating func stage() async {
        made += 1
        let item = "c\(made)"
        do {
            guard case .queued(let seq, let ticket) = try ledger.stage(LedgerTests.append(item)) else {
                Issue.record("an append changes the list")
                return
            }
            waiting.append((seq, item, ticket))
            await enqueued(ticket)
        } catch {
            Issue.record("an append is never refused as it is staged: \(error)")
        }
    }

    private mutating func adopt() async {
        made += 1
        let item = "k\(made)"
        clock.append(item)
        guard let ticket = ledger.adopt(ledger.current + [item]) else {
            Issue.record("a clock's change changes the list")
            return
        }
        await enqueued(ticket)
    }

    /// Follows the writer: a write asked for while none is made starts a save at once (waited
    /// for, so the walk knows which save holds what); one asked for during a save waits behind it.
    private mutating func enqueued(_ ticket: StoreTicket) async {
        guard ticket.settledOutcome == nil else { return }
        if saving {
            queued.append(ticket)
        } else {
            _ = await started.next()
            saving = true
            inSave = [ticket]
        }
    }

    /// Ends the waiting save, and waits until the writer has settled its tickets: when more is
    /// queued, the next save starts only after; otherwise every ticket is awaited.
    private mutating func finish(ok: Bool) async {
        guard saving else { return }
        store.finish(ok: ok)
        lastSaveOK = ok
        if ok, !queued.isEmpty {
            _ = await started.next()
            inSave = queued
        } else {
            for ticket in inSave + queued { _ = await ticket.outcome() }
            inSave = []
            saving = false
        }
        queued = []
    }

    /// The owner of one of the changes whose write is over looks: `Ledger.commit`'s settle.
    private mutating func look(_ step: Int) {
        let ready = waiting.indices.filter { waiting[$0].ticket.settledOutcome != nil }
        guard !ready.isEmpty else { return }
        let change = waiting.remove(at: ready[step % ready.count])
        guard let outcome = change.ticket.settledOutcome else { return }
        let settled = ledger.settle(change.seq, outcome, what: "list")
        carriedOut += settled.made
        switch settled.result {
        case .success(let item):
            #expect(item == change.item)
            #expect(stored.contains(item), "\(item) is answered ok only once it is on the disk: \(stored)")
            answered.append((change.seq, item))
        case .failure(let error):
            #expect(error.code == .unavailable, "\(change.item): \(error)")
        }
    }

    private var stored: [String] {
        (store.inner.document("l.json")?.items ?? []).compactMap(\.stringValue)
    }

    private func check() {
        let restart = stored
        let ok = answered.sorted { $0.seq < $1.seq }.map(\.item)
        #expect(restart.filter { $0.hasPrefix("c") } == ok, "a restart finds exactly the changes answered ok, in order")
        #expect(ledger.current.filter { $0.hasPrefix("c") } == ok, "memory holds the changes answered ok")
        #expect(ledger.current.filter { $0.hasPrefix("k") } == clock, "the clock's changes are current at once, and stay")
        #expect(carriedOut == ok, "each change answered ok is carried out once, as it becomes current")
        #expect(!ledger.isWriting && ledger.staged == ledger.current)
        if lastSaveOK == true {
            #expect(restart == ledger.current, "after a save that worked, memory is what the disk holds")
        }
    }
}

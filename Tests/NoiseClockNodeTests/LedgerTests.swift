import Foundation
import NoiseClockCore
import Testing

@testable import NoiseClockNode

@Suite("The ledger keeps its word: a change whose write succeeded is answered ok whatever fails after it, and commit carries out each change once")
struct LedgerTests {
    typealias List = Ledger<[String], String>

    static func list(_ writer: StoreWriter) -> List {
        List("l.json", [], writer: writer) { .array($0.map { .string($0) }) }
    }

    static func append(_ item: String) -> List.Change {
        { list in
            list.append(item)
            return item
        }
    }

    /// The ledger and its store as the node has them when `a` was written and is durable, then
    /// `b`'s write (holding `a`) failed, before either owner has looked.
    struct Scene {
        var ledger: List
        let store: StepStore
        let a: Int, first: StoreTicket
        let b: Int, second: StoreTicket
        /// The store's saves from the next one on.
        var started: AsyncStream<JSONValue>.Iterator
    }

    static func durableThenFailed() async throws -> Scene {
        let store = StepStore()
        let writer = StoreWriter(store: store)
        var started = store.started.makeAsyncIterator()
        var ledger = list(writer)
        guard case .queued(let a, let first) = try ledger.stage(append("a")) else { throw CommandError(.internal, "a was not queued") }
        #expect(await started.next() == ["a"])
        guard case .queued(let b, let second) = try ledger.stage(append("b")) else { throw CommandError(.internal, "b was not queued") }
        store.finish(ok: true)
        // b's write starts once a's tickets are settled.
        #expect(await started.next() == ["a", "b"])
        store.finish(ok: false)
        _ = await second.outcome()
        return Scene(ledger: ledger, store: store, a: a, first: first, b: b, second: second, started: started)
    }

    @Test("a later write failing and settling first: the change already durable is made current and answered ok, the failed one unavailable")
    func laterFailureSettlesFirst() async throws {
        var scene = try await Self.durableThenFailed()

        let settledB = scene.ledger.settle(scene.b, await scene.second.outcome(), what: "list")
        #expect(settledB.made.isEmpty)
        #expect(throws: CommandError.self) { try settledB.result.get() }
        #expect(scene.ledger.current == [] && scene.ledger.staged == ["a"], "a is still on its way to current; b is gone")

        let settledA = scene.ledger.settle(scene.a, await scene.first.outcome(), what: "list")
        #expect(try settledA.result.get() == "a")
        #expect(scene.ledger.current == ["a"])
        #expect(scene.store.inner.document("l.json") == ["a"], "what was answered is what the disk holds")
    }

    @Test("a later write failing, found by the next change before anyone settles: the durable change stays, and the next is built on it")
    func laterFailureFoundByTheNextStage() async throws {
        var scene = try await Self.durableThenFailed()

        guard case .queued(let c, let third) = try scene.ledger.stage(Self.append("c")) else {
            Issue.record("c changes the list: queued")
            return
        }
        #expect(scene.ledger.staged == ["a", "c"])
        #expect(await scene.started.next() == ["a", "c"])
        scene.store.finish(ok: true)

        #expect(try scene.ledger.settle(scene.a, await scene.first.outcome(), what: "list").result.get() == "a")
        let outcomeB = await scene.second.outcome()
        #expect(throws: CommandError.self) { try scene.ledger.settle(scene.b, outcomeB, what: "list").result.get() }
        #expect(try scene.ledger.settle(c, await third.outcome(), what: "list").result.get() == "c")
        #expect(scene.ledger.current == ["a", "c"])
        #expect(scene.store.inner.document("l.json") == ["a", "c"])
    }

    @Test("a later write failing, found by a clock change: the durable change stays staged on top of it")
    func laterFailureFoundByAdopt() async throws {
        var scene = try await Self.durableThenFailed()

        let clock = scene.ledger.adopt(["clock"])
        #expect(scene.ledger.current == ["clock"] && scene.ledger.staged == ["clock", "a"])
        #expect(await scene.started.next() == ["clock", "a"])
        scene.store.finish(ok: true)
        _ = await clock?.outcome()

        #expect(try scene.ledger.settle(scene.a, await scene.first.outcome(), what: "list").result.get() == "a")
        #expect(scene.ledger.current == ["clock", "a"])
        #expect(scene.store.inner.document("l.json") == ["clock", "a"])
    }

    // MARK: commit, the one way an owner changes its document

    @Test("commit carries out the effects of every change its settle makes current, earlier ones included, once each and in order")
    func commitCarriesOutWhatItMadeCurrent() async throws {
        let store = StepStore()
        var started = store.started.makeAsyncIterator()
        let owner = ListOwner(writer: StoreWriter(store: store))
        // a's owner has not looked yet when b's settle makes a current.
        guard case .queued(let a, let first) = try await owner.stage("a") else {
            Issue.record("a changes the list: queued")
            return
        }
        #expect(await started.next() == ["a"])
        let b = Task { try await owner.commit("b") }
        store.finish(ok: true)
        #expect(await started.next() == ["a", "b"])
        store.finish(ok: true)
        #expect(try await b.value == "b")
        #expect(await owner.carriedOut == ["a", "b"])

        let settledA = await owner.settle(a, await first.outcome())
        #expect(try settledA.result.get() == "a")
        #expect(settledA.made.isEmpty, "a was carried out by b's commit")
        #expect(await owner.ledger.current == ["a", "b"])
    }

    @Test("commit of a change whose write fails throws unavailable and carries out nothing")
    func commitRefused() async throws {
        let store = StepStore()
        var started = store.started.makeAsyncIterator()
        let owner = ListOwner(writer: StoreWriter(store: store))
        let x = Task { try await owner.commit("x") }
        #expect(await started.next() == ["x"])
        store.finish(ok: false)
        let error = await #expect(throws: CommandError.self) { try await x.value }
        #expect(error?.code == .unavailable)
        #expect(await owner.carriedOut.isEmpty)
        let ledger = await owner.ledger
        #expect(ledger.current == [] && ledger.staged == [])
    }

    @Test("commit of a change that changes nothing returns its effect at once, writes nothing and carries out nothing")
    func commitUnchanged() async throws {
        let store = StepStore()
        let writer = StoreWriter(store: store)
        let owner = ListOwner(writer: writer)
        #expect(try await owner.commit(nothing: "same") == "same")
        #expect(await owner.carriedOut.isEmpty)
        #expect(await !owner.ledger.isWriting)
        await writer.flush()
        #expect(store.inner.saves == 0)
    }
}

/// An owner of a document as the node's are: its ledger a stored property of one isolation
/// domain, changed through `Ledger.commit`, which records what it carried out.
actor ListOwner {
    var ledger: LedgerTests.List
    private(set) var carriedOut: [String] = []

    init(writer: StoreWriter) {
        ledger = LedgerTests.list(writer)
    }

    func commit(_ item: String) async throws(CommandError) -> String {
        try await Ledger.commit(LedgerTests.append(item), what: "list", in: { $0(&ledger) }) { made in
            carriedOut += made.effects
        }
    }

    func commit(nothing effect: String) async throws(CommandError) -> String {
        try await Ledger.commit({ _ in effect }, what: "list", in: { $0(&ledger) }) { made in
            carriedOut += made.effects
        }
    }

    /// Stages by hand: an owner whose task has not resumed yet.
    func stage(_ item: String) throws(CommandError) -> LedgerTests.List.Staged {
        try ledger.stage(LedgerTests.append(item))
    }

    func settle(_ seq: Int, _ outcome: Result<Void, StoreFailure>) -> (made: [String], result: Result<String, CommandError>) {
        ledger.settle(seq, outcome, what: "list")
    }
}

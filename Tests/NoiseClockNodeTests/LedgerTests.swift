import Foundation
import NoiseClockCore
import Testing

@testable import NoiseClockNode

@Suite("The ledger keeps its word: a change whose write succeeded is answered ok, whatever fails after it")
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
}

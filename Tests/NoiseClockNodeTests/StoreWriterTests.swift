import Foundation
import NoiseClockCore
import NoiseClockSystem
import Synchronization
import Testing

@testable import NoiseClockNode

/// A store whose saves wait at a gate the test opens, and which fails the saves it is told to:
/// a disk as slow or as broken as a test needs, without any sleep.
final class GateStore: Store {
    let inner = InMemoryStore()
    private let gate = WakeSignal()
    private let state = Mutex<(closed: Bool, failing: Bool, saved: [JSONValue])>((false, false, []))
    /// Each save as it starts (before the gate).
    let started: AsyncStream<JSONValue>
    private let startedContinuation: AsyncStream<JSONValue>.Continuation

    init() {
        (started, startedContinuation) = AsyncStream.makeStream(of: JSONValue.self)
    }

    var saved: [JSONValue] { state.withLock { $0.saved } }

    func close() { state.withLock { $0.closed = true } }

    /// Lets every waiting save and those after it through.
    func open() {
        state.withLock { $0.closed = false }
        gate.signal()
    }

    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

    func load(_ name: String) -> StoredDocument { inner.load(name) }

    func save(_ name: String, _ value: JSONValue) throws {
        startedContinuation.yield(value)
        while state.withLock({ $0.closed }) { gate.wait(timeout: .seconds(60)) }
        if state.withLock({ $0.failing }) { throw StoreError(path: "/state/\(name)", operation: "fsync", errno: EIO) }
        state.withLock { $0.saved.append(value) }
        try inner.save(name, value)
    }

    func moveAside(_ name: String, reason: String) -> StoredDocument { inner.moveAside(name, reason: reason) }
}

@Suite("Store writer: group commit, one failure policy, and the ledger")
struct StoreWriterTests {
    @Test("writes of one document that wait together share one write, of the latest value, and all are answered")
    func groupCommit() async throws {
        let store = GateStore()
        let writer = StoreWriter(store: store)
        var started = store.started.makeAsyncIterator()
        store.close()
        let first = writer.enqueue("a.json", 1, generation: 0)
        #expect(await started.next() == 1)
        let waiting = (2...4).map { writer.enqueue("a.json", .number(Double($0)), generation: 0) }
        store.open()
        try await first.wait()
        for ticket in waiting { try await ticket.wait() }
        #expect(store.saved == [1, 4])
    }

    @Test("a failed write fails the writes queued on top of it and raises the generation; an older generation never reaches the disk")
    func failurePolicy() async throws {
        let store = GateStore()
        let writer = StoreWriter(store: store)
        var started = store.started.makeAsyncIterator()
        store.close()
        store.fail(true)
        let first = writer.enqueue("a.json", 1, generation: 0)
        #expect(await started.next() == 1)
        let queued = writer.enqueue("a.json", 2, generation: 0)
        store.open()
        await #expect(throws: StoreFailure.self) { try await first.wait() }
        await #expect(throws: StoreFailure.self) { try await queued.wait() }
        #expect(writer.generation(of: "a.json") == 1)

        store.fail(false)
        // Another document keeps its own generation.
        try await writer.enqueue("b.json", 9, generation: 0).wait()
        let stale = writer.enqueue("a.json", 3, generation: 0)
        await #expect(throws: StoreFailure.self) { try await stale.wait() }
        try await writer.enqueue("a.json", 4, generation: 1).wait()
        #expect(store.saved == [9, 4])
    }

    @Test("the ledger: staged changes are current only once written; a clock change is current at once, the staged ones replayed on it")
    func ledger() async throws {
        let store = GateStore()
        let writer = StoreWriter(store: store)
        var started = store.started.makeAsyncIterator()
        var ledger = Ledger<[String], String>("l.json", [], writer: writer) { .array($0.map { .string($0) }) }
        store.close()
        guard case .queued(let a, let first) = try ledger.stage({ $0.append("a"); return "a" }) else {
            Issue.record("a change that changes something is queued")
            return
        }
        _ = await started.next()
        guard case .queued(let b, let second) = try ledger.stage({ $0.append("b"); return "b" }) else {
            Issue.record("a change that changes something is queued")
            return
        }
        #expect(ledger.current == [] && ledger.staged == ["a", "b"])
        ledger.adopt(["clock"])
        #expect(ledger.current == ["clock"] && ledger.staged == ["clock", "a", "b"])
        store.open()
        try await second.wait()
        try await first.wait()
        // b's settle makes a current too (its write held a): both effects, in order, to be carried
        // out once; a's result is kept for a's own settle, which makes nothing current.
        let settledB = ledger.settle(b, .success(()), what: "list")
        #expect(settledB.made == ["a", "b"])
        #expect(try settledB.result.get() == "b")
        let settledA = ledger.settle(a, .success(()), what: "list")
        #expect(settledA.made.isEmpty)
        #expect(try settledA.result.get() == "a")
        #expect(ledger.current == ["clock", "a", "b"])
        await writer.flush()
        #expect(store.inner.document("l.json") == ["clock", "a", "b"])
    }

    @Test("the ledger: a refused write leaves current and staged as they were, and what is staged after it is built on what is durable")
    func ledgerFailure() async throws {
        let store = GateStore()
        let writer = StoreWriter(store: store)
        var ledger = Ledger<[String], Void>("l.json", ["x"], writer: writer) { .array($0.map { .string($0) }) }
        store.fail(true)
        guard case .queued(let seq, let ticket) = try ledger.stage({ $0.append("refused") }) else {
            Issue.record("queued")
            return
        }
        let outcome = await ticket.outcome()
        #expect(throws: CommandError.self) { try ledger.settle(seq, outcome, what: "list").result.get() }
        #expect(ledger.current == ["x"] && ledger.staged == ["x"])
        store.fail(false)
        guard case .queued(let next, let kept) = try ledger.stage({ $0.append("kept") }) else {
            Issue.record("queued")
            return
        }
        try await kept.wait()
        _ = try ledger.settle(next, .success(()), what: "list").result.get()
        #expect(store.inner.document("l.json") == ["x", "kept"])
    }
}

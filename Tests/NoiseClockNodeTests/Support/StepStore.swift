import Foundation
import NoiseClockCore
import NoiseClockSystem
import Synchronization

@testable import NoiseClockNode

/// A store whose every save waits until the test ends it, as a success or a failure: the test
/// decides when each write is made and how it ends, one at a time, without any sleep.
final class StepStore: Store {
    let inner = InMemoryStore()
    private let gate = WakeSignal()
    /// The verdicts given and not yet taken by a save, oldest first.
    private let verdicts = Mutex<[Bool]>([])
    /// Each save's value as it starts (before it waits for its verdict).
    let started: AsyncStream<JSONValue>
    private let startedContinuation: AsyncStream<JSONValue>.Continuation

    init() {
        (started, startedContinuation) = AsyncStream.makeStream(of: JSONValue.self)
    }

    /// Ends the save that waits (or the next one) as a success or a failure.
    func finish(ok: Bool) {
        verdicts.withLock { $0.append(ok) }
        gate.signal()
    }

    func load(_ name: String) -> StoredDocument { inner.load(name) }

    func save(_ name: String, _ value: JSONValue) throws {
        startedContinuation.yield(value)
        var verdict: Bool?
        while verdict == nil {
            verdict = verdicts.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if verdict == nil { gate.wait(timeout: .seconds(60)) }
        }
        guard verdict == true else { throw StoreError(path: "/state/\(name)", operation: "fsync", errno: EIO) }
        try inner.save(name, value)
    }

    func moveAside(_ name: String, reason: String) -> StoredDocument { inner.moveAside(name, reason: reason) }
}

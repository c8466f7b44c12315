import NoiseClockCore
import Synchronization

/// Deliveries made outside their owner's lock, in the order they were queued: a delivery is queued
/// under the owner's lock, and whichever thread finds no one delivering delivers the queue (its
/// own and those queued meanwhile) after unlocking. So no handler runs under the owner's lock, a
/// handler may queue more (delivered after the current one), and a thread never waits for another
/// thread's delivery. `StateHub` and `Signals` deliver through it.
struct InOrder<Delivery> {
    private var queue: [Delivery] = []
    private var delivering = false

    init() {}

    /// Queues `delivery` (under the owner's lock); true when the caller is to deliver: then it
    /// calls `drain` after unlocking.
    mutating func add(_ delivery: Delivery) -> Bool {
        queue.append(delivery)
        guard !delivering else { return false }
        delivering = true
        return true
    }

    /// Takes what is queued into `batch` (under the owner's lock); false, and no one delivering,
    /// when nothing is.
    mutating func take(into batch: inout [Delivery]) -> Bool {
        swap(&batch, &queue)
        if batch.isEmpty { delivering = false }
        return !batch.isEmpty
    }

    /// Delivers until the queue is empty: `take` takes the next batch under the owner's lock.
    static func drain(take: (inout [Delivery]) -> Bool, deliver: (Delivery) -> Void) {
        var batch: [Delivery] = []
        while take(&batch) {
            for delivery in batch { deliver(delivery) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}

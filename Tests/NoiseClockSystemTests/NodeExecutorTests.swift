import Foundation
import NoiseClockSystem
import Synchronization
import Testing

/// The node's one executor thread: every job runs, urgent ones (an alarm's, a timer's, a gong's
/// at its instant) before those already waiting; and the time source resumes the sleepers due
/// together most urgent first.
@Suite("The node's executor: urgent jobs first, and sleepers due together resumed by priority")
struct NodeExecutorTests {
    /// Names in the order their tasks ran.
    final class Order: Sendable {
        let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test("a high-priority task enqueued behind waiting ones runs first; the others keep their order")
    func urgentFirst() async throws {
        let executor = NodeExecutor(name: "test executor")
        let order = Order()
        let blocker = WakeSignal(), blocking = WakeSignal()
        // Holds the executor's one thread while the others queue up.
        let hold = Task(executorPreference: executor) {
            blocking.signal()
            _ = blocker.wait(timeout: .seconds(10))
        }
        _ = blocking.wait(timeout: .seconds(10))
        var tasks: [Task<Void, Never>] = []
        for index in 0..<5 {
            tasks.append(Task(executorPreference: executor, priority: .medium) { order.add("normal \(index)") })
        }
        tasks.append(Task(executorPreference: executor, priority: .high) { order.add("urgent") })
        // Task creation enqueues at once; give the last one a moment to be queued behind the others.
        try await Task.sleep(for: .milliseconds(50))
        blocker.signal()
        await hold.value
        for task in tasks { await task.value }
        #expect(order.all == ["urgent"] + (0..<5).map { "normal \($0)" })
    }

    @Test("the node's own task is below the urgent level, whatever the priority of the thread that starts it")
    func mainTaskIsNotUrgent() async {
        // `main` calls runBlocking on the main thread, and on Linux a task made there inherits
        // userInitiated, the urgent level itself: every job of the node would be urgent, and an
        // alarm's no more urgent than a ping's. A caller inside a task of that priority is the
        // same case, and one a test can make.
        let priority = await Task.detached(priority: .userInitiated) {
            try? NodeExecutor(name: "test executor").runBlocking { Task.currentPriority }
        }.value
        #expect(priority == .medium, "seen: \(String(describing: priority))")
    }

    @Test("the end of a turn runs after the turn's jobs, before the loop waits again; once removed, no more")
    func endOfTurn() async {
        let executor = NodeExecutor(name: "test executor")
        let order = Order()
        let end = executor.atEndOfTurn { order.add("end") }
        await Task(executorPreference: executor) { order.add("job 1") }.value
        #expect(await eventually { order.all.last == "end" }, "seen: \(order.all)")
        // A job that makes a job: the end comes after both.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Task(executorPreference: executor) {
                order.add("job 2")
                Task(executorPreference: executor) {
                    order.add("job 3")
                    done.resume()
                }
            }
        }
        #expect(await eventually { order.all.last == "end" }, "seen: \(order.all)")
        #expect(order.all.drop { $0 != "job 2" }.filter { $0 != "end" } == ["job 2", "job 3"], "seen: \(order.all)")
        executor.remove(end)
        await Task(executorPreference: executor) {}.value
        let settled = order.all.count
        await Task(executorPreference: executor) { order.add("job 4") }.value
        await Task(executorPreference: executor) {}.value
        #expect(order.all.count == settled + 1 && order.all.last == "job 4", "seen: \(order.all)")
    }

    @Test("an idle executor sleeps and wakes for each job enqueued from another thread", arguments: [1, 200])
    func wakes(jobs: Int) async {
        let executor = NodeExecutor(name: "test executor")
        let order = Order()
        for index in 0..<jobs {
            // Let it park between jobs, so each one has to wake it.
            if index % 50 == 0 { try? await Task.sleep(for: .milliseconds(5)) }
            await Task(executorPreference: executor) { order.add("\(index)") }.value
        }
        #expect(order.all == (0..<jobs).map { "\($0)" })
    }

    @Test("sleepers due at the same instant are resumed most urgent first")
    func timeSourcePriority() async throws {
        let time = TimeSource()
        // Below the executor's urgent level, so its queue keeps the order the time source resumed them in.
        let executor = NodeExecutor(name: "test executor")
        let order = Order()
        let deadline = Date().addingTimeInterval(0.3)
        var tasks: [Task<Void, any Error>] = []
        // Created least urgent first, so neither their order nor their ids give the answer.
        for (name, priority) in [("background", TaskPriority.background), ("utility", .utility), ("medium", .medium)] {
            tasks.append(Task(executorPreference: executor, priority: priority) {
                try await time.sleep(untilWall: deadline)
                order.add(name)
            })
        }
        // Not awaited before they are done: awaiting a task's value raises its priority to the awaiter's.
        let until = ContinuousClock.now + .seconds(10)
        while order.all.count < 3, ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(20)) }
        for task in tasks { try await task.value }
        #expect(order.all == ["medium", "utility", "background"])
    }
}

/// True once `condition` holds, polling every few milliseconds; false after `timeout`.
private func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// A feature's state, isolated to the node's actor as the features are.
@NodeActor
private final class Tally {
    var count = 0
    nonisolated init() {}
    func add() { count += 1 }
    func addLater() async { count += 1 }
}

/// Code that runs on the caller's executor, as the command router does.
nonisolated(nonsending) private func passThrough(_ tally: Tally) async { await tally.addLater() }

@Suite("The node's executor runs its jobs isolated to NodeActor")
struct NodeActorHopTests {
    /// Jobs enqueued while `body` runs in a task of the node (on the loop, with the loop as its
    /// executor preference, as `runBlocking` and `NodeActor.task` make them).
    /// The count is the shared loop's, and the other tests of the process enqueue jobs on it too:
    /// the fewest of five rounds is this body's own (a real hop costs a job in every round).
    private func jobs(_ body: @escaping @NodeActor @Sendable () async -> Void) async -> Int {
        var fewest = Int.max
        for _ in 0..<5 {
            let count = await NodeActor.task {
                let before = NodeExecutor.shared.jobCount
                await body()
                return NodeExecutor.shared.jobCount - before
            }.value
            fewest = min(fewest, count)
        }
        return fewest
    }

    @Test("a feature calling another, directly or through nonisolated(nonsending) code, costs no job")
    func noHopBetweenFeatures() async {
        let tally = Tally()
        let direct = await jobs { for _ in 0..<100 { await tally.addLater() } }
        let through = await jobs { for _ in 0..<100 { await passThrough(tally) } }
        // Run with `runSynchronously(on:)` (a generic executor recorded as current) every entry
        // into NodeActor was a trip through the queue: at least 100 jobs each.
        #expect(direct == 0, "\(direct) jobs for 100 calls")
        #expect(through == 0, "\(through) jobs for 100 calls through nonsending code")
        #expect(await tally.count == 1000)
    }

    @Test("plain nonisolated async code is another executor: a call into it from NodeActor code costs a job")
    func nonisolatedCostsAJob() async {
        let tally = Tally()
        // Why the router's handlers are `nonisolated(nonsending)`: this is what they cost before.
        let count = await NodeActor.task {
            let before = NodeExecutor.shared.jobCount
            for _ in 0..<100 { await Self.nonisolatedAdd(tally) }
            return NodeExecutor.shared.jobCount - before
        }.value
        #expect(count >= 100, "\(count) jobs for 100 calls into nonisolated code")
    }

    private static func nonisolatedAdd(_ tally: Tally) async { await tally.add() }
}

import Foundation
import NoiseClockSystem
import Testing

/// The time source against the real kernel timers. Bounds on earliness are exact, since a timer
/// must never end a sleep before its deadline. Lateness is not measured here: this process's tasks
/// share one pool with a thousand other tests, which on a loaded machine has held a task back by
/// half a minute; the node's own lateness is the bench's (alarm accuracy). What a wrong time source
/// would do instead (sleep an hour, or forever) is told apart by the hour, and the suite's time
/// limit ends a sleep that never ends.
@Suite("The time source: timerfd sleeps that end at their deadline and not before", .timeLimit(.minutes(10)))
struct TimeSourceTests {
    let time = TimeSource()

    @Test("a monotonic sleep lasts at least its duration", arguments: [20, 150])
    func monotonicSleep(milliseconds: Int) async throws {
        let start = ContinuousClock.now
        try await time.sleep(for: .milliseconds(milliseconds))
        let slept = ContinuousClock.now - start
        #expect(slept >= .milliseconds(milliseconds))
    }

    @Test("a wall-clock sleep ends when the wall clock reads its deadline, not before")
    func wallSleep() async throws {
        let deadline = Date().addingTimeInterval(0.2)
        try await time.sleep(untilWall: deadline)
        let now = Date()
        #expect(now >= deadline)
    }

    @Test("a deadline already past, or a zero duration, returns at once")
    func pastDeadline() async throws {
        let start = ContinuousClock.now
        try await time.sleep(untilWall: Date().addingTimeInterval(-3600))
        try await time.sleep(for: .zero)
        // Not the hour since the deadline (a distance taken for a duration).
        #expect(ContinuousClock.now - start < .seconds(1800))
    }

    @Test("sleepers of both kinds wake in deadline order, each at its own deadline")
    func severalSleepers() async throws {
        let time = self.time
        let start = ContinuousClock.now
        let woke = try await withThrowingTaskGroup(of: (String, Duration, Duration).self) { group in
            group.addTask {
                try await time.sleep(for: .milliseconds(300))
                return ("monotonic 300", .milliseconds(300), ContinuousClock.now - start)
            }
            group.addTask {
                try await time.sleep(untilWall: Date().addingTimeInterval(0.1))
                return ("wall 100", .milliseconds(100), ContinuousClock.now - start)
            }
            group.addTask {
                try await time.sleep(for: .milliseconds(200))
                return ("monotonic 200", .milliseconds(200), ContinuousClock.now - start)
            }
            var woke: [(String, Duration, Duration)] = []
            for try await sleeper in group { woke.append(sleeper) }
            return woke
        }
        // Each at its own deadline, never before (the wall one a few ms early at most: the wall
        // clock's deadline was taken a moment after `start`).
        for (name, deadline, at) in woke { #expect(at >= deadline - .milliseconds(5), "\(name) woke after \(at)") }
        // In deadline order, unless the machine stalled the test past the next deadline (a loaded
        // machine can hold a process for seconds: then every sleeper is due at once).
        if let last = woke.map(\.2).max(), last < .milliseconds(390) {
            #expect(woke.map(\.0) == ["wall 100", "monotonic 200", "monotonic 300"], "\(woke)")
        }
    }

    @Test("a cancelled sleep ends at once with CancellationError, and the others go on")
    func cancellation() async throws {
        let start = ContinuousClock.now
        let long = Task { try await time.sleep(untilWall: Date().addingTimeInterval(3600)) }
        let short = Task { try await time.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .milliseconds(20))
        long.cancel()
        await #expect(throws: CancellationError.self) { try await long.value }
        try await short.value
        // Ended by its cancellation, not at its deadline an hour away.
        #expect(ContinuousClock.now - start < .seconds(1800))
    }

    @Test("however a cancellation falls (before, during or just after the sleep ends), no sleep is kept once all have ended")
    func cancellationLeavesNothing() async throws {
        let time = self.time
        for round in 0..<20 {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<50 {
                    // Deadlines from already past to a few hundred microseconds ahead, each task
                    // cancelled around its deadline: some before the sleep is stored, some while
                    // it waits, some after the time thread resumed it.
                    let task = Task { try await time.sleep(for: .microseconds((index % 10) * 50)) }
                    group.addTask {
                        if (index + round) % 3 == 0 { await Task.yield() }
                        task.cancel()
                        _ = await task.result
                    }
                }
            }
        }
        #expect(time.sleepCount == 0)
    }

    @Test("a task cancelled before it sleeps does not sleep")
    func cancelledBefore() async throws {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await time.sleep(for: .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("while nothing is due the thread does not wake: one wake for a sleep, none while an hour-long one waits")
    func noPolling() async throws {
        try await time.sleep(for: .milliseconds(10))
        let afterFirst = time.wakeCount
        #expect(afterFirst == 1)
        let long = Task { try await time.sleep(untilWall: Date().addingTimeInterval(3600)) }
        let longMonotonic = Task { try await time.sleep(for: .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(600))
        #expect(time.wakeCount == afterFirst)
        long.cancel()
        longMonotonic.cancel()
        _ = await (long.result, longMonotonic.result)
    }
}

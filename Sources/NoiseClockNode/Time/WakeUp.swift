import FoundationEssentials
import Synchronization

/// What a time-driven service sleeps on: its next due instant on the wall clock, cut short by a
/// change that moves that instant (a verb, a settings change) or by a change of the wall clock
/// itself. A `wake()` while nobody sleeps is kept, so a change made between two sleeps is not lost.
public final class WakeUp: Sendable {
    private struct State {
        var sleeper: CheckedContinuation<Void, Never>?
        var pending = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Ends the current sleep, or the next one at once.
    public func wake() {
        let sleeper = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let sleeper = state.sleeper else {
                state.pending = true
                return nil
            }
            state.sleeper = nil
            return sleeper
        }
        sleeper?.resume()
    }

    /// Sleeps until `deadline` on `clock`'s wall clock (nil: until woken), until `wake()`, until
    /// the wall clock is set, or until the task is cancelled, whichever comes first.
    public func sleep(until deadline: Date?, on clock: NodeClock) async {
        await withTaskGroup(of: Void.self) { group in
            if let deadline { group.addTask { try? await clock.sleepUntil(deadline) } }
            group.addTask { await self.waitForWake() }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForWake() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.sleeper = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.sleeper = nil }
                return state.sleeper
            }
            sleeper?.resume()
        }
    }
}

/// Runs `body` as a child task of high priority. The node's executor runs such jobs before the
/// others (`NodeExecutor`), and the time source resumes such sleepers first: an alarm's, a
/// timer's or a gong's work at its instant is then not queued behind the clock's minute tick and
/// the states that go out at the same second.
func runUrgently(_ body: @escaping @Sendable () async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        group.addTask(priority: .high) { await body() }
    }
}

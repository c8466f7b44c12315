import Synchronization

/// Waiting for the calling task's cancellation, and nothing else: no timer is armed and no thread
/// wakes meanwhile (a source that reports from a thread of its own has nothing to do until its
/// task ends).
public enum Cancellation {
    /// Returns once the calling task is cancelled (at once when it already is).
    public static func wait() async {
        let waiter = Mutex<Waiter>(Waiter())
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // The cancellation may have come first: it marked the waiter, and found no one to resume.
                let now = waiter.withLock { waiter in
                    if waiter.cancelled { return true }
                    waiter.continuation = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let continuation = waiter.withLock { waiter in
                waiter.cancelled = true
                defer { waiter.continuation = nil }
                return waiter.continuation
            }
            continuation?.resume()
        }
    }

    private struct Waiter {
        var cancelled = false
        var continuation: CheckedContinuation<Void, Never>?
    }
}

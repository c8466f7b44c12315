import Synchronization

/// A counting gate whose waiters hold no thread: `enter` returns once one of `size` places is
/// free, `leave` gives it back to the oldest waiter. The tools the tests run at once pass through one.
public final class AsyncGate: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    public init(size: Int) {
        state = Mutex(State(free: size))
    }

    /// Returns once a place is free, and takes it.
    public func enter() async {
        let free = state.withLock { state -> Bool in
            guard state.free > 0, state.waiting.isEmpty else { return false }
            state.free -= 1
            return true
        }
        if free { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let entered = state.withLock { state -> Bool in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if entered { continuation.resume() }
        }
    }

    /// Gives a place back, to the oldest waiter if there is one.
    public func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Runs `body`, a test's long computation (one seed of a property walked minute by minute over
/// days), when no other such computation runs: at most one at a time in the test process, the
/// others waiting without a thread.
///
/// Every test of the process shares Swift's cooperative pool, as wide as the machine has cores
/// (two here). Walks that never suspended held both of its threads at the start of a run, and every
/// other test (a WebSocket client counting, a deadline on the real clock) waited ~15 s for them
/// (~31 s beside two busy loops). Suspending between seeds was not enough: forty walks taking
/// turns still left each step of another test seconds behind them. One at a time leaves a thread
/// to everything else.
public func computeInTurn<T>(_ body: () throws -> T) async rethrows -> T {
    await computeGate.enter()
    defer { computeGate.leave() }
    return try body()
}

private let computeGate = AsyncGate(size: 1)

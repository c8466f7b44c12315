/// A suspension point for a test that computes for seconds (a property walked minute by minute
/// over days, seed after seed), called once per seed. Every test of the process shares Swift's
/// cooperative pool, as wide as the machine has cores (two here): a walk that never suspends holds
/// one of its threads until it ends, and four such walks hold every thread, so at the start of a
/// run every other test (a WebSocket client counting, a deadline on the real clock) waited ~15 s
/// for them (~31 s beside two busy loops).
public func yieldToOtherTests() async {
    await Task.yield()
}

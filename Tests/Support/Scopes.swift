#if canImport(Glibc)
import Glibc
#endif
import NoiseClockMQTT

/// Something a test starts and must stop however the test ends: a broker, a client, a process.
public protocol Stoppable: AnyObject, Sendable {
    /// Stops it, once, at the end of its scope. (A broker or process that has stopped already is
    /// left as it is; a client must not have been stopped before.)
    func stop() async
}

/// Runs `body` with `resource`, then stops `resource`, whether `body` returned or threw.
///
/// (A `defer` cannot await, hence the explicit catch.) `isolation` runs `body` on the caller's
/// actor, so `body` need not be Sendable.
public func withStopping<Resource: Stoppable, T>(
    _ resource: Resource, isolation: isolated (any Actor)? = #isolation, _ body: (Resource) async throws -> T
) async throws -> T {
    let result: T
    do {
        result = try await body(resource)
    } catch {
        await resource.stop()
        throw error
    }
    await resource.stop()
    return result
}

/// A fresh broker (see `Broker.init`) for `body`, killed afterwards.
public func withBroker<T>(
    extraConfiguration: String = "", listeners: String? = nil, isolation: isolated (any Actor)? = #isolation,
    _ body: (Broker) async throws -> T
) async throws -> T {
    try await withStopping(Broker(extraConfiguration: extraConfiguration, listeners: listeners), isolation: isolation, body)
}

/// A `TestClient` (subscribed, see `TestClient.init`) for `body`, stopped afterwards.
public func withClient<T>(
    port: Int, subscriptions: [String], protocolVersion: MQTTOptions.ProtocolVersion = .v5, tls: MQTTOptions.TLS? = nil,
    username: String? = nil, password: String? = nil, isolation: isolated (any Actor)? = #isolation,
    _ body: (TestClient) async throws -> T
) async throws -> T {
    let client = try await TestClient(
        port: port, subscriptions: subscriptions, protocolVersion: protocolVersion, tls: tls, username: username, password: password)
    return try await withStopping(client, isolation: isolation, body)
}

extension Broker: Stoppable {
    /// Kills the broker: once a test is over nothing needs its clean shutdown.
    public func stop() async { await kill() }
}

extension TestClient: Stoppable {}
extension CorrelatedClient: Stoppable {}

extension ChildProcess: Stoppable {
    /// SIGTERM, then SIGKILL when it has not exited within `grace`; returns once it has exited.
    /// (ChildProcess starts its children with SIGTERM unblocked, so a node normally stops on the
    /// first; the SIGKILL is for a node that hangs, or a helper that ignores SIGTERM.)
    public func stop(grace: Duration) async {
        guard isRunning else { return }
        signal(SIGTERM)
        if await waitForExit(timeout: grace) != nil { return }
        signal(SIGKILL)
        _ = await waitForExit(timeout: .seconds(5))
    }

    /// `stop(grace:)` with 3 s, time enough for a node's clean stop.
    public func stop() async { await stop(grace: .seconds(3)) }
}

extension NodeProcess: Stoppable {
    /// Stops the process its latest `start` made. (A test that restarts the node stops the earlier
    /// ones itself; a ChildProcess that is dropped while running is killed by its deinit.)
    public func stop() async { await process?.stop() }
}

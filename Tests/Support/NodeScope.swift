import NoiseClockCore
import NoiseClockMQTT

/// Runs `body` with a node that is up: `node` started as `process` against `broker` (a fresh
/// broker of its own when nil), and `client`, subscribed to `subscriptions(node.topics)` before
/// the start, has seen it come online. Afterwards the node's current process is stopped (SIGTERM,
/// then SIGKILL), the client stopped and an own broker killed, whether `body` returned or threw.
///
/// The node's port (`node.port`) is the broker's, for more clients. A test that restarts the node
/// in `body` uses `node.startOnline(seenBy:)` (or `node.start()`) again; the last process is the
/// one stopped at the end.
public func withNode<T>(
    on broker: Broker? = nil, nodeID: String? = nil, stateDirectory: String? = nil, environment: [String: String] = [:],
    configuration: String = "", subscriptions: (Topics) -> [String] = { ["\($0.node)/#"] }, tls: MQTTOptions.TLS? = nil,
    username: String? = nil, password: String? = nil, logLevel: String = "debug", isolation: isolated (any Actor)? = #isolation,
    _ body: (_ node: NodeProcess, _ process: ChildProcess, _ client: TestClient) async throws -> T
) async throws -> T {
    try await withUnstartedNode(
        on: broker, nodeID: nodeID, stateDirectory: stateDirectory, environment: environment, configuration: configuration,
        subscriptions: subscriptions, tls: tls, username: username, password: password, isolation: isolation
    ) { node, client in
        let process = try await node.startOnline(seenBy: client, logLevel: logLevel)
        return try await body(node, process, client)
    }
}

/// `withNode` without the start, for a test that acts before the node starts or times its start:
/// `body` starts it (`node.start()`, `node.startOnline(seenBy: client)`). The cleanup is the same.
public func withUnstartedNode<T>(
    on broker: Broker? = nil, nodeID: String? = nil, stateDirectory: String? = nil, environment: [String: String] = [:],
    configuration: String = "", subscriptions: (Topics) -> [String] = { ["\($0.node)/#"] }, tls: MQTTOptions.TLS? = nil,
    username: String? = nil, password: String? = nil, isolation: isolated (any Actor)? = #isolation,
    _ body: (_ node: NodeProcess, _ client: TestClient) async throws -> T
) async throws -> T {
    guard let broker else {
        return try await withBroker(isolation: isolation) { broker in
            try await withUnstartedNode(
                on: broker, nodeID: nodeID, stateDirectory: stateDirectory, environment: environment, configuration: configuration,
                subscriptions: subscriptions, tls: tls, username: username, password: password, isolation: isolation, body)
        }
    }
    let node = try NodeProcess(
        port: broker.port, nodeID: nodeID, stateDirectory: stateDirectory, environment: environment, configuration: configuration)
    var topics = subscriptions(node.topics)
    // The client must see the availability topic to know when the node is online.
    if !topics.contains(where: { covers($0, node.topics.availability) }) { topics.append(node.topics.availability) }
    return try await withClient(
        port: broker.port, subscriptions: topics, tls: tls, username: username, password: password, isolation: isolation
    ) { client in
        try await withStopping(node, isolation: isolation) { node in try await body(node, client) }
    }
}

extension NodeProcess {
    public struct NotOnline: Error, CustomStringConvertible {
        public var nodeID: String
        /// What the client had on the availability topic (text and retain flag), and whether it was connected.
        public var seen: String
        public var log: String
        public var description: String { "\(nodeID) did not come online (the client saw \(seen)); log:\n\(log)" }
    }

    /// Starts the node and waits until `client` (subscribed to its availability) sees its `online`
    /// as it is sent, not a retained one left by an earlier process. The client keeps every
    /// message, so clear it before a restart. Throws `NotOnline`, with the node's log, when that
    /// takes longer than `timeout`.
    @discardableResult
    public func startOnline(seenBy client: TestClient, logLevel: String = "debug", timeout: Duration = .seconds(30))
        async throws -> ChildProcess
    {
        let process = try start(logLevel: logLevel)
        let online = await client.waitFor(topics.availability, timeout: timeout) { $0.text == "online" && !$0.retain }
        guard online != nil else {
            let availability = client.messages(on: topics.availability).map { "\($0.text)\($0.retain ? " (retained)" : "")" }
            let seen = "[\(availability.joined(separator: ", "))], \(client.client.isConnected ? "connected" : "not connected")"
            throw NotOnline(nodeID: nodeID, seen: seen, log: process.log)
        }
        return process
    }
}

/// Whether the MQTT topic filter `filter` (with `+` and `#`) matches `topic`.
func covers(_ filter: String, _ topic: String) -> Bool {
    let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
    let names = topic.split(separator: "/", omittingEmptySubsequences: false)
    for (index, level) in levels.enumerated() {
        if level == "#" { return true }
        guard index < names.count, level == "+" || level == names[index] else { return false }
    }
    return levels.count == names.count
}

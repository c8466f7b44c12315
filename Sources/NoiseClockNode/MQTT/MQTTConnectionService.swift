import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockMQTT
import ServiceLifecycle

/// Keeps the broker connection for the node's whole life; on shutdown publishes `offline` and
/// disconnects. First in the group, so it stops last, after everything that publishes.
public struct MQTTConnectionService: Service, CustomStringConvertible {
    public var description: String { "MQTTConnectionService" }
    let client: MQTTClient
    let notifier: SystemdNotifier

    public init(client: MQTTClient, notifier: SystemdNotifier = SystemdNotifier(environment: [:])) {
        self.client = client
        self.notifier = notifier
    }

    public func run() async throws {
        client.start()
        try? await gracefulShutdown()
        notifier.stopping()
        await client.stop(timeout: .milliseconds(1500))
    }
}

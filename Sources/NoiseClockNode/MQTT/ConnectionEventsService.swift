import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockMQTT
import ServiceLifecycle

/// Tells systemd the node is ready (READY=1) as it starts, then keeps its STATUS line on the
/// broker connection; after every (re)connect, publishes `B/status` fresh. The client has already
/// replayed the latest value of every retained topic; only `uptime_s` in the status is out of date.
public struct ConnectionEventsService: Service, CustomStringConvertible {
    public var description: String { "ConnectionEventsService" }
    let transport: any MQTTTransport
    let status: StatusBoard
    let logger: Logger
    var notifier = SystemdNotifier(environment: [:])
    var broker = ""

    public func run() async throws {
        await cancelWhenGracefulShutdown { await follow() }
    }

    private func follow() async {
        // Ready means the node keeps time and rings: its state was loaded before the services
        // started, and this one starts after the node's own. The broker may answer later or never
        // (a package is installed and started before a broker is configured, SPEC §14); STATUS
        // tells which.
        notifier.ready(status: "running; connecting to \(broker)")
        for await event in transport.events {
            switch event {
            case .connected:
                // The client has replayed every retained state before it reports the connection.
                status.publish()
                notifier.status("connected to \(broker)")
            case .subscribed:
                logger.debug("subscriptions acknowledged")
            case .disconnected(let reason):
                logger.warning("disconnected from the broker", metadata: ["reason": "\(reason)"])
                notifier.status("disconnected from \(broker) (\(reason)); reconnecting")
            }
        }
    }
}

import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockMQTT
import ServiceLifecycle

/// After every (re)connect, publishes `B/status` fresh. The client has already replayed the latest
/// value of every retained topic; only `uptime_s` in the status is out of date by then.
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
        var ready = false
        for await event in transport.events {
            switch event {
            case .connected:
                status.publish()
                // The client has replayed every retained state before it reports the connection.
                if !ready {
                    notifier.ready(status: "connected to \(broker)")
                    ready = true
                } else {
                    notifier.status("connected to \(broker)")
                }
            case .subscribed:
                logger.debug("subscriptions acknowledged")
            case .disconnected(let reason):
                logger.warning("disconnected from the broker", metadata: ["reason": "\(reason)"])
                notifier.status("disconnected from \(broker) (\(reason)); reconnecting")
            }
        }
    }
}

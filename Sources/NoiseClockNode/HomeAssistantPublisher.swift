import Logging
import NoiseClockCore
import NoiseClockMQTT
import Synchronization

/// Publishes Home Assistant's discovery payload (SPEC §6): whenever the alarms change (a switch
/// and a time entity per alarm; a deleted alarm's two sent once as their platform alone,
/// `{"p":"switch"}` and `{"p":"text"}`, so Home Assistant removes them), and again with every
/// retained state when Home Assistant announces itself (`online` on `<discovery_prefix>/status`).
/// Not made at all with `mqtt.discovery: false`.
public final class HomeAssistantPublisher: Sendable {
    public let discovery: HomeAssistantDiscovery
    let transport: any MQTTTransport
    let logger: Logger
    /// The alarms in the payload published last; nil before the first.
    private let published = Mutex<[HomeAssistantDiscovery.AlarmEntry]?>(nil)

    public init(discovery: HomeAssistantDiscovery, transport: any MQTTTransport, logger: Logger) {
        self.discovery = discovery
        self.transport = transport
        self.logger = logger
    }

    /// The alarms are as given now: publishes the payload when the alarms it holds (ids and
    /// labels, the entities' names) change; a changed time only changes `B/alarms`.
    public func alarmsChanged(_ alarms: [Alarm]) {
        let entries = alarms.map { HomeAssistantDiscovery.AlarmEntry(id: $0.id, label: $0.label) }
        let payload = published.withLock { last -> JSONValue? in
            guard last != entries else { return nil }
            let removed = (last ?? []).map(\.id).filter { id in !entries.contains { $0.id == id } }
            last = entries
            return discovery.payload(alarms: entries, removed: removed)
        }
        if let payload { publish(payload) }
    }

    /// Home Assistant (re)started: discovery and every retained state again, so its entities have
    /// their values at once rather than at their next change.
    public func homeAssistantAnnounced() {
        let entries = published.withLock { $0 ?? [] }
        logger.info("Home Assistant announced itself; publishing discovery and state again")
        publish(discovery.payload(alarms: entries))
        transport.republishRetained()
    }

    private func publish(_ payload: JSONValue) {
        transport.publish(MQTTMessage(topic: discovery.configTopic, payload: payload.serializedBytes, qos: 1, retain: true))
    }
}

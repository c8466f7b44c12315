import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockMQTT
import NoiseClockSystem

/// Publishes Home Assistant's discovery payload (SPEC §6): whenever the alarms change (a switch
/// and a time entity per alarm; a deleted alarm's two sent once as their platform alone,
/// `{"p":"switch"}` and `{"p":"text"}`, so Home Assistant removes them), when the radio's stations
/// change (the Radio select's options, SPEC §15), in the new language when
/// the settings' language changes (SPEC §11), and again with every retained state when Home
/// Assistant announces itself (`online` on `<discovery_prefix>/status`). Not made at all with
/// `mqtt.discovery: false`. On the loop, as the features are: a change publishes straight away,
/// in the order the changes were made, with no lock held while the MQTT client takes it.
@NodeActor
public final class HomeAssistantPublisher {
    nonisolated let transport: any MQTTTransport
    nonisolated let logger: Logger
    /// Where the payload goes (the same in every language).
    nonisolated let configTopic: String
    /// Where Home Assistant announces itself (`<discovery_prefix>/status`, the same in every language).
    public nonisolated let statusTopic: String
    /// The discovery in a language (names and options; the rest is the same in every language).
    private let make: @Sendable (Language) -> HomeAssistantDiscovery

    /// The discovery in the language in force.
    public private(set) var discovery: HomeAssistantDiscovery
    /// The alarms in the payload published last; nil before the first.
    private var alarms: [HomeAssistantDiscovery.AlarmEntry]?
    /// The stations the Radio select offers (ids and names: what the payload shows of them).
    private var stations: [RadioStation] = []

    /// `discovery` makes the discovery in a language; `language` is the one in force now.
    public nonisolated init(
        language: Language, transport: any MQTTTransport, logger: Logger,
        discovery: @escaping @Sendable (Language) -> HomeAssistantDiscovery
    ) {
        self.transport = transport
        self.logger = logger
        make = discovery
        let first = discovery(language)
        configTopic = first.configTopic
        statusTopic = first.statusTopic
        self.discovery = first
    }

    /// The alarms are as given now: publishes the payload when the alarms it holds (ids and
    /// labels, the entities' names) change; a changed time only changes `B/alarms`.
    public func alarmsChanged(_ alarms: [Alarm]) {
        let entries = alarms.map { HomeAssistantDiscovery.AlarmEntry(id: $0.id, label: $0.label) }
        guard self.alarms != entries else { return }
        let removed = (self.alarms ?? []).map(\.id).filter { id in !entries.contains { $0.id == id } }
        self.alarms = entries
        publish(discovery.payload(alarms: entries, removed: removed, stations: stations))
    }

    /// The radio's stations are as given now: publishes the payload when their ids or names (the
    /// Radio select's options) change; a changed address or fallback changes only `B/radio`.
    /// Before the first payload it only notes them.
    public func stationsChanged(_ stations: [RadioStation]) {
        let entries = stations.map { RadioStation(id: $0.id, name: $0.name, url: "") }
        guard self.stations != entries else { return }
        self.stations = entries
        guard let alarms else { return }
        publish(discovery.payload(alarms: alarms, stations: entries))
    }

    /// The language in force is now `language`: when it changed, the payload again with every
    /// name and option in it (the same unique ids and entity ids), then every retained state, so
    /// that the selects show their state in the new options at once rather than at its next change.
    /// Before the first payload it only sets the language that payload is made in.
    public func languageChanged(_ language: Language) {
        guard discovery.language != language else { return }
        discovery = make(language)
        guard let alarms else { return }
        publish(discovery.payload(alarms: alarms, stations: stations))
        logger.info("language changed; publishing discovery in it", metadata: ["language": "\(language.rawValue)"])
        transport.republishRetained()
    }

    /// Follows the signals: the settings' language, the alarms (a switch per alarm), and the
    /// radio's stations (the Radio select's options).
    public nonisolated func follow(_ signals: Signals) {
        signals.subscribe { [self] signal in
            switch signal {
            case .settings(let settings): languageChanged(settings.language)
            case .alarms(let alarms): alarmsChanged(alarms)
            case .radioStations(let stations): stationsChanged(stations)
            case .alarmRinging, .timerRinging, .wake, .bedtime, .kids, .nightLight, .audioFailed, .briefing, .weather, .agenda: break
            }
        }
    }

    /// Home Assistant (re)started: discovery and every retained state again, so its entities have
    /// their values at once rather than at their next change.
    public func homeAssistantAnnounced() {
        logger.info("Home Assistant announced itself; publishing discovery and state again")
        publish(discovery.payload(alarms: alarms ?? [], stations: stations))
        transport.republishRetained()
    }

    private func publish(_ payload: JSONValue) {
        transport.publish(MQTTMessage(topic: configTopic, payload: payload.serializedBytes, qos: 1, retain: true))
    }
}

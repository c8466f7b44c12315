/// Home Assistant's device-based MQTT discovery (SPEC §6): one retained payload at
/// `<discovery_prefix>/device/<node_id>/config` that describes the node as a device and every
/// entity as a component reading the node's own JSON topics through value templates. Pure: the
/// node feeds it the catalog and the alarms and publishes what it returns. The components are laid
/// out by feature: the clock, alarms and noise here and in `HomeAssistant+Alarms.swift`, timers
/// and meditation in `HomeAssistant+Sessions.swift`; their names in `HomeAssistantNames`.
public struct HomeAssistantDiscovery: Sendable, Hashable {
    /// What an alarm's switch and time entity need: its id (stable) and label (their names).
    public struct AlarmEntry: Sendable, Hashable {
        public var id: String
        public var label: String

        public init(id: String, label: String) {
            self.id = id
            self.label = label
        }
    }

    public typealias AlarmTimeEntity = Configuration.HomeAssistant.AlarmTimeEntity

    public let topics: Topics
    public let prefix: String
    public let deviceName: String
    public let version: String
    /// The noise sounds the select offers: id and catalog name, in catalog order.
    public let noiseSounds: [(id: String, name: String)]
    /// Whether the node drives its screen (a backlight or on/off commands): then a "Screen" light.
    public let screen: Bool
    /// An alarm's time as a `text` entity (`HH:MM`), or on the `time` platform (Home Assistant 2026.5).
    public let alarmTimeEntity: AlarmTimeEntity
    public let names: HomeAssistantNames

    public init(
        topics: Topics, prefix: String, deviceName: String, version: String, noiseSounds: [(id: String, name: String)], screen: Bool = false,
        alarmTimeEntity: AlarmTimeEntity = .text, names: HomeAssistantNames = .english
    ) {
        self.topics = topics
        self.prefix = prefix
        self.deviceName = deviceName
        self.version = version
        self.noiseSounds = noiseSounds
        self.screen = screen
        self.alarmTimeEntity = alarmTimeEntity
        self.names = names
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.topics == b.topics && a.prefix == b.prefix && a.deviceName == b.deviceName && a.version == b.version
            && a.noiseSounds.map(\.id) == b.noiseSounds.map(\.id) && a.noiseSounds.map(\.name) == b.noiseSounds.map(\.name)
            && a.screen == b.screen && a.alarmTimeEntity == b.alarmTimeEntity && a.names == b.names
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(topics)
        hasher.combine(prefix)
        hasher.combine(noiseSounds.map(\.id))
        hasher.combine(alarmTimeEntity)
    }

    /// Where the payload goes (retained).
    public var configTopic: String { "\(prefix)/device/\(topics.nodeID)/config" }
    /// Where Home Assistant announces itself (`online`) after it starts.
    public var statusTopic: String { "\(prefix)/status" }

    /// The stable unique id of a component: `noiseclock_<node>_<key>`.
    public func uniqueID(_ key: String) -> String { "noiseclock_\(topics.nodeID)_\(key)" }

    /// The component key of an alarm's switch.
    public static func alarmKey(_ id: String) -> String { "alarm_\(id)" }

    /// The component key of an alarm's time entity: one per platform, so that changing
    /// `homeassistant.alarm_time_entity` makes a new entity rather than a text turned into a time.
    public static func alarmTimeKey(_ id: String, _ form: AlarmTimeEntity) -> String { "alarm_\(id)_\(form.rawValue)" }

    /// The discovery payload with a switch and a time entity per alarm; for each id in `removed`
    /// both are sent as their platform alone (`{"p":"switch"}`, `{"p":"text"}`), which makes Home
    /// Assistant remove those entities.
    public func payload(alarms: [AlarmEntry], removed: [String] = []) -> JSONValue {
        var components = baseComponents
        for alarm in alarms {
            components[Self.alarmKey(alarm.id)] = alarmSwitch(alarm)
            components[Self.alarmTimeKey(alarm.id, alarmTimeEntity)] = alarmTime(alarm)
        }
        for id in removed where !alarms.contains(where: { $0.id == id }) {
            components[Self.alarmKey(id)] = ["p": "switch"]
            components[Self.alarmTimeKey(id, alarmTimeEntity)] = ["p": .string(alarmTimeEntity.rawValue)]
        }
        return [
            "dev": [
                "ids": [.string("noiseclock_\(topics.nodeID)")], "name": .string(deviceName), "mf": "NoiseClock",
                "mdl": "NoiseClock node", "sw": .string(version),
            ],
            "o": ["name": "NoiseClock", "sw": .string(version)],
            "avty": [["t": .string(topics.availability), "pl_avail": "online", "pl_not_avail": "offline"]],
            "qos": 1,
            "cmps": .object(components),
        ]
    }

    // MARK: Components

    /// Every component that is not per alarm.
    var baseComponents: [String: JSONValue] {
        alarmAndNoiseComponents.merging(settingsComponents) { a, _ in a }.merging(sessionComponents) { a, _ in a }
    }

    private var settingsComponents: [String: JSONValue] {
        var components = [
            "time_format": component("select", "time_format", state: topics.settings, command: topics.command("settings"), [
                "options": ["24h", "12h"], "value_template": "{{ value_json.time_format }}",
                "command_template": "{{ {'time_format': value} | tojson }}", "entity_category": "config", "icon": "mdi:clock-digital",
            ]),
            "show_seconds": component("switch", "show_seconds", state: topics.settings, command: topics.command("settings"), [
                "value_template": "{{ 'ON' if value_json.show_seconds else 'OFF' }}", "payload_on": #"{"show_seconds":true}"#,
                "payload_off": #"{"show_seconds":false}"#, "state_on": "ON", "state_off": "OFF", "entity_category": "config",
                "icon": "mdi:timer-outline",
            ]),
            "face_theme": component("select", "face_theme", state: topics.settings, command: topics.command("settings"), [
                "options": .array(FaceStyle.Theme.allCases.map { .string($0.rawValue) }), "value_template": "{{ value_json.face.theme }}",
                "command_template": "{{ {'face': {'theme': value}} | tojson }}", "entity_category": "config", "icon": "mdi:palette",
            ]),
        ]
        if screen {
            // Brightness 0-100 as the node counts it; ON without a brightness lights it as it was.
            components["screen"] = component("light", "screen", state: topics.display, command: topics.command("display/power"), [
                "payload_on": "ON", "payload_off": "OFF", "state_value_template": "{{ 'ON' if value_json.screen == 'on' else 'OFF' }}",
                "brightness_state_topic": .string(topics.display), "brightness_command_topic": .string(topics.command("display/brightness")),
                "brightness_scale": 100, "brightness_value_template": "{{ value_json.brightness }}", "icon": "mdi:monitor",
            ])
        }
        return components
    }

    /// `text` quoted for a single-quoted Jinja string.
    func escaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("'", with: "\\'")
    }

    /// A component named from the table by its key.
    func component(
        _ platform: String, _ key: String, state: String? = nil, command: String? = nil, _ extra: [String: JSONValue]
    ) -> JSONValue {
        component(platform, key, named: names.entity(key), state: state, command: command, extra)
    }

    func component(
        _ platform: String, _ key: String, named name: String, state: String? = nil, command: String? = nil, _ extra: [String: JSONValue]
    ) -> JSONValue {
        var members = extra
        members["p"] = .string(platform)
        members["name"] = .string(name)
        members["unique_id"] = .string(uniqueID(key))
        if let state { members["state_topic"] = .string(state) }
        if let command { members["command_topic"] = .string(command) }
        return .object(members)
    }
}

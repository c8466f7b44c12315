/// Home Assistant's device-based MQTT discovery (SPEC §6): one retained payload at
/// `<discovery_prefix>/device/<node_id>/config` that describes the node as a device and every
/// entity as a component reading the node's own JSON topics through value templates. Pure: the
/// node feeds it the catalog and the alarms and publishes what it returns.
public struct HomeAssistantDiscovery: Sendable, Hashable {
    /// What an alarm's switch needs: its id (stable) and label (its name in Home Assistant).
    public struct AlarmEntry: Sendable, Hashable {
        public var id: String
        public var label: String

        public init(id: String, label: String) {
            self.id = id
            self.label = label
        }
    }

    /// The alarm events the event entity reports.
    public static let alarmEvents = [
        "alarm_upcoming", "alarm_ringing", "alarm_snoozed", "alarm_dismissed", "alarm_auto_silenced", "alarm_missed",
    ]

    public let topics: Topics
    public let prefix: String
    public let deviceName: String
    public let version: String
    /// The noise sounds the select offers: id and catalog name, in catalog order.
    public let noiseSounds: [(id: String, name: String)]
    /// Whether the node drives its screen (a backlight or on/off commands): then a "Screen" light.
    public let screen: Bool

    public init(
        topics: Topics, prefix: String, deviceName: String, version: String, noiseSounds: [(id: String, name: String)], screen: Bool = false
    ) {
        self.topics = topics
        self.prefix = prefix
        self.deviceName = deviceName
        self.version = version
        self.noiseSounds = noiseSounds
        self.screen = screen
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.topics == b.topics && a.prefix == b.prefix && a.deviceName == b.deviceName && a.version == b.version
            && a.noiseSounds.map(\.id) == b.noiseSounds.map(\.id) && a.noiseSounds.map(\.name) == b.noiseSounds.map(\.name)
            && a.screen == b.screen
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(topics)
        hasher.combine(prefix)
        hasher.combine(noiseSounds.map(\.id))
    }

    /// Where the payload goes (retained).
    public var configTopic: String { "\(prefix)/device/\(topics.nodeID)/config" }
    /// Where Home Assistant announces itself (`online`) after it starts.
    public var statusTopic: String { "\(prefix)/status" }

    /// The stable unique id of a component: `noiseclock_<node>_<key>`.
    public func uniqueID(_ key: String) -> String { "noiseclock_\(topics.nodeID)_\(key)" }

    /// The component key of an alarm's switch.
    public static func alarmKey(_ id: String) -> String { "alarm_\(id)" }

    /// The discovery payload with one switch per alarm; each id in `removed` is sent as
    /// `{"p":"switch"}`, which makes Home Assistant remove that entity.
    public func payload(alarms: [AlarmEntry], removed: [String] = []) -> JSONValue {
        var components = baseComponents
        for alarm in alarms {
            components[Self.alarmKey(alarm.id)] = alarmSwitch(alarm)
        }
        for id in removed where !alarms.contains(where: { $0.id == id }) {
            components[Self.alarmKey(id)] = ["p": "switch"]
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

    private var baseComponents: [String: JSONValue] {
        var components = alarmAndNoiseComponents
        components["face_theme"] = component("select", "face_theme", "Face theme", state: topics.settings, command: topics.command("settings"), [
            "options": .array(FaceStyle.Theme.allCases.map { .string($0.rawValue) }), "value_template": "{{ value_json.face.theme }}",
            "command_template": "{{ {'face': {'theme': value}} | tojson }}", "entity_category": "config", "icon": "mdi:palette",
        ])
        if screen {
            // Brightness 0-100 as the node counts it; ON without a brightness lights it as it was.
            components["screen"] = component("light", "screen", "Screen", state: topics.display, command: topics.command("display/power"), [
                "payload_on": "ON", "payload_off": "OFF", "state_value_template": "{{ 'ON' if value_json.screen == 'on' else 'OFF' }}",
                "brightness_state_topic": .string(topics.display), "brightness_command_topic": .string(topics.command("display/brightness")),
                "brightness_scale": 100, "brightness_value_template": "{{ value_json.brightness }}", "icon": "mdi:monitor",
            ])
        }
        return components
    }

    private var alarmAndNoiseComponents: [String: JSONValue] {
        let onWhenCharging = "{{ 'ON' if value_json.charging else 'OFF' }}"
        return [
            "battery": component("sensor", "battery", "Battery", state: topics.battery, [
                "device_class": "battery", "unit_of_measurement": "%", "state_class": "measurement",
                "value_template": "{{ value_json.percentage }}", "entity_category": "diagnostic",
            ]),
            "charging": component("binary_sensor", "charging", "Charging", state: topics.battery, [
                "device_class": "battery_charging", "value_template": .string(onWhenCharging), "entity_category": "diagnostic",
            ]),
            // "None" is how an MQTT sensor is told its value is unknown (no alarm set).
            "next_alarm": component("sensor", "next_alarm", "Next alarm", state: topics.alarmNext, [
                "device_class": "timestamp", "value_template": "{{ value_json.fires_at if value_json.fires_at else 'None' }}",
                "json_attributes_topic": .string(topics.alarmNext),
                "json_attributes_template": "{{ {'alarm_id': value_json.id, 'label': value_json.label} | tojson }}",
                "icon": "mdi:alarm",
            ]),
            "alarm_state": component("sensor", "alarm_state", "Alarm", state: topics.alarmState, [
                "device_class": "enum", "options": ["idle", "ringing", "snoozed"], "value_template": "{{ value_json.state }}",
                "json_attributes_topic": .string(topics.alarmState),
                "json_attributes_template":
                    "{{ {'alarm_id': value_json.alarm_id, 'label': value_json.label, 'snoozed_until': value_json.snoozed_until, 'snooze_count': value_json.snooze_count} | tojson }}",
                "icon": "mdi:alarm-bell",
            ]),
            "ringing": component("binary_sensor", "ringing", "Ringing", state: topics.alarmState, [
                "value_template": "{{ 'ON' if value_json.state == 'ringing' else 'OFF' }}", "icon": "mdi:alarm-light",
            ]),
            "snooze": component("button", "snooze", "Snooze", command: topics.command("snooze"), [
                "payload_press": "PRESS", "icon": "mdi:alarm-snooze",
            ]),
            "dismiss": component("button", "dismiss", "Dismiss", command: topics.command("dismiss"), [
                "payload_press": "PRESS", "icon": "mdi:alarm-off",
            ]),
            "noise": component("switch", "noise", "Noise", state: topics.noise, command: topics.command("noise/power"), [
                "value_template": "{{ 'ON' if value_json.playing else 'OFF' }}", "payload_on": "ON", "payload_off": "OFF",
                "icon": "mdi:waves",
            ]),
            "noise_sound": component("select", "noise_sound", "Noise sound", state: topics.noise, command: topics.command("noise/play"), [
                "options": .array(noiseSounds.map { .string($0.name) }), "value_template": .string(soundNameTemplate),
                "icon": "mdi:playlist-music",
            ]),
            "noise_volume": component("number", "noise_volume", "Noise volume", state: topics.noise, command: topics.command("noise/volume"), [
                "min": 0, "max": 100, "step": 1, "unit_of_measurement": "%", "mode": "slider",
                "value_template": "{{ value_json.volume }}", "icon": "mdi:volume-high",
            ]),
            "sleep_timer": component("number", "sleep_timer", "Sleep timer", state: topics.noise, command: topics.command("noise/sleep"), [
                "min": 0, "max": 720, "step": 5, "unit_of_measurement": "min", "mode": "box", "device_class": "duration",
                // Minutes left when B/noise was last published (0: no timer).
                "value_template":
                    "{{ ((as_timestamp(value_json.sleep_timer_ends_at) - as_timestamp(now())) / 60) | round(0) | int if value_json.sleep_timer_ends_at else 0 }}",
                "icon": "mdi:timer-sand",
            ]),
            "alarm_event": component("event", "alarm_event", "Alarm event", state: topics.event, [
                "event_types": .array(Self.alarmEvents.map { .string($0) }),
                // Other events on B/event (noise, battery) render empty and are ignored.
                "value_template": .string(alarmEventTemplate),
                "icon": "mdi:alarm-note",
            ]),
            "time_format": component("select", "time_format", "Time format", state: topics.settings, command: topics.command("settings"), [
                "options": ["24h", "12h"], "value_template": "{{ value_json.time_format }}",
                "command_template": "{{ {'time_format': value} | tojson }}", "entity_category": "config", "icon": "mdi:clock-digital",
            ]),
            "show_seconds": component("switch", "show_seconds", "Show seconds", state: topics.settings, command: topics.command("settings"), [
                "value_template": "{{ 'ON' if value_json.show_seconds else 'OFF' }}", "payload_on": #"{"show_seconds":true}"#,
                "payload_off": #"{"show_seconds":false}"#, "state_on": "ON", "state_off": "OFF", "entity_category": "config",
                "icon": "mdi:timer-outline",
            ]),
        ]
    }

    private func alarmSwitch(_ alarm: AlarmEntry) -> JSONValue {
        component("switch", Self.alarmKey(alarm.id), alarm.label, state: topics.alarms, command: topics.command("alarm/\(alarm.id)/enabled"), [
            "value_template": .string("{% for a in value_json if a.id == '\(alarm.id)' %}{{ 'ON' if a.enabled else 'OFF' }}{% endfor %}"),
            "payload_on": "ON", "payload_off": "OFF", "icon": "mdi:alarm",
        ])
    }

    /// An alarm event as the event entity wants it; any other event on B/event renders empty.
    private var alarmEventTemplate: String {
        let names = Self.alarmEvents.map { "'\($0)'" }.joined(separator: ", ")
        return "{% if value_json.event in [\(names)] %}"
            + "{{ {'event_type': value_json.event, 'alarm_id': value_json.alarm_id, 'label': value_json.label, 'at': value_json.at} | tojson }}"
            + "{% endif %}"
    }

    /// The first playing sound's catalog name, "None" (unknown) when nothing plays.
    private var soundNameTemplate: String {
        let names = noiseSounds.map { "'\(escaped($0.id))': '\(escaped($0.name))'" }.joined(separator: ", ")
        return "{% set names = {\(names)} %}{{ names.get(value_json.sounds[0].id, 'None') if value_json.playing and value_json.sounds else 'None' }}"
    }

    private func escaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("'", with: "\\'")
    }

    private func component(
        _ platform: String, _ key: String, _ name: String, state: String? = nil, command: String? = nil, _ extra: [String: JSONValue]
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

/// Home Assistant's device-based MQTT discovery (SPEC §6): one retained payload at
/// `<discovery_prefix>/device/<node_id>/config` that describes the node as a device and every
/// entity as a component reading the node's own JSON topics through value templates. Pure: the
/// node feeds it the catalogs, the language in force and the alarms, and publishes what it
/// returns. The components are laid out by feature: the clock, alarms and noise in
/// `HomeAssistant+Alarms.swift`, the settings in `HomeAssistant+Settings.swift`, timers and
/// meditation in `HomeAssistant+Sessions.swift`, the radio in `HomeAssistant+Radio.swift`, speech
/// in `HomeAssistant+Speech.swift`, the weather in `HomeAssistant+Weather.swift`, the calendars in
/// `HomeAssistant+Calendar.swift`; their names and options in `HomeAssistantNames`.
///
/// Names and select options follow the language (SPEC §11); nothing else does. `unique_id`s are
/// the component keys, and each component asks for the entity id its English name would give
/// (`object_id`, and `default_entity_id` for Home Assistant 2025.10 and later), so a node first
/// discovered in German gets the same entity ids as in English. Enum sensors report codes
/// (`idle`, `ringing`, …) in every language, so automations survive a change of language.
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
    /// The noise sounds the select offers, in catalog order (shown by their names in the language).
    public let noiseSounds: [Sound]
    /// Whether the node drives its screen (a backlight or on/off commands): then a "Screen" light.
    public let screen: Bool
    /// Whether the node reads the room's light (`display.lux_topic`): then an "Illuminance" sensor.
    public let lux: Bool
    /// Whether the node can speak (`speech.engine` is not `none`): then "Announce" and "Say the time".
    public let speech: Bool
    /// The units of the node's weather when it has a source (`weather.source` not `none`): then the
    /// weather sensors, their temperatures in these units.
    public let weatherUnits: WeatherReport.Units?
    /// The ids of `calendar.feeds`: a "Calendar <feed>" sensor each.
    public let calendarFeeds: [String]
    /// An alarm's time as a `text` entity (`HH:MM`), or on the `time` platform (Home Assistant 2026.5).
    public let alarmTimeEntity: AlarmTimeEntity
    /// Names and options in the language in force.
    public let names: HomeAssistantNames
    /// The English names, which the entity ids are made from whatever the language.
    public let english: HomeAssistantNames

    public init(
        topics: Topics, prefix: String, deviceName: String, version: String, noiseSounds: [Sound], screen: Bool = false,
        lux: Bool = false, speech: Bool = true, weatherUnits: WeatherReport.Units? = nil, calendarFeeds: [String] = [],
        alarmTimeEntity: AlarmTimeEntity = .text, catalogs: Catalogs, language: Language = .en
    ) {
        self.topics = topics
        self.prefix = prefix
        self.deviceName = deviceName
        self.version = version
        self.noiseSounds = noiseSounds
        self.screen = screen
        self.lux = lux
        self.speech = speech
        self.weatherUnits = weatherUnits
        self.calendarFeeds = calendarFeeds
        self.alarmTimeEntity = alarmTimeEntity
        names = HomeAssistantNames(catalogs[language])
        english = HomeAssistantNames(catalogs[.en])
    }

    /// The language of the names and options.
    public var language: Language { names.language }

    /// Where the payload goes (retained).
    public var configTopic: String { "\(prefix)/device/\(topics.nodeID)/config" }
    /// Where Home Assistant announces itself (`online`) after it starts.
    public var statusTopic: String { "\(prefix)/status" }

    /// The stable unique id of a component: `noiseclock_<node>_<key>`.
    public func uniqueID(_ key: String) -> String { "noiseclock_\(topics.nodeID)_\(key)" }

    /// The object id (the entity id without its platform) a component asks for: the device name
    /// and the component's English name, slugged as Home Assistant slugs a name, so that it is the
    /// entity id Home Assistant would make in English, in every language.
    public func objectID(englishName: String) -> String { Self.slug("\(deviceName) \(englishName)") }

    /// `text` as Home Assistant slugs it for an entity id: lowercase, each run of anything but
    /// letters and digits one `_`, none at either end, commas between digits dropped. Letters
    /// beyond ASCII are kept: Home Assistant transliterates them itself (`ü` → `u`).
    public static func slug(_ text: String) -> String {
        let scalars = Array(text.lowercased().unicodeScalars)
        func isDigit(_ index: Int) -> Bool { scalars.indices.contains(index) && ("0"..."9").contains(scalars[index]) }
        var slug = String.UnicodeScalarView()
        var separated = false
        for (index, scalar) in scalars.enumerated() {
            if scalar == ",", isDigit(index - 1), isDigit(index + 1) { continue }
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            let kept = scalar.isASCII
                ? ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
                : scalar.properties.isAlphabetic || scalar.properties.generalCategory == .decimalNumber
            guard kept else {
                separated = true
                continue
            }
            if separated, !slug.isEmpty { slug.append("_") }
            separated = false
            slug.append(scalar)
        }
        return String(slug)
    }

    /// The component key of an alarm's switch.
    public static func alarmKey(_ id: String) -> String { "alarm_\(id)" }

    /// The component key of an alarm's time entity: one per platform, so that changing
    /// `homeassistant.alarm_time_entity` makes a new entity rather than a text turned into a time.
    public static func alarmTimeKey(_ id: String, _ form: AlarmTimeEntity) -> String { "alarm_\(id)_\(form.rawValue)" }

    /// The discovery payload with a switch and a time entity per alarm, and the radio select's
    /// option per station; for each id in `removed` both are sent as their platform alone
    /// (`{"p":"switch"}`, `{"p":"text"}`), which makes Home Assistant remove those entities.
    public func payload(alarms: [AlarmEntry], removed: [String] = [], stations: [RadioStation] = []) -> JSONValue {
        var components = baseComponents.merging(radioComponents(stations)) { a, _ in a }
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

    /// Every component that is not per alarm and does not list the stations.
    var baseComponents: [String: JSONValue] {
        alarmAndNoiseComponents.merging(settingsComponents) { a, _ in a }.merging(sessionComponents) { a, _ in a }
            .merging(bedtimeComponents) { a, _ in a }.merging(speechComponents) { a, _ in a }
            .merging(weatherComponents) { a, _ in a }.merging(calendarComponents) { a, _ in a }
    }

    /// `text` quoted for a single-quoted Jinja string.
    func escaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("'", with: "\\'")
    }

    /// `text` as a single-quoted Jinja string literal.
    func quoted(_ text: String) -> String { "'\(escaped(text))'" }

    /// A select's `options` and its two templates, from pairs of a value as the node writes it (a
    /// Jinja literal: `'24h'`, `3`) and the option shown for it. The value template shows the
    /// option of the value at `path` ("None", unknown, for any other); the command template sends
    /// the chosen option's value inside `wrap` (a partial settings object).
    func options(_ pairs: [(value: String, option: String)], from path: String, sent wrap: (String) -> String) -> [String: JSONValue] {
        let shown = pairs.map { "\($0.value): \(quoted($0.option))" }.joined(separator: ", ")
        let sent = pairs.map { "\(quoted($0.option)): \($0.value)" }.joined(separator: ", ")
        return [
            "options": .array(pairs.map { .string($0.option) }),
            "value_template": .string("{{ {\(shown)}.get(\(path), 'None') }}"),
            "command_template": .string("{{ \(wrap("{\(sent)}[value]")) | tojson }}"),
        ]
    }

    /// A select named from the catalog by its key, its options and templates made by `options`.
    func select(
        _ key: String, state: String, command: String, _ pairs: [(value: String, option: String)], from path: String,
        sent wrap: (String) -> String, _ extra: [String: JSONValue]
    ) -> JSONValue {
        component("select", key, state: state, command: command, extra.merging(options(pairs, from: path, sent: wrap)) { _, new in new })
    }

    /// A component named from the catalog by its key.
    func component(
        _ platform: String, _ key: String, state: String? = nil, command: String? = nil, _ extra: [String: JSONValue]
    ) -> JSONValue {
        component(platform, key, named: names.entity(key), english: english.entity(key), state: state, command: command, extra)
    }

    /// A component called `name`, whose entity id is made from its English name `english`.
    func component(
        _ platform: String, _ key: String, named name: String, english: String, state: String? = nil, command: String? = nil,
        _ extra: [String: JSONValue]
    ) -> JSONValue {
        var members = extra
        members["p"] = .string(platform)
        members["name"] = .string(name)
        members["unique_id"] = .string(uniqueID(key))
        // Home Assistant before 2025.10 reads object_id; 2025.10 and later read default_entity_id,
        // which wins over object_id without a deprecation warning (2026.4 dropped object_id).
        let objectID = objectID(englishName: english)
        members["object_id"] = .string(objectID)
        members["default_entity_id"] = .string("\(platform).\(objectID)")
        if let state { members["state_topic"] = .string(state) }
        if let command { members["command_topic"] = .string(command) }
        return .object(members)
    }
}

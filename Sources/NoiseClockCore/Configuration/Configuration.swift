import FoundationEssentials

/// The node's effective configuration (SPEC §1), after the file, the environment and the defaults.
public struct Configuration: Sendable, Hashable {
    public struct Node: Sendable, Hashable {
        public var id: String
        public var name: String
    }

    public struct MQTT: Sendable, Hashable {
        public enum ProtocolVersion: String, Sendable, Hashable { case v5 = "5", v311 = "311" }
        public struct TLS: Sendable, Hashable {
            public var enabled: Bool
            public var caFile: String
            public var certFile: String
            public var keyFile: String
            public var insecure: Bool
        }
        public var host: String
        public var port: Int
        public var username: String
        /// Secret: never logged; `check-config` masks it.
        public var password: String
        /// Wins over `password` when set; read when the node connects.
        public var passwordFile: String
        public var clientID: String
        public var protocolVersion: ProtocolVersion
        public var keepaliveSeconds: Int
        public var baseTopic: String
        public var discovery: Bool
        public var discoveryPrefix: String
        public var tls: TLS
    }

    public struct Audio: Sendable, Hashable {
        public var device: String
        public var fadeMilliseconds: Int
    }

    public struct Battery: Sendable, Hashable {
        public var source: String
        public var sysfsRoot: String
        public var lowThreshold: Int
    }

    public struct Alarms: Sendable, Hashable {
        public var missedGraceMinutes: Int
        public var upcomingMinutes: Int
    }

    /// The screen (SPEC §9 `display.*`).
    public struct Display: Sendable, Hashable {
        /// `auto`, `none`, or a `/sys/class/backlight/<name>` folder.
        public var backlight: String
        public var onCommand: String
        public var offCommand: String
        /// For a night from sunset to sunrise; both or neither.
        public var latitude: Double?
        public var longitude: Double?
        /// An MQTT topic with the room's light in lux (a number, or JSON with `illuminance` or `lux`).
        public var luxTopic: String
        /// `auto` (an iio ambient light sensor, when there is one), `none`, or a sensor's folder
        /// under `/sys/bus/iio/devices`. Not used while `luxTopic` is set.
        public var lightSensor: String

        public init(
            backlight: String = "auto", onCommand: String = "", offCommand: String = "", latitude: Double? = nil, longitude: Double? = nil,
            luxTopic: String = "", lightSensor: String = "auto"
        ) {
            self.backlight = backlight
            self.onCommand = onCommand
            self.offCommand = offCommand
            self.latitude = latitude
            self.longitude = longitude
            self.luxTopic = luxTopic
            self.lightSensor = lightSensor
        }
    }

    public var node: Node
    public var mqtt: MQTT
    public var stateDirectory: String
    public var audio: Audio
    public var soundsCustomDirectory: String
    public var battery: Battery
    public var clock: ClockSettings
    public var alarms: Alarms
    public var display: Display
    public var face: Face
    public var timers = Timers()
    public var meditations = Meditations()
    public var homeAssistant = HomeAssistant()
    public var wake = Wake()
    /// Smart buttons the node listens to itself (`buttons`).
    public var buttons: [Configuration.Button] = []
    public var radio = Radio()
    public var speech = Speech()
    public var weather = Weather()
    public var calendar = CalendarFeeds()

    public var topics: Topics { Topics(base: mqtt.baseTopic, nodeID: node.id) }
}

/// A configuration value that cannot be used, named by its key and, for the environment, its variable.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var key: String
    public var source: String
    public var reason: String

    public init(key: String, source: String, reason: String) {
        self.key = key
        self.source = source
        self.reason = reason
    }

    public var description: String { "\(key) (from \(source)): \(reason)" }
}

/// One key of SPEC §1: where it is, what it accepts, its default.
public struct ConfigKey: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case text
        case nonEmpty
        case integer(ClosedRange<Int>)
        case boolean
        case choice([String])
        case nodeID
        case topic
        /// A topic (as `topic`), or empty for none.
        case optionalTopic
        case timezone
        case locale
        /// A number in the range, or empty for none.
        case optionalNumber(ClosedRange<Double>)
        /// An IP address literal or `localhost` (`face.bind`).
        case bindAddress
    }

    public let path: String
    public let kind: Kind
    /// nil: derived from other keys or the host (node.id, node.name, node.language, mqtt.client_id).
    public let defaultValue: String?
    public let secret: Bool

    public var environmentName: String {
        "NOISECLOCK_" + path.replacing(".", with: "_").uppercased()
    }
}

/// Where one effective value came from, for `check-config`.
public struct ResolvedValue: Sendable, Hashable {
    public var key: ConfigKey
    public var value: String
    public var source: String

    /// The value as `check-config` prints it: secrets masked.
    public var displayValue: String { key.secret && !value.isEmpty ? "********" : value }
}

public struct ResolvedConfiguration: Sendable {
    public var configuration: Configuration
    public var values: [ResolvedValue]
    /// Keys in the file, or `NOISECLOCK_*` variables, that SPEC §1 does not define.
    public var unknownKeys: [String]
}

public enum ConfigurationSchema {
    public static let keys: [ConfigKey] = [
        ConfigKey(path: "node.id", kind: .nodeID, defaultValue: nil, secret: false),
        ConfigKey(path: "node.name", kind: .nonEmpty, defaultValue: nil, secret: false),
        ConfigKey(path: "mqtt.host", kind: .nonEmpty, defaultValue: "127.0.0.1", secret: false),
        ConfigKey(path: "mqtt.port", kind: .integer(1...65535), defaultValue: "1883", secret: false),
        ConfigKey(path: "mqtt.username", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "mqtt.password", kind: .text, defaultValue: "", secret: true),
        ConfigKey(path: "mqtt.password_file", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "mqtt.client_id", kind: .nonEmpty, defaultValue: nil, secret: false),
        ConfigKey(path: "mqtt.protocol", kind: .choice(["5", "311"]), defaultValue: "5", secret: false),
        ConfigKey(path: "mqtt.keepalive_s", kind: .integer(5...3600), defaultValue: "30", secret: false),
        ConfigKey(path: "mqtt.base_topic", kind: .topic, defaultValue: "noiseclock", secret: false),
        ConfigKey(path: "mqtt.discovery", kind: .boolean, defaultValue: "true", secret: false),
        ConfigKey(path: "mqtt.discovery_prefix", kind: .topic, defaultValue: "homeassistant", secret: false),
        ConfigKey(path: "mqtt.tls.enabled", kind: .boolean, defaultValue: "false", secret: false),
        ConfigKey(path: "mqtt.tls.ca_file", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "mqtt.tls.cert_file", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "mqtt.tls.key_file", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "mqtt.tls.insecure", kind: .boolean, defaultValue: "false", secret: false),
        ConfigKey(path: "state.dir", kind: .nonEmpty, defaultValue: "/var/lib/noiseclock", secret: false),
        ConfigKey(path: "audio.device", kind: .nonEmpty, defaultValue: "default", secret: false),
        ConfigKey(path: "audio.fade_ms", kind: .integer(0...60_000), defaultValue: "2000", secret: false),
        ConfigKey(path: "sounds.custom_dir", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "battery.source", kind: .choice(["auto", "upower", "sysfs", "none"]), defaultValue: "auto", secret: false),
        ConfigKey(path: "battery.sysfs_root", kind: .nonEmpty, defaultValue: "/sys/class/power_supply", secret: false),
        ConfigKey(path: "battery.low_threshold", kind: .integer(1...99), defaultValue: "20", secret: false),
        ConfigKey(path: "clock.timezone", kind: .timezone, defaultValue: "", secret: false),
        // Empty: the date is written in the node's language (SPEC §11).
        ConfigKey(path: "clock.locale", kind: .locale, defaultValue: "", secret: false),
        ConfigKey(path: "clock.time_format", kind: .choice(["24h", "12h"]), defaultValue: "24h", secret: false),
        ConfigKey(path: "clock.show_seconds", kind: .boolean, defaultValue: "false", secret: false),
        ConfigKey(path: "clock.publish_seconds", kind: .boolean, defaultValue: "false", secret: false),
        // After clock.locale, whose language is its default.
        ConfigKey(path: "node.language", kind: .choice(Language.allCases.map(\.rawValue)), defaultValue: nil, secret: false),
        ConfigKey(path: "alarms.missed_grace_min", kind: .integer(0...1440), defaultValue: "10", secret: false),
        ConfigKey(path: "alarms.upcoming_min", kind: .integer(0...1440), defaultValue: "0", secret: false),
        ConfigKey(path: "display.backlight", kind: .nonEmpty, defaultValue: "auto", secret: false),
        ConfigKey(path: "display.on_command", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "display.off_command", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "display.latitude", kind: .optionalNumber(-90...90), defaultValue: "", secret: false),
        ConfigKey(path: "display.longitude", kind: .optionalNumber(-180...180), defaultValue: "", secret: false),
        ConfigKey(path: "display.lux_topic", kind: .optionalTopic, defaultValue: "", secret: false),
        ConfigKey(path: "display.light_sensor", kind: .nonEmpty, defaultValue: "auto", secret: false),
    ] + faceKeys + sessionKeys + wakeKeys + radioKeys + speechKeys + weatherKeys + calendarKeys

    /// Environment variables that are not keys but are still ours.
    public static let otherVariables: Set<String> = ["NOISECLOCK_CONFIG"]

    /// The node id a host name gives: lowercased, `[a-z0-9_-]` only.
    public static func nodeID(fromHostname hostname: String) -> String {
        let allowed = hostname.lowercased().unicodeScalars.filter {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
        }
        let id = String(String.UnicodeScalarView(allowed))
        return id.isEmpty ? "noiseclock" : id
    }

    /// The secrets systemd can hand the node as credentials (`LoadCredential=`, SPEC §14): the
    /// credential's name and the key whose file it replaces.
    public static let credentials: [(name: String, key: String)] = [
        ("mqtt-password", "mqtt.password_file"), ("face-token", "face.token_file"),
    ]

    /// Resolves the configuration: a credential wins over an environment variable, an environment
    /// variable over the file, the file over the default.
    ///
    /// - Parameters:
    ///   - file: the file's scalar values by dotted key path (`mqtt.port` → `"1883"`).
    ///   - fileName: named in error messages.
    ///   - credentials: by a key of `credentials` above, the file systemd made for it
    ///     (`$CREDENTIALS_DIRECTORY/NAME`); it wins because the unit that passes a credential is
    ///     the deployment's own choice.
    public static func resolve(
        file: [String: String], fileName: String?, environment: [String: String], hostname: String,
        credentials: [String: String] = [:]
    ) throws(ConfigurationError) -> ResolvedConfiguration {
        let known = Set(keys.map(\.path))
        let knownVariables = Set(keys.map(\.environmentName)).union(otherVariables)
        // An empty section (`node:` with every key commented out) is not an unknown key.
        let sections = Set(keys.flatMap { key in
            key.path.split(separator: ".").dropLast().indices.map { key.path.split(separator: ".")[...$0].joined(separator: ".") }
        })
        // A list's items are read by its own parser (`buttons`); an empty list (`buttons:`) is no unknown key.
        var unknown = file.filter { entry in
            !known.contains(entry.key) && !(sections.contains(entry.key) && entry.value.isEmpty)
                && !listPaths.contains { entry.key.hasPrefix($0 + "[") } && !(listPaths.contains(entry.key) && entry.value.isEmpty)
        }
            .keys.sorted().map { "\($0) (in \(fileName ?? "the file"))" }
        let buttons = try buttons(file, fileName: fileName)
        unknown += buttons.unknown
        let lamps = try wakeLamps(file, fileName: fileName)
        unknown += lamps.unknown
        unknown += environment.keys.filter { $0.hasPrefix("NOISECLOCK_") && !knownVariables.contains($0) }.sorted()

        var resolved: [String: ResolvedValue] = [:]
        for key in keys {
            let raw: String?
            let source: String
            if let path = credentials[key.path], let name = Self.credentials.first(where: { $0.key == key.path })?.name {
                (raw, source) = (path, "credential \(name)")
            } else if let value = environment[key.environmentName] {
                (raw, source) = (value, key.environmentName)
            } else if let value = file[key.path] {
                (raw, source) = (value, fileName ?? "file")
            } else {
                (raw, source) = (key.defaultValue ?? derivedDefault(key.path, resolved: resolved, hostname: hostname), "default")
            }
            let value = raw ?? ""
            if let reason = problem(with: value, for: key) {
                throw ConfigurationError(key: key.path, source: source, reason: reason)
            }
            resolved[key.path] = ResolvedValue(key: key, value: normalized(value, for: key), source: source)
        }

        func string(_ path: String) -> String { resolved[path]?.value ?? "" }
        func int(_ path: String) -> Int { Int(string(path)) ?? 0 }
        func bool(_ path: String) -> Bool { string(path) == "true" }

        let tls = Configuration.MQTT.TLS(
            enabled: bool("mqtt.tls.enabled"), caFile: string("mqtt.tls.ca_file"), certFile: string("mqtt.tls.cert_file"),
            keyFile: string("mqtt.tls.key_file"), insecure: bool("mqtt.tls.insecure"))
        if tls.certFile.isEmpty != tls.keyFile.isEmpty {
            let missing = tls.certFile.isEmpty ? "mqtt.tls.cert_file" : "mqtt.tls.key_file"
            throw ConfigurationError(
                key: missing, source: resolved[missing]?.source ?? "default",
                reason: "a client certificate needs both mqtt.tls.cert_file and mqtt.tls.key_file")
        }
        let latitude = Double(string("display.latitude")), longitude = Double(string("display.longitude"))
        if (latitude == nil) != (longitude == nil) {
            let missing = latitude == nil ? "display.latitude" : "display.longitude"
            throw ConfigurationError(
                key: missing, source: resolved[missing]?.source ?? "default",
                reason: "a position for sunset and sunrise needs both display.latitude and display.longitude")
        }
        let radio = try radio(resolved, file: file, fileName: fileName), calendar = try calendar(resolved, file: file, fileName: fileName)
        unknown += radio.unknown + calendar.unknown
        let configuration = Configuration(
            node: .init(id: string("node.id"), name: string("node.name")),
            mqtt: .init(
                host: string("mqtt.host"), port: int("mqtt.port"), username: string("mqtt.username"),
                password: string("mqtt.password"), passwordFile: string("mqtt.password_file"), clientID: string("mqtt.client_id"),
                protocolVersion: string("mqtt.protocol") == "311" ? .v311 : .v5,
                keepaliveSeconds: int("mqtt.keepalive_s"), baseTopic: string("mqtt.base_topic"),
                discovery: bool("mqtt.discovery"), discoveryPrefix: string("mqtt.discovery_prefix"), tls: tls),
            stateDirectory: string("state.dir"),
            audio: .init(device: string("audio.device"), fadeMilliseconds: int("audio.fade_ms")),
            soundsCustomDirectory: string("sounds.custom_dir"),
            battery: .init(
                source: string("battery.source"), sysfsRoot: string("battery.sysfs_root"),
                lowThreshold: int("battery.low_threshold")),
            clock: ClockSettings(
                timeFormat: TimeFormat(rawValue: string("clock.time_format")) ?? .twentyFourHour,
                showSeconds: bool("clock.show_seconds"), timezone: string("clock.timezone"),
                locale: string("clock.locale"), publishSeconds: bool("clock.publish_seconds"),
                language: Language(rawValue: string("node.language")) ?? .en),
            alarms: .init(missedGraceMinutes: int("alarms.missed_grace_min"), upcomingMinutes: int("alarms.upcoming_min")),
            display: .init(
                backlight: string("display.backlight"), onCommand: string("display.on_command"),
                offCommand: string("display.off_command"), latitude: latitude, longitude: longitude,
                luxTopic: string("display.lux_topic"), lightSensor: string("display.light_sensor")),
            face: try face(resolved),
            timers: .init(ringTimeoutSeconds: int("timers.ring_timeout_s")),
            meditations: .init(directory: string("meditations.dir")),
            homeAssistant: .init(alarmTimeEntity: .init(rawValue: string("homeassistant.alarm_time_entity")) ?? .text),
            wake: Configuration.Wake(holidays: try wake(resolved).holidays, lights: lamps.lamps), buttons: buttons.buttons, radio: radio.radio,
            speech: try speech(resolved, fileName: fileName), weather: try weather(resolved, fileName: fileName),
            calendar: calendar.calendar)
        return ResolvedConfiguration(
            configuration: configuration,
            values: keys.compactMap { resolved[$0.path] } + lamps.values + buttons.values + radio.values + calendar.values, unknownKeys: unknown)
    }

    private static func derivedDefault(_ path: String, resolved: [String: ResolvedValue], hostname: String) -> String {
        switch path {
        case "node.id": nodeID(fromHostname: hostname)
        case "node.name": hostname.isEmpty ? "NoiseClock" : hostname
        case "node.language": Language(locale: resolved["clock.locale"]?.value ?? "").rawValue
        case "mqtt.client_id": "noiseclock-\(resolved["node.id"]?.value ?? nodeID(fromHostname: hostname))"
        default: ""
        }
    }

    private static let trueWords: Set<String> = ["true", "yes", "on", "1"]
    private static let falseWords: Set<String> = ["false", "no", "off", "0"]

    private static func normalized(_ value: String, for key: ConfigKey) -> String {
        guard case .boolean = key.kind else { return value }
        return trueWords.contains(value.lowercased()) ? "true" : "false"
    }

    /// Nil when `value` is acceptable for `key`, else the reason it is not.
    static func problem(with value: String, for key: ConfigKey) -> String? {
        switch key.kind {
        case .text:
            return nil
        case .nonEmpty:
            return value.isEmpty ? "must not be empty" : nil
        case .integer(let range):
            guard let n = Int(value) else { return "must be a whole number, not \"\(value)\"" }
            return range.contains(n) ? nil : "must be from \(range.lowerBound) to \(range.upperBound), not \(n)"
        case .boolean:
            let lower = value.lowercased()
            return trueWords.contains(lower) || falseWords.contains(lower) ? nil : "must be true or false, not \"\(value)\""
        case .choice(let options):
            return options.contains(value) ? nil : "must be one of \(options.joined(separator: ", ")), not \"\(value)\""
        case .nodeID:
            let ok = !value.isEmpty && value.count <= 64 && value.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
            }
            return ok ? nil : "must be 1-64 characters of a-z, A-Z, 0-9, _ and -, not \"\(value)\""
        case .optionalTopic:
            return value.isEmpty ? nil : problem(with: value, for: ConfigKey(path: key.path, kind: .topic, defaultValue: "", secret: false))
        case .topic:
            if value.isEmpty { return "must not be empty" }
            if value.contains(where: { $0 == "+" || $0 == "#" }) { return "must not contain the MQTT wildcards + or #" }
            if value.hasPrefix("/") || value.hasSuffix("/") || value.contains("//") {
                return "must not start or end with / or contain an empty level"
            }
            return nil
        case .timezone:
            return ClockValidation.timezoneProblem(value)
        case .locale:
            return ClockValidation.localeProblem(value)
        case .optionalNumber(let range):
            if value.isEmpty || value == "null" { return nil }
            guard let n = Double(value), n.isFinite else { return "must be a number, or empty for none, not \"\(value)\"" }
            return range.contains(n) ? nil : "must be from \(range.lowerBound) to \(range.upperBound), not \(value)"
        case .bindAddress:
            return bindProblem(value)
        }
    }
}

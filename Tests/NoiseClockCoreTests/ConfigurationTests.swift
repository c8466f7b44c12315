import NoiseClockCore
import Testing

@Suite("Configuration (SPEC §1)")
struct ConfigurationTests {
    static let fileName = "/etc/noiseclock/noiseclock.yaml"

    private func resolve(
        file: [String: String] = [:], environment: [String: String] = [:], hostname: String = "My-Host.local"
    ) throws(ConfigurationError) -> ResolvedConfiguration {
        try ConfigurationSchema.resolve(file: file, fileName: Self.fileName, environment: environment, hostname: hostname)
    }

    private func resolveError(file: [String: String] = [:], environment: [String: String] = [:]) throws -> ConfigurationError {
        try #require(throws: ConfigurationError.self) { try resolve(file: file, environment: environment) }
    }

    private func value(_ path: String, in resolved: ResolvedConfiguration) throws -> ResolvedValue {
        try #require(resolved.values.first { $0.key.path == path })
    }

    // MARK: defaults

    @Test("with nothing set, every key takes the default SPEC §1 shows")
    func defaults() throws {
        let configuration = try resolve().configuration
        #expect(configuration.mqtt.host == "127.0.0.1")
        #expect(configuration.mqtt.port == 1883)
        #expect(configuration.mqtt.username == "")
        #expect(configuration.mqtt.password == "")
        #expect(configuration.mqtt.passwordFile == "")
        #expect(configuration.mqtt.protocolVersion == .v5)
        #expect(configuration.mqtt.keepaliveSeconds == 30)
        #expect(configuration.mqtt.baseTopic == "noiseclock")
        #expect(configuration.mqtt.discovery == true)
        #expect(configuration.mqtt.discoveryPrefix == "homeassistant")
        let tls = configuration.mqtt.tls
        #expect(!tls.enabled && !tls.insecure)
        #expect(tls.caFile == "" && tls.certFile == "" && tls.keyFile == "")
        #expect(configuration.stateDirectory == "/var/lib/noiseclock")
        #expect(configuration.audio.device == "default")
        #expect(configuration.audio.fadeMilliseconds == 2000)
        #expect(configuration.soundsCustomDirectory == "")
        #expect(configuration.battery.source == "auto")
        #expect(configuration.battery.sysfsRoot == "/sys/class/power_supply")
        #expect(configuration.battery.lowThreshold == 20)
        #expect(configuration.clock == ClockSettings(timeFormat: .twentyFourHour, showSeconds: false, timezone: "", locale: "", publishSeconds: false))
        #expect(configuration.alarms.missedGraceMinutes == 10)
        #expect(configuration.alarms.upcomingMinutes == 0)
    }

    @Test("display: a backlight found by itself, no commands, no position, by default; a position from the file or the environment")
    func display() throws {
        #expect(try resolve().configuration.display == Configuration.Display())
        let placed = try resolve(file: ["display.latitude": "52.52", "display.longitude": "13.405", "display.backlight": "none"])
        #expect(placed.configuration.display.latitude == 52.52)
        #expect(placed.configuration.display.longitude == 13.405)
        #expect(placed.configuration.display.backlight == "none")
        let fromEnvironment = try resolve(environment: ["NOISECLOCK_DISPLAY_LATITUDE": "-33.87", "NOISECLOCK_DISPLAY_LONGITUDE": "151.21"])
        #expect(fromEnvironment.configuration.display.latitude == -33.87)
        // YAML's null is no position.
        #expect(try resolve(file: ["display.latitude": "null", "display.longitude": "null"]).configuration.display.latitude == nil)
    }

    @Test("display: a position out of range, not a number, or half given names the key", arguments: [
        (["display.latitude": "91", "display.longitude": "0"], "display.latitude"),
        (["display.latitude": "0", "display.longitude": "-180.5"], "display.longitude"),
        (["display.latitude": "north", "display.longitude": "0"], "display.latitude"),
        (["display.latitude": "52.5"], "display.longitude"),
        (["display.longitude": "13.4"], "display.latitude"),
    ])
    func badPosition(file: [String: String], key: String) throws {
        #expect(try resolveError(file: file).key == key)
    }

    @Test("with nothing set, every value's source is the default and nothing is unknown")
    func defaultSources() throws {
        let resolved = try resolve()
        #expect(resolved.values.allSatisfy { $0.source == "default" })
        #expect(resolved.unknownKeys.isEmpty)
    }

    @Test("every key of the schema is resolved once, in schema order")
    func everyKeyResolved() throws {
        let resolved = try resolve()
        #expect(resolved.values.map(\.key.path) == ConfigurationSchema.keys.map(\.path))
        #expect(Set(ConfigurationSchema.keys.map(\.path)).count == ConfigurationSchema.keys.count)
    }

    @Test("the node id defaults to the hostname lowercased, with only a-z, 0-9, _ and -")
    func nodeIDFromHostname() throws {
        let configuration = try resolve(hostname: "My-Host.local").configuration
        #expect(configuration.node.id == "my-hostlocal")
        #expect(configuration.node.name == "My-Host.local")
    }

    @Test("host names become node ids", arguments: [
        ("raspberrypi", "raspberrypi"), ("Kitchen_Pi", "kitchen_pi"), ("Bed Room #2", "bedroom2"), ("nuc-01.lan", "nuc-01lan"),
        ("Küche", "kche"),
    ])
    func hostnames(hostname: String, id: String) {
        #expect(ConfigurationSchema.nodeID(fromHostname: hostname) == id)
    }

    @Test("a host name with nothing usable still gives a valid node id", arguments: ["", "...", "日本"])
    func unusableHostname(hostname: String) throws {
        let id = ConfigurationSchema.nodeID(fromHostname: hostname)
        #expect(!id.isEmpty)
        #expect(id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" })
        #expect(try resolve(hostname: hostname).configuration.node.id == id)
    }

    @Test("the node name defaults to a non-empty name even without a host name")
    func nodeNameWithoutHostname() throws {
        #expect(!(try resolve(hostname: "").configuration.node.name.isEmpty))
    }

    @Test("the client id defaults to noiseclock-<node.id>")
    func clientIDDefault() throws {
        #expect(try resolve().configuration.mqtt.clientID == "noiseclock-my-hostlocal")
    }

    @Test("the client id follows a configured node id, from the file or the environment")
    func clientIDFollowsNodeID() throws {
        #expect(try resolve(file: ["node.id": "kitchen"]).configuration.mqtt.clientID == "noiseclock-kitchen")
        #expect(try resolve(environment: ["NOISECLOCK_NODE_ID": "bedroom"]).configuration.mqtt.clientID == "noiseclock-bedroom")
        let both = try resolve(file: ["node.id": "kitchen"], environment: ["NOISECLOCK_NODE_ID": "bedroom"]).configuration
        #expect(both.node.id == "bedroom")
        #expect(both.mqtt.clientID == "noiseclock-bedroom")
    }

    @Test("a configured client id wins over the derived one")
    func clientIDConfigured() throws {
        #expect(try resolve(file: ["node.id": "kitchen", "mqtt.client_id": "clock-1"]).configuration.mqtt.clientID == "clock-1")
    }

    @Test("the topics use base_topic and node.id")
    func topics() throws {
        let configuration = try resolve(file: ["mqtt.base_topic": "home/clocks", "node.id": "kitchen"]).configuration
        #expect(configuration.topics == Topics(base: "home/clocks", nodeID: "kitchen"))
        #expect(configuration.topics.node == "home/clocks/kitchen")
    }

    // MARK: precedence

    @Test("the file wins over the default, and says so")
    func fileWinsOverDefault() throws {
        let resolved = try resolve(file: ["mqtt.host": "broker.lan", "mqtt.port": "8883"])
        #expect(resolved.configuration.mqtt.host == "broker.lan")
        #expect(resolved.configuration.mqtt.port == 8883)
        #expect(try value("mqtt.host", in: resolved).source == Self.fileName)
        #expect(try value("mqtt.username", in: resolved).source == "default")
    }

    @Test("an environment variable wins over the file, and says so")
    func environmentWinsOverFile() throws {
        let resolved = try resolve(file: ["mqtt.host": "broker.lan"], environment: ["NOISECLOCK_MQTT_HOST": "10.0.0.5"])
        #expect(resolved.configuration.mqtt.host == "10.0.0.5")
        #expect(try value("mqtt.host", in: resolved).source == "NOISECLOCK_MQTT_HOST")
    }

    @Test("every key is read from NOISECLOCK_ plus its path in upper snake case", arguments: [
        ("node.id", "NOISECLOCK_NODE_ID"), ("mqtt.host", "NOISECLOCK_MQTT_HOST"), ("mqtt.port", "NOISECLOCK_MQTT_PORT"),
        ("state.dir", "NOISECLOCK_STATE_DIR"), ("audio.device", "NOISECLOCK_AUDIO_DEVICE"),
        ("battery.source", "NOISECLOCK_BATTERY_SOURCE"), ("mqtt.tls.ca_file", "NOISECLOCK_MQTT_TLS_CA_FILE"),
        ("mqtt.keepalive_s", "NOISECLOCK_MQTT_KEEPALIVE_S"), ("alarms.missed_grace_min", "NOISECLOCK_ALARMS_MISSED_GRACE_MIN"),
    ])
    func environmentNames(path: String, variable: String) throws {
        let key = try #require(ConfigurationSchema.keys.first { $0.path == path })
        #expect(key.environmentName == variable)
    }

    @Test("the environment sets keys of every kind")
    func environmentSetsEveryKind() throws {
        let configuration = try resolve(environment: [
            "NOISECLOCK_STATE_DIR": "/srv/noiseclock", "NOISECLOCK_AUDIO_DEVICE": "plughw:1,0", "NOISECLOCK_BATTERY_SOURCE": "sysfs",
            "NOISECLOCK_MQTT_TLS_ENABLED": "yes", "NOISECLOCK_CLOCK_TIME_FORMAT": "12h", "NOISECLOCK_ALARMS_UPCOMING_MIN": "15",
            "NOISECLOCK_CLOCK_TIMEZONE": "Asia/Kolkata", "NOISECLOCK_CLOCK_LOCALE": "de_DE", "NOISECLOCK_MQTT_PROTOCOL": "311",
        ]).configuration
        #expect(configuration.stateDirectory == "/srv/noiseclock")
        #expect(configuration.audio.device == "plughw:1,0")
        #expect(configuration.battery.source == "sysfs")
        #expect(configuration.mqtt.tls.enabled == true)
        #expect(configuration.clock.timeFormat == .twelveHour)
        #expect(configuration.alarms.upcomingMinutes == 15)
        #expect(configuration.clock.timezone == "Asia/Kolkata")
        #expect(configuration.clock.locale == "de_DE")
        #expect(configuration.mqtt.protocolVersion == .v311)
    }

    // MARK: errors

    @Test("a port that is not a number in the environment names the key and the variable")
    func portNotANumber() throws {
        let error = try resolveError(file: ["mqtt.port": "1883"], environment: ["NOISECLOCK_MQTT_PORT": "abc"])
        #expect(error.key == "mqtt.port")
        #expect(error.source == "NOISECLOCK_MQTT_PORT")
        #expect(error.reason.contains("abc"))
        #expect(error.description.contains("mqtt.port"))
        #expect(error.description.contains("NOISECLOCK_MQTT_PORT"))
    }

    @Test("a port out of range names the key and the file", arguments: ["0", "65536", "-1"])
    func portOutOfRange(port: String) throws {
        let error = try resolveError(file: ["mqtt.port": port])
        #expect(error.key == "mqtt.port")
        #expect(error.source == Self.fileName)
    }

    @Test("the port range includes its ends", arguments: [("1", 1), ("65535", 65535)])
    func portBounds(raw: String, port: Int) throws {
        #expect(try resolve(file: ["mqtt.port": raw]).configuration.mqtt.port == port)
    }

    @Test("an unknown time_format is rejected, naming the key", arguments: ["25h", "12", "24H", ""])
    func unknownTimeFormat(raw: String) throws {
        #expect(try resolveError(file: ["clock.time_format": raw]).key == "clock.time_format")
    }

    @Test("an unknown protocol version is rejected", arguments: ["4", "3.1.1", "v5"])
    func unknownProtocol(raw: String) throws {
        #expect(try resolveError(file: ["mqtt.protocol": raw]).key == "mqtt.protocol")
    }

    @Test("an unknown battery source is rejected")
    func unknownBatterySource() throws {
        #expect(try resolveError(environment: ["NOISECLOCK_BATTERY_SOURCE": "solar"]).key == "battery.source")
    }

    @Test("a node id that cannot be a topic level is rejected", arguments: [
        "kitchen/pi", "kitchen+", "kitchen#", "two words", "", String(repeating: "a", count: 65),
    ])
    func badNodeID(id: String) throws {
        let error = try resolveError(file: ["node.id": id])
        #expect(error.key == "node.id")
        #expect(error.source == Self.fileName)
    }

    @Test("a node id of up to 64 characters of a-z, 0-9, _ and - is accepted")
    func goodNodeID() throws {
        let long = String(repeating: "a", count: 64)
        #expect(try resolve(file: ["node.id": long]).configuration.node.id == long)
        #expect(try resolve(file: ["node.id": "kitchen_pi-2"]).configuration.node.id == "kitchen_pi-2")
    }

    @Test("a base topic with an MQTT wildcard or an empty level is rejected", arguments: [
        "home/+", "home/#", "+", "#", "/noiseclock", "noiseclock/", "home//clocks", "",
    ])
    func badBaseTopic(topic: String) throws {
        let error = try resolveError(environment: ["NOISECLOCK_MQTT_BASE_TOPIC": topic])
        #expect(error.key == "mqtt.base_topic")
        #expect(error.source == "NOISECLOCK_MQTT_BASE_TOPIC")
    }

    @Test("the discovery prefix is checked like a topic")
    func badDiscoveryPrefix() throws {
        #expect(try resolveError(file: ["mqtt.discovery_prefix": "homeassistant/#"]).key == "mqtt.discovery_prefix")
    }

    @Test("display.lux_topic is one topic the node subscribes to: a wildcard or an empty level is rejected, empty is none; display.light_sensor defaults to auto")
    func luxTopic() throws {
        for topic in ["home/+/illuminance", "home/#", "/lux", "home//lux"] {
            let error = try resolveError(file: ["display.lux_topic": topic])
            #expect(error.key == "display.lux_topic", "\(topic)")
        }
        #expect(try resolve(file: ["display.lux_topic": ""]).configuration.display.luxTopic == "")
        #expect(try resolve(file: ["display.lux_topic": "zigbee2mqtt/bedroom sensor"]).configuration.display.luxTopic == "zigbee2mqtt/bedroom sensor")
        #expect(try resolve(file: [:]).configuration.display.lightSensor == "auto")
        #expect(try resolve(file: ["display.light_sensor": "none"]).configuration.display.lightSensor == "none")
    }

    @Test("an unknown timezone or locale is rejected, naming the key")
    func badClock() throws {
        #expect(try resolveError(file: ["clock.timezone": "Mars/Olympus_Mons"]).key == "clock.timezone")
        #expect(try resolveError(file: ["clock.locale": "xx_NOPE"]).key == "clock.locale")
    }

    @Test("integers outside their ranges are rejected", arguments: [
        ("mqtt.keepalive_s", "4"), ("audio.fade_ms", "60001"), ("battery.low_threshold", "100"), ("alarms.missed_grace_min", "-1"),
        ("alarms.upcoming_min", "1441"), ("audio.fade_ms", "2.5"),
    ])
    func integerRanges(path: String, raw: String) throws {
        #expect(try resolveError(file: [path: raw]).key == path)
    }

    @Test("required text keys must not be empty", arguments: ["mqtt.host", "state.dir", "audio.device", "node.name"])
    func nonEmpty(path: String) throws {
        #expect(try resolveError(file: [path: ""]).key == path)
    }

    // MARK: booleans

    @Test("booleans accept true/false, yes/no, on/off and 1/0 in any case, normalized", arguments: [
        ("true", true), ("false", false), ("yes", true), ("no", false), ("on", true), ("off", false),
        ("YES", true), ("Off", false), ("1", true), ("0", false),
    ])
    func booleans(raw: String, expected: Bool) throws {
        let resolved = try resolve(file: ["mqtt.discovery": raw, "clock.show_seconds": raw], environment: ["NOISECLOCK_MQTT_TLS_INSECURE": raw])
        #expect(resolved.configuration.mqtt.discovery == expected)
        #expect(resolved.configuration.clock.showSeconds == expected)
        #expect(resolved.configuration.mqtt.tls.insecure == expected)
        #expect(try value("mqtt.discovery", in: resolved).value == (expected ? "true" : "false"))
    }

    @Test("a boolean that is not one of those words is rejected", arguments: ["maybe", "", "2", "enabled"])
    func badBoolean(raw: String) throws {
        let error = try resolveError(environment: ["NOISECLOCK_MQTT_DISCOVERY": raw])
        #expect(error.key == "mqtt.discovery")
        #expect(error.source == "NOISECLOCK_MQTT_DISCOVERY")
    }

    // MARK: unknown keys

    @Test("unknown file keys are reported with the file they came from, and do not stop the node")
    func unknownFileKeys() throws {
        let resolved = try resolve(file: ["mqtt.hostname": "x", "mqtt.host": "broker.lan", "colour": "red"])
        #expect(resolved.unknownKeys.count == 2)
        #expect(resolved.unknownKeys.contains { $0.contains("mqtt.hostname") && $0.contains(Self.fileName) })
        #expect(resolved.unknownKeys.contains { $0.contains("colour") })
        #expect(!resolved.unknownKeys.contains { $0.hasPrefix("mqtt.host ") })
        #expect(resolved.configuration.mqtt.host == "broker.lan")
    }

    @Test("an empty section, every key under it commented out, is not an unknown key")
    func emptySections() throws {
        let resolved = try resolve(file: ["node": "", "mqtt.tls": "", "alarms": ""])
        #expect(resolved.unknownKeys.isEmpty)
    }

    @Test("a section name given a value, or a made-up empty key, is still unknown")
    func sectionWithValue() throws {
        let resolved = try resolve(file: ["mqtt": "broker.lan", "speaker": ""])
        #expect(resolved.unknownKeys.count == 2)
        #expect(resolved.unknownKeys.contains { $0.hasPrefix("mqtt ") })
        #expect(resolved.unknownKeys.contains { $0.hasPrefix("speaker ") })
    }

    @Test("unknown NOISECLOCK_ variables are reported; NOISECLOCK_CONFIG and other variables are not")
    func unknownVariables() throws {
        let resolved = try resolve(environment: [
            "NOISECLOCK_MQTT_HOSTNAME": "x", "NOISECLOCK_CONFIG": "/tmp/noiseclock.yaml", "NOISECLOCK_MQTT_HOST": "broker.lan",
            "PATH": "/usr/bin", "HOME": "/root", "MQTT_HOST": "y",
        ])
        #expect(resolved.unknownKeys == ["NOISECLOCK_MQTT_HOSTNAME"])
    }

    // MARK: TLS

    @Test("a client certificate without its key is rejected, naming the missing key")
    func certWithoutKey() throws {
        let error = try resolveError(file: ["mqtt.tls.enabled": "true", "mqtt.tls.cert_file": "/etc/noiseclock/client.crt"])
        #expect(error.key == "mqtt.tls.key_file")
    }

    @Test("a client key without its certificate is rejected, naming the missing key")
    func keyWithoutCert() throws {
        let error = try resolveError(environment: ["NOISECLOCK_MQTT_TLS_KEY_FILE": "/etc/noiseclock/client.key"])
        #expect(error.key == "mqtt.tls.cert_file")
    }

    @Test("a client certificate with its key is accepted")
    func certAndKey() throws {
        let tls = try resolve(file: [
            "mqtt.tls.enabled": "on", "mqtt.tls.ca_file": "/etc/ssl/ca.pem",
            "mqtt.tls.cert_file": "/etc/noiseclock/client.crt", "mqtt.tls.key_file": "/etc/noiseclock/client.key",
        ]).configuration.mqtt.tls
        #expect(tls.enabled)
        #expect(!tls.insecure)
        #expect(tls.caFile == "/etc/ssl/ca.pem")
        #expect(tls.certFile == "/etc/noiseclock/client.crt")
        #expect(tls.keyFile == "/etc/noiseclock/client.key")
    }

    // MARK: secrets

    @Test("check-config masks a set password")
    func passwordMasked() throws {
        let resolved = try resolve(file: ["mqtt.username": "alice", "mqtt.password": "s3cret"])
        #expect(resolved.configuration.mqtt.password == "s3cret")
        let password = try value("mqtt.password", in: resolved)
        #expect(!password.displayValue.contains("s3cret"))
        #expect(!password.displayValue.isEmpty)
        #expect(password.value == "s3cret")
        #expect(try value("mqtt.username", in: resolved).displayValue == "alice")
    }

    @Test("an empty password is shown as empty, so the user sees none is set")
    func emptyPasswordShown() throws {
        #expect(try value("mqtt.password", in: try resolve()).displayValue == "")
    }

    @Test("no value but the password is masked")
    func onlyPasswordSecret() throws {
        let resolved = try resolve(file: ["mqtt.password": "s3cret", "mqtt.password_file": "/run/secrets/mqtt"])
        for value in resolved.values where value.key.path != "mqtt.password" {
            #expect(value.displayValue == value.value, "\(value.key.path)")
        }
        #expect(ConfigurationSchema.keys.filter(\.secret).map(\.path) == ["mqtt.password"])
    }
}

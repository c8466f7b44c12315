/// Lamps the node drives itself during a sunrise (SPEC §12 `wake.lights`), over MQTT, without Home
/// Assistant: Zigbee2MQTT's `…/set`, Home Assistant's MQTT JSON light schema, or a bare level.
public struct WakeLamp: Sendable, Hashable {
    public enum Schema: String, Sendable, Hashable, CaseIterable {
        /// `{"state":"ON","brightness":N,"color_temp":mireds,"transition":s}` to the device's `…/set`.
        case zigbee2mqtt
        /// Home Assistant's MQTT light, JSON schema: the same members.
        case homeassistant
        /// A bare 0-100.
        case level
    }

    /// Where it is in the file (`wake.lights[0]`): named by errors and logs.
    public var key: String
    public var topic: String
    public var schema: Schema
    /// The brightness that means full (254 for Zigbee2MQTT; 255 for a Home Assistant light).
    public var maxBrightness: Int
    /// Kelvin at the sunrise's start and at the ring; nil for a white-only lamp.
    public var colorTemperature: (start: Int, end: Int)?
    /// At most one command per this many seconds, each with a transition to the next step.
    public var minIntervalSeconds: Int

    public init(
        key: String = "wake.lights[0]", topic: String, schema: Schema = .zigbee2mqtt, maxBrightness: Int = 254,
        colorTemperature: (start: Int, end: Int)? = nil, minIntervalSeconds: Int = 20
    ) {
        self.key = key
        self.topic = topic
        self.schema = schema
        self.maxBrightness = maxBrightness
        self.colorTemperature = colorTemperature
        self.minIntervalSeconds = minIntervalSeconds
    }

    public static func == (a: WakeLamp, b: WakeLamp) -> Bool {
        a.key == b.key && a.topic == b.topic && a.schema == b.schema && a.maxBrightness == b.maxBrightness
            && a.colorTemperature?.start == b.colorTemperature?.start && a.colorTemperature?.end == b.colorTemperature?.end
            && a.minIntervalSeconds == b.minIntervalSeconds
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(topic)
    }

    /// The colour temperature (kelvin) at `level` (0...1): it rises with the light.
    public func kelvin(at level: Double) -> Int? {
        guard let temperature = colorTemperature else { return nil }
        let l = min(1, max(0, level))
        return Int((Double(temperature.start) + Double(temperature.end - temperature.start) * l).rounded())
    }

    /// The command that takes the lamp to `level` (0...1 of full) over `transition` seconds.
    public func command(level: Double, transition: Int) -> [UInt8] {
        let l = min(1, max(0, level))
        switch schema {
        case .level:
            return Array(String(Int((l * 100).rounded())).utf8)
        case .zigbee2mqtt, .homeassistant:
            var members: [String: JSONValue] = [
                "state": "ON", "brightness": .number(Double(max(1, Int((l * Double(maxBrightness)).rounded())))),
                "transition": .number(Double(max(0, transition))),
            ]
            if let kelvin = kelvin(at: l) { members["color_temp"] = .number((1_000_000 / Double(kelvin)).rounded()) }
            return JSONValue.object(members).serializedBytes
        }
    }

    /// The command that turns the lamp off.
    public var off: [UInt8] {
        switch schema {
        case .level: Array("0".utf8)
        case .zigbee2mqtt, .homeassistant: JSONValue.object(["state": "OFF"]).serializedBytes
        }
    }
}

extension ConfigurationSchema {
    /// `wake.lights[N].*` of the file as lamps, with the values they are made of for `check-config`
    /// and the keys a lamp does not have (reported as unknown).
    static func wakeLamps(
        _ file: [String: String], fileName: String?
    ) throws(ConfigurationError) -> (lamps: [WakeLamp], values: [ResolvedValue], unknown: [String]) {
        let source = fileName ?? "file"
        func fail(_ key: String, _ reason: String) -> ConfigurationError { ConfigurationError(key: key, source: source, reason: reason) }
        let items = listItems(file, "wake.lights")
        var lamps: [WakeLamp] = [], values: [ResolvedValue] = [], unknown: [String] = []
        for index in items.keys.sorted() {
            let item = items[index] ?? [:], key = "wake.lights[\(index)]"
            func shown(_ field: String, _ text: String) {
                values.append(ResolvedValue(key: ConfigKey(path: "\(key).\(field)", kind: .text, defaultValue: nil, secret: false), value: text, source: source))
            }
            func integer(_ field: String, _ range: ClosedRange<Int>, default value: Int) throws(ConfigurationError) -> Int {
                guard let text = item[field] else { return value }
                guard let number = Int(text.trimmingWhitespace()), range.contains(number) else {
                    throw fail("\(key).\(field)", "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
                }
                return number
            }
            guard !(item.count == 1 && item[""] != nil) else { throw fail(key, "must be a mapping with a topic") }
            let topic = item["topic"] ?? ""
            if let reason = problem(with: topic, for: ConfigKey(path: "\(key).topic", kind: .topic, defaultValue: nil, secret: false)) {
                throw fail("\(key).topic", reason)
            }
            let schemaText = item["schema"] ?? WakeLamp.Schema.zigbee2mqtt.rawValue
            guard let schema = WakeLamp.Schema(rawValue: schemaText) else {
                throw fail("\(key).schema", "must be zigbee2mqtt, homeassistant or level, not \"\(schemaText)\"")
            }
            let full = try integer("max_brightness", 1...65535, default: schema == .homeassistant ? 255 : schema == .level ? 100 : 254)
            let interval = try integer("min_interval_s", 1...600, default: 20)
            var temperature: (start: Int, end: Int)?
            if item["color_temp[0]"] != nil || item["color_temp[1]"] != nil || item["color_temp"] != nil {
                guard item["color_temp"] == nil, item["color_temp[2]"] == nil,
                      let start = item["color_temp[0]"].flatMap({ Int($0) }), let end = item["color_temp[1]"].flatMap({ Int($0) }),
                      (1000...10000).contains(start), (1000...10000).contains(end)
                else { throw fail("\(key).color_temp", "must be two kelvin values from 1000 to 10000, e.g. [2000, 4000]") }
                temperature = (start, end)
            }
            let known: Set<String> = ["topic", "schema", "max_brightness", "min_interval_s", "color_temp[0]", "color_temp[1]"]
            unknown += item.keys.filter { !known.contains($0) }.sorted().map { "\(key).\($0) (in \(fileName ?? "the file"))" }
            shown("topic", topic)
            shown("schema", schema.rawValue)
            shown("max_brightness", String(full))
            shown("color_temp", temperature.map { "[\($0.start), \($0.end)]" } ?? "none")
            shown("min_interval_s", String(interval))
            lamps.append(
                WakeLamp(key: key, topic: topic, schema: schema, maxBrightness: full, colorTemperature: temperature, minIntervalSeconds: interval))
        }
        return (lamps, values, unknown)
    }
}

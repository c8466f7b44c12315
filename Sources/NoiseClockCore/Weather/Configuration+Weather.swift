/// The keys of the weather (SPEC §17): `weather.*`.
extension Configuration {
    public struct Weather: Sendable, Hashable {
        public enum Source: String, Sendable, Hashable, CaseIterable {
            case none
            /// Open-Meteo's forecast API at the node's `display.latitude`/`longitude`.
            case openMeteo = "open-meteo"
            /// What an automation publishes to `weather.topic`.
            case mqtt
        }

        public var source: Source
        public var topic: String
        public var units: WeatherReport.Units
        public var refreshMinutes: Int
        /// Open-Meteo's forecast endpoint (a self-hosted Open-Meteo; the tests' own server).
        public var url: String
        public var latitude: Double?
        public var longitude: Double?

        public init(
            source: Source = .none, topic: String = "", units: WeatherReport.Units = .metric, refreshMinutes: Int = 30,
            url: String = OpenMeteo.defaultBase, latitude: Double? = nil, longitude: Double? = nil
        ) {
            self.source = source
            self.topic = topic
            self.units = units
            self.refreshMinutes = refreshMinutes
            self.url = url
            self.latitude = latitude
            self.longitude = longitude
        }
    }
}

extension ConfigurationSchema {
    static let weatherKeys: [ConfigKey] = [
        ConfigKey(path: "weather.source", kind: .choice(Configuration.Weather.Source.allCases.map(\.rawValue)), defaultValue: "none", secret: false),
        ConfigKey(path: "weather.topic", kind: .optionalTopic, defaultValue: "", secret: false),
        ConfigKey(path: "weather.units", kind: .choice(WeatherReport.Units.allCases.map(\.rawValue)), defaultValue: "metric", secret: false),
        ConfigKey(path: "weather.refresh_min", kind: .integer(10...1440), defaultValue: "30", secret: false),
        ConfigKey(path: "weather.url", kind: .nonEmpty, defaultValue: OpenMeteo.defaultBase, secret: false),
    ]

    /// `weather.*`, with what one key alone cannot check: Open-Meteo needs the node's position, and
    /// `mqtt` a topic (each error names its key).
    static func weather(_ resolved: [String: ResolvedValue], fileName: String?) throws(ConfigurationError) -> Configuration.Weather {
        func value(_ path: String) -> String { resolved[path]?.value ?? "" }
        func fail(_ path: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(key: path, source: resolved[path]?.source ?? fileName ?? "file", reason: reason)
        }
        let source = Configuration.Weather.Source(rawValue: value("weather.source")) ?? .none
        let latitude = Double(value("display.latitude")), longitude = Double(value("display.longitude"))
        if source == .openMeteo && (latitude == nil || longitude == nil) {
            throw fail("weather.source", "open-meteo needs the node's position: display.latitude and display.longitude")
        }
        if source == .mqtt && value("weather.topic").isEmpty { throw fail("weather.topic", "weather.source: mqtt needs the topic to read") }
        let url = value("weather.url")
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw fail("weather.url", "must be an http or https address") }
        return Configuration.Weather(
            source: source, topic: value("weather.topic"), units: WeatherReport.Units(rawValue: value("weather.units")) ?? .metric,
            refreshMinutes: Int(value("weather.refresh_min")) ?? 30, url: url, latitude: latitude, longitude: longitude)
    }
}

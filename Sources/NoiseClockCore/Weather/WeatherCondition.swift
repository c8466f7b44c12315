/// The weather as the WMO's interpretation codes (WW, as Open-Meteo gives them) say it (SPEC §17):
/// the code, its name in the node's languages, and the kind of weather it is (the face's icon, an
/// alarm's `earlier_if`).
public struct WeatherCondition: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case clear, partlyCloudy = "partly_cloudy", cloudy, fog, drizzle, rain, showers, ice, snow, thunder
    }

    public let code: Int
    public let kind: Kind
    public let names: [Language: String]

    public func name(_ language: Language) -> String { names[language] ?? names[.en] ?? "" }

    /// The condition of WMO code `code`; nil for a code the WMO table does not have.
    public init?(code: Int) {
        guard let entry = Self.table[code] else { return nil }
        self.code = code
        kind = entry.kind
        names = [.en: entry.en, .de: entry.de]
    }

    /// The codes Open-Meteo uses (WMO 4677, the subset of its documentation).
    static let table: [Int: (kind: Kind, en: String, de: String)] = [
        0: (.clear, "Clear sky", "Klarer Himmel"),
        1: (.clear, "Mainly clear", "Überwiegend klar"),
        2: (.partlyCloudy, "Partly cloudy", "Teilweise bewölkt"),
        3: (.cloudy, "Overcast", "Bedeckt"),
        45: (.fog, "Fog", "Nebel"),
        48: (.fog, "Rime fog", "Nebel mit Reif"),
        51: (.drizzle, "Light drizzle", "Leichter Nieselregen"),
        53: (.drizzle, "Drizzle", "Nieselregen"),
        55: (.drizzle, "Dense drizzle", "Starker Nieselregen"),
        56: (.ice, "Light freezing drizzle", "Leichter gefrierender Nieselregen"),
        57: (.ice, "Dense freezing drizzle", "Starker gefrierender Nieselregen"),
        61: (.rain, "Slight rain", "Leichter Regen"),
        63: (.rain, "Rain", "Regen"),
        65: (.rain, "Heavy rain", "Starker Regen"),
        66: (.ice, "Light freezing rain", "Leichter gefrierender Regen"),
        67: (.ice, "Heavy freezing rain", "Starker gefrierender Regen"),
        71: (.snow, "Slight snowfall", "Leichter Schneefall"),
        73: (.snow, "Snowfall", "Schneefall"),
        75: (.snow, "Heavy snowfall", "Starker Schneefall"),
        77: (.snow, "Snow grains", "Schneegriesel"),
        80: (.showers, "Slight rain showers", "Leichte Regenschauer"),
        81: (.showers, "Rain showers", "Regenschauer"),
        82: (.showers, "Violent rain showers", "Heftige Regenschauer"),
        85: (.snow, "Slight snow showers", "Leichte Schneeschauer"),
        86: (.snow, "Heavy snow showers", "Starke Schneeschauer"),
        95: (.thunder, "Thunderstorm", "Gewitter"),
        96: (.thunder, "Thunderstorm with slight hail", "Gewitter mit leichtem Hagel"),
        99: (.thunder, "Thunderstorm with heavy hail", "Gewitter mit starkem Hagel"),
    ]

    /// Every code the table knows, in order.
    public static var codes: [Int] { table.keys.sorted() }

    /// A Home Assistant weather entity's condition (`sunny`, `rainy`, `snowy-rainy`…) as the WMO
    /// code nearest to it: what an automation publishes for `weather.source: mqtt`.
    public init?(homeAssistant condition: String) {
        let codes: [String: Int] = [
            "clear-night": 0, "sunny": 0, "partlycloudy": 2, "cloudy": 3, "windy": 3, "windy-variant": 3, "exceptional": 3, "fog": 45,
            "rainy": 61, "pouring": 65, "snowy-rainy": 66, "snowy": 73, "hail": 96, "lightning": 95, "lightning-rainy": 95,
        ]
        guard let code = codes[condition.lowercased()] else { return nil }
        self.init(code: code)
    }
}

import FoundationEssentials

/// A day of the forecast (SPEC §17): `B/weather`'s `days`, and what `earlier_if` falls back on
/// when no hours are known.
public struct ForecastDay: Sendable, Hashable {
    public var date: CivilDate
    public var condition: WeatherCondition
    public var low: Double?
    public var high: Double?
    public var precipitationProbability: Int?

    public init(date: CivilDate, condition: WeatherCondition, low: Double? = nil, high: Double? = nil, precipitationProbability: Int? = nil) {
        self.date = date
        self.condition = condition
        self.low = low
        self.high = high
        self.precipitationProbability = precipitationProbability
    }

    public func json() -> JSONValue {
        [
            "date": .string(date.iso), "condition": .number(Double(condition.code)), "kind": .string(condition.kind.rawValue),
            "low": WeatherReport.rounded(low), "high": WeatherReport.rounded(high),
            "precipitation_probability": precipitationProbability.map { .number(Double($0)) } ?? .null,
        ]
    }
}

/// An hour of the forecast: what `earlier_if` reads for an alarm's morning.
public struct ForecastHour: Sendable, Hashable {
    public var start: Date
    public var condition: WeatherCondition
    public var temperature: Double?

    public init(start: Date, condition: WeatherCondition, temperature: Double? = nil) {
        self.start = start
        self.condition = condition
        self.temperature = temperature
    }
}

/// The weather an alarm's `earlier_if` wakes earlier for (SPEC §17), in the order a tie is said.
public enum WakeWeather: String, Sendable, Hashable, CaseIterable {
    case snow, ice, rain

    /// The word in `B/alarm/next`'s reason, as the face and the briefing say it.
    public func name(_ language: Language) -> String {
        switch (self, language) {
        case (.snow, .de): "Schnee"
        case (.ice, .de): "Glätte"
        case (.rain, .de): "Regen"
        case (.snow, _): "snow"
        case (.ice, _): "ice"
        case (.rain, _): "rain"
        }
    }
}

extension WeatherReport {
    /// How far back before an alarm's own time its morning starts, and how far after it ends.
    public static let morningBefore: TimeInterval = 3 * 3600
    public static let morningAfter: TimeInterval = 3600

    /// The weather `earlier_if` looks for on the morning of an occurrence at `time` on `day`
    /// (its own time): from the hours of the forecast between three hours before and an hour
    /// after it, snow (snowfall, snow showers), ice (freezing drizzle or rain, or rain or drizzle
    /// at or below freezing) and rain (drizzle, rain, showers, thunderstorms). Without hours for
    /// that morning, the day's condition and low say it; without either, nothing is forecast.
    public func morning(at time: Date, on day: CivilDate) -> Set<WakeWeather> {
        let freezing = units == .metric ? 0.0 : 32.0
        let window = time.addingTimeInterval(-Self.morningBefore)...time.addingTimeInterval(Self.morningAfter)
        let hours = hours.filter { window.contains($0.start) }
        if !hours.isEmpty {
            return hours.reduce(into: []) { found, hour in
                found.formUnion(Self.weather(hour.condition.kind, freezing: hour.temperature.map { $0 <= freezing } ?? false))
            }
        }
        guard let forecast = days.first(where: { $0.date == day }) else { return [] }
        return Self.weather(forecast.condition.kind, freezing: forecast.low.map { $0 <= freezing } ?? false)
    }

    static func weather(_ kind: WeatherCondition.Kind, freezing: Bool) -> Set<WakeWeather> {
        switch kind {
        case .snow: [.snow]
        case .ice: [.ice]
        case .drizzle, .rain, .showers, .thunder: freezing ? [.ice, .rain] : [.rain]
        case .clear, .partlyCloudy, .cloudy, .fog: []
        }
    }

    static func rounded(_ value: Double?) -> JSONValue { value.map { .number(($0 * 10).rounded() / 10) } ?? .null }
}

/// An alarm's `earlier_if` (SPEC §17): minutes (0-60, 0 off) to ring earlier when snow, ice or
/// rain is forecast for its morning; the earliest that applies wins.
public struct EarlierIf: Sendable, Hashable {
    public static let minutes = 0...60

    public var snow: Int
    public var ice: Int
    public var rain: Int

    public init(snow: Int = 0, ice: Int = 0, rain: Int = 0) {
        self.snow = snow
        self.ice = ice
        self.rain = rain
    }

    public func minutes(for weather: WakeWeather) -> Int {
        switch weather {
        case .snow: snow
        case .ice: ice
        case .rain: rain
        }
    }

    /// How much earlier to ring for `forecast`, and for which weather; nil: not earlier.
    public func earlier(for forecast: Set<WakeWeather>) -> (minutes: Int, reason: WakeWeather)? {
        var best: (minutes: Int, reason: WakeWeather)?
        // In the order snow, ice, rain: a tie goes to the first.
        for weather in WakeWeather.allCases where forecast.contains(weather) && minutes(for: weather) > (best?.minutes ?? 0) {
            best = (minutes(for: weather), weather)
        }
        return best
    }

    public var json: JSONValue { ["snow": .number(Double(snow)), "ice": .number(Double(ice)), "rain": .number(Double(rain))] }

    /// `earlier_if`: an object of `snow`, `ice`, `rain` minutes (each optional, 0-60); the field
    /// at fault is named (`earlier_if.snow`).
    public init(_ value: JSONValue) throws(CommandError) {
        guard case .object(let members) = value else {
            throw .invalidField("earlier_if", "must be an object such as {\"snow\":20,\"ice\":20,\"rain\":5}, or null")
        }
        for key in members.keys where WakeWeather(rawValue: key) == nil {
            throw .invalidField("earlier_if.\(key)", "is not known; earlier_if takes snow, ice and rain")
        }
        func minutes(_ key: String) throws(CommandError) -> Int {
            guard let value = members[key] else { return 0 }
            guard let number = value.intValue, Self.minutes.contains(number) else {
                throw .invalidField("earlier_if.\(key)", "must be a whole number of minutes from 0 to 60")
            }
            return number
        }
        self.init(snow: try minutes("snow"), ice: try minutes("ice"), rain: try minutes("rain"))
    }

    public var isOff: Bool { snow == 0 && ice == 0 && rain == 0 }
}

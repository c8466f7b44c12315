import FoundationEssentials

/// The weather now and today (SPEC §17): what `B/weather` says, the briefing reads and the face
/// shows. Temperatures in the units of `weather.units`, wind in km/h (mph with imperial).
public struct WeatherReport: Sendable, Hashable {
    public enum Units: String, Sendable, Hashable, CaseIterable {
        case metric, imperial

        /// The unit of a temperature, as written beside it.
        public var temperature: String { self == .metric ? "°C" : "°F" }
    }

    public var condition: WeatherCondition
    public var temperature: Double?
    public var feelsLike: Double?
    public var low: Double?
    public var high: Double?
    /// Today's highest chance of precipitation, 0-100.
    public var precipitationProbability: Int?
    public var wind: Double?
    public var units: Units
    /// When the source said it (the node's clock at the answer).
    public var updatedAt: Date
    /// `open-meteo` or `mqtt`.
    public var source: String
    /// Today and the days after it, as far as the source says (Open-Meteo: three).
    public var days: [ForecastDay]
    /// The coming hours, as far as the source says (Open-Meteo: three days'): for `earlier_if`.
    public var hours: [ForecastHour]

    public init(
        condition: WeatherCondition, temperature: Double? = nil, feelsLike: Double? = nil, low: Double? = nil, high: Double? = nil,
        precipitationProbability: Int? = nil, wind: Double? = nil, units: Units = .metric, updatedAt: Date, source: String,
        days: [ForecastDay] = [], hours: [ForecastHour] = []
    ) {
        self.condition = condition
        self.temperature = temperature
        self.feelsLike = feelsLike
        self.low = low
        self.high = high
        self.precipitationProbability = precipitationProbability
        self.wind = wind
        self.units = units
        self.updatedAt = updatedAt
        self.source = source
        self.days = days
        self.hours = hours
    }

    /// Weather older than this is shown as stale, never as now.
    public static let staleAfter: TimeInterval = 3 * 3600

    public func isStale(at now: Date) -> Bool { now.timeIntervalSince(updatedAt) > Self.staleAfter }

    /// `B/weather`, with `updated_at` written by `iso`; `error`: why the last refresh failed (the
    /// report is the one before it).
    public func json(at now: Date, error: String? = nil, iso: (Date) -> String) -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map { .number(($0 * 10).rounded() / 10) } ?? .null }
        return [
            "condition": .number(Double(condition.code)), "kind": .string(condition.kind.rawValue),
            "names": ["en": .string(condition.name(.en)), "de": .string(condition.name(.de))],
            "temperature": number(temperature), "feels_like": number(feelsLike), "low": number(low), "high": number(high),
            "precipitation_probability": precipitationProbability.map { .number(Double($0)) } ?? .null,
            "wind_kmh": number(units == .metric ? wind : wind.map { $0 * 1.609_344 }), "units": .string(units.rawValue),
            "updated_at": .string(iso(updatedAt)), "stale": .bool(isStale(at: now)), "source": .string(source),
            "error": error.map { .string($0) } ?? .null, "days": .array(days.map { $0.json() }),
        ]
    }

    /// What the briefing says of it: "Slight rain, 4 degrees, today between minus 1 and 6." /
    /// "Leichter Regen, 4 Grad, heute zwischen minus 1 und 6 Grad." Stale weather is not said.
    public func sentence(_ language: Language, at now: Date) -> String? {
        guard !isStale(at: now) else { return nil }
        func degrees(_ value: Double) -> String {
            let whole = Int(value.rounded())
            // "minus" in both languages.
            return whole < 0 ? "minus \(-whole)" : "\(whole)"
        }
        var parts = [condition.name(language)]
        let unit = language == .de ? "Grad" : (abs((temperature ?? 0).rounded()) == 1 ? "degree" : "degrees")
        if let temperature { parts.append("\(degrees(temperature)) \(unit)") }
        if let low, let high {
            parts.append(language == .de ? "heute zwischen \(degrees(low)) und \(degrees(high)) Grad" : "today between \(degrees(low)) and \(degrees(high))")
        }
        return parts.joined(separator: ", ") + "."
    }
}

extension WeatherReport {
    /// `weather.json`: the last answer, so a restart shows it at once (as stale when it is).
    public var stored: JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
        return [
            "condition": .number(Double(condition.code)), "temperature": number(temperature), "feels_like": number(feelsLike),
            "low": number(low), "high": number(high), "precipitation_probability": precipitationProbability.map { .number(Double($0)) } ?? .null,
            "wind": number(wind), "units": .string(units.rawValue), "updated_at": .number(updatedAt.timeIntervalSince1970),
            "source": .string(source), "days": .array(days.map { $0.json() }),
            "hours": .array(hours.map { hour in
                ["start": .number(hour.start.timeIntervalSince1970), "condition": .number(Double(hour.condition.code)), "temperature": number(hour.temperature)]
            }),
        ]
    }

    /// Reads `stored` back, naming the member at fault.
    public init(stored value: JSONValue) throws(CommandError) {
        guard let members = value.objectValue else { throw .invalidField("weather", "the stored weather is not an object") }
        guard let code = members["condition"]?.intValue, let condition = WeatherCondition(code: code) else {
            throw .invalidField("condition", "the stored weather has no known condition")
        }
        guard let updated = members["updated_at"]?.numberValue else { throw .invalidField("updated_at", "the stored weather has no time") }
        self.init(
            condition: condition, temperature: OpenMeteo.finite(members["temperature"]?.numberValue),
            feelsLike: OpenMeteo.finite(members["feels_like"]?.numberValue), low: OpenMeteo.finite(members["low"]?.numberValue),
            high: OpenMeteo.finite(members["high"]?.numberValue), precipitationProbability: members["precipitation_probability"]?.intValue,
            wind: members["wind"]?.numberValue, units: members["units"]?.stringValue.flatMap(Units.init(rawValue:)) ?? .metric,
            updatedAt: Date(timeIntervalSince1970: updated), source: members["source"]?.stringValue ?? "open-meteo",
            days: Self.storedDays(members["days"]), hours: Self.storedHours(members["hours"]))
    }

    /// The stored days; one that cannot be read is left out (it is a forecast, not the user's).
    static func storedDays(_ value: JSONValue?) -> [ForecastDay] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap { item in
            guard let members = item.objectValue, let date = members["date"]?.stringValue.flatMap(CivilDate.init(iso:)),
                  let condition = members["condition"]?.intValue.flatMap(WeatherCondition.init(code:))
            else { return nil }
            return ForecastDay(
                date: date, condition: condition, low: OpenMeteo.finite(members["low"]?.numberValue), high: OpenMeteo.finite(members["high"]?.numberValue),
                precipitationProbability: members["precipitation_probability"]?.intValue)
        }
    }

    static func storedHours(_ value: JSONValue?) -> [ForecastHour] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap { item in
            guard let members = item.objectValue, let start = members["start"]?.numberValue,
                  let condition = members["condition"]?.intValue.flatMap(WeatherCondition.init(code:))
            else { return nil }
            return ForecastHour(start: Date(timeIntervalSince1970: start), condition: condition, temperature: OpenMeteo.finite(members["temperature"]?.numberValue))
        }
    }

    /// `B/weather` before any weather is known: the source, and why there is none yet.
    public static func none(source: String, error: String?) -> JSONValue {
        [
            "condition": nil, "kind": nil, "names": nil, "temperature": nil, "feels_like": nil, "low": nil, "high": nil,
            "precipitation_probability": nil, "wind_kmh": nil, "units": nil, "updated_at": nil, "stale": true, "source": .string(source),
            "error": error.map { .string($0) } ?? .null, "days": [],
        ]
    }
}

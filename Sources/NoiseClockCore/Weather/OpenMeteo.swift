import FoundationEssentials

/// The weather from Open-Meteo's forecast API (SPEC §17; no key): the request's address and its
/// answer read as a stranger's (every member checked, a missing one leaves its field empty, a
/// body that is not the answer is an error that says so).
public enum OpenMeteo {
    public static let defaultBase = "https://api.open-meteo.com/v1/forecast"

    /// The request for `latitude`/`longitude`: the weather now, today's and tomorrow's days in the
    /// zone of the place (`timezone=auto`).
    public static func url(base: String, latitude: Double, longitude: Double, units: WeatherReport.Units) -> String {
        var query = [
            "latitude=\(latitude)", "longitude=\(longitude)",
            "current=temperature_2m,apparent_temperature,weather_code,wind_speed_10m",
            "daily=weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max",
            "hourly=weather_code,temperature_2m", "timezone=auto", "forecast_days=3",
        ]
        if units == .imperial { query += ["temperature_unit=fahrenheit", "wind_speed_unit=mph"] }
        return base + (base.contains("?") ? "&" : "?") + query.joined(separator: "&")
    }

    public struct AnswerError: Error, Hashable, Sendable, CustomStringConvertible {
        public var reason: String
        public init(reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    /// The report in Open-Meteo's answer `body`, said at `now`; the forecast's local times (its
    /// `time` arrays, `2026-12-07` and `2026-12-07T06:00`) are read in `zone`.
    public static func report(_ body: [UInt8], units: WeatherReport.Units, at now: Date, zone: Zone = .utc) throws(AnswerError) -> WeatherReport {
        let answer: JSONValue
        do { answer = try JSONValue.parse(body) } catch { throw AnswerError(reason: "the weather service's answer is not JSON (\(error.description))") }
        guard let members = answer.objectValue else { throw AnswerError(reason: "the weather service's answer is not a JSON object") }
        if members["error"]?.boolValue == true {
            throw AnswerError(reason: "the weather service refused: \(members["reason"]?.stringValue.map(plain) ?? "no reason given")")
        }
        guard let current = members["current"]?.objectValue else { throw AnswerError(reason: "the weather service's answer has no current weather") }
        guard let code = current["weather_code"]?.intValue, let condition = WeatherCondition(code: code) else {
            throw AnswerError(reason: "the weather service's answer has no known weather code")
        }
        let daily = members["daily"]?.objectValue ?? [:]
        func today(_ key: String) -> Double? {
            guard case .array(let values)? = daily[key], let first = values.first else { return nil }
            return finite(first.numberValue)
        }
        return WeatherReport(
            condition: condition, temperature: finite(current["temperature_2m"]?.numberValue),
            feelsLike: finite(current["apparent_temperature"]?.numberValue), low: today("temperature_2m_min"), high: today("temperature_2m_max"),
            precipitationProbability: today("precipitation_probability_max").map { Int(min(100, max(0, $0)).rounded()) },
            wind: finite(current["wind_speed_10m"]?.numberValue), units: units, updatedAt: now, source: "open-meteo",
            days: days(daily, zone: zone), hours: hours(members["hourly"]?.objectValue ?? [:], zone: zone))
    }

    /// The members of `series` at `index` of each array (a missing or short one gives nil).
    private static func column(_ series: [String: JSONValue], _ key: String, _ index: Int) -> JSONValue? {
        guard case .array(let values)? = series[key], index < values.count else { return nil }
        return values[index]
    }

    /// The daily forecast: a day a line, at most 16; a day without a known code is left out.
    static func days(_ daily: [String: JSONValue], zone: Zone) -> [ForecastDay] {
        guard case .array(let times)? = daily["time"] else { return [] }
        return times.prefix(16).enumerated().compactMap { index, time in
            guard let date = time.stringValue.flatMap(CivilDate.init(iso:)),
                  let condition = column(daily, "weather_code", index)?.intValue.flatMap(WeatherCondition.init(code:))
            else { return nil }
            return ForecastDay(
                date: date, condition: condition, low: finite(column(daily, "temperature_2m_min", index)?.numberValue),
                high: finite(column(daily, "temperature_2m_max", index)?.numberValue),
                precipitationProbability: finite(column(daily, "precipitation_probability_max", index)?.numberValue).map { Int(min(100, max(0, $0)).rounded()) })
        }
    }

    /// The hourly forecast (local `YYYY-MM-DDTHH:MM` read in `zone`), at most 16 days of hours.
    static func hours(_ hourly: [String: JSONValue], zone: Zone) -> [ForecastHour] {
        guard case .array(let times)? = hourly["time"] else { return [] }
        return times.prefix(16 * 24).enumerated().compactMap { index, time in
            guard let start = time.stringValue.flatMap({ localInstant($0, zone: zone) }),
                  let condition = column(hourly, "weather_code", index)?.intValue.flatMap(WeatherCondition.init(code:))
            else { return nil }
            return ForecastHour(start: start, condition: condition, temperature: finite(column(hourly, "temperature_2m", index)?.numberValue))
        }
    }

    /// `2026-12-07T06:00` in `zone` (by the alarms' daylight-saving rule).
    static func localInstant(_ text: String, zone: Zone) -> Date? {
        let parts = text.split(separator: "T")
        guard parts.count == 2, let date = CivilDate(iso: String(parts[0])), let time = AlarmTime(String(parts[1])) else { return nil }
        return AlarmSchedule.occurrence(of: time, on: date, in: zone)
    }

    /// A number a thermometer could show: finite and within -100…150.
    static func finite(_ value: Double?) -> Double? {
        guard let value, value.isFinite, (-100...150).contains(value) else { return nil }
        return value
    }

    /// A stranger's text, plain and short.
    static func plain(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.prefix(200).map(Character.init))
    }
}

/// The weather a Home Assistant automation publishes for `weather.source: mqtt` (SPEC §17):
/// `{"condition","temperature","feels_like","low","high","precipitation_probability","wind_kmh"}`
/// (and `forecast`, the hours), the condition a WMO
/// code or a Home Assistant condition (`rainy`, `snowy-rainy`…).
public enum PublishedWeather {
    public static func report(_ body: [UInt8], units: WeatherReport.Units, at now: Date, zone: Zone = .utc) throws(OpenMeteo.AnswerError) -> WeatherReport {
        let value: JSONValue
        do { value = try JSONValue.parse(body) } catch { throw .init(reason: "the published weather is not JSON (\(error.description))") }
        guard let members = value.objectValue else { throw .init(reason: "the published weather is not a JSON object") }
        let condition: WeatherCondition?
        switch members["condition"] {
        case .number(let code)?: condition = WeatherCondition(code: Int(code))
        case .string(let name)?: condition = Int(name).flatMap { WeatherCondition(code: $0) } ?? WeatherCondition(homeAssistant: name)
        default: condition = nil
        }
        guard let condition else {
            throw .init(reason: "the published weather's condition is missing or unknown (a WMO code, or sunny, rainy, snowy… as Home Assistant writes it)")
        }
        func number(_ key: String) -> Double? {
            switch members[key] {
            case .number(let value)?: return OpenMeteo.finite(value)
            case .string(let text)?: return OpenMeteo.finite(Double(text))
            default: return nil
            }
        }
        return WeatherReport(
            condition: condition, temperature: number("temperature"), feelsLike: number("feels_like"), low: number("low"), high: number("high"),
            precipitationProbability: number("precipitation_probability").map { Int(min(100, max(0, $0)).rounded()) },
            // `wind_kmh` is km/h whatever the units; the report keeps mph with imperial.
            wind: number("wind_kmh").map { units == .metric ? $0 : $0 / 1.609_344 }, units: units, updatedAt: now, source: "mqtt",
            hours: hours(members["forecast"], zone: zone))
    }

    /// `forecast`: Home Assistant's hourly forecast as `weather.get_forecasts` gives it
    /// (`[{"datetime":"2026-12-07T06:00:00+01:00","condition":"snowy","temperature":-1}, …]`), at
    /// most 16 days of hours; an item that cannot be read is left out.
    static func hours(_ value: JSONValue?, zone: Zone) -> [ForecastHour] {
        guard case .array(let items)? = value else { return [] }
        return items.prefix(16 * 24).compactMap { item in
            guard let members = item.objectValue, let text = members["datetime"]?.stringValue, let start = ISOTime.parse(text, in: zone) else { return nil }
            let condition: WeatherCondition?
            switch members["condition"] {
            case .number(let code)?: condition = WeatherCondition(code: Int(code))
            case .string(let name)?: condition = WeatherCondition(homeAssistant: name)
            default: condition = nil
            }
            guard let condition else { return nil }
            return ForecastHour(start: start, condition: condition, temperature: OpenMeteo.finite(members["temperature"]?.numberValue))
        }
    }
}

import FoundationEssentials
import NoiseClockCore
import Testing

/// An answer of Open-Meteo's forecast API in its documented shape (current, daily with units).
private let answer = """
    {"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.08,"utc_offset_seconds":3600,"timezone":"Europe/Berlin",
     "timezone_abbreviation":"GMT+1","elevation":38.0,
     "current_units":{"time":"iso8601","interval":"seconds","temperature_2m":"°C","apparent_temperature":"°C","weather_code":"wmo code","wind_speed_10m":"km/h"},
     "current":{"time":"2026-12-06T07:00","interval":900,"temperature_2m":-1.4,"apparent_temperature":-5.2,"weather_code":71,"wind_speed_10m":14.8},
     "daily_units":{"time":"iso8601","weather_code":"wmo code","temperature_2m_max":"°C","temperature_2m_min":"°C","precipitation_probability_max":"%"},
     "daily":{"time":["2026-12-06","2026-12-07"],"weather_code":[73,3],"temperature_2m_max":[1.6,3.2],"temperature_2m_min":[-3.8,-1.0],
              "precipitation_probability_max":[85,10]}}
    """

private let now = Date(timeIntervalSince1970: 1_796_540_400)

@Suite("Weather: WMO codes, Open-Meteo's answer, what an automation publishes, B/weather (SPEC §17)")
struct WeatherTests {
    @Test("every WMO code Open-Meteo uses has a kind and a name in both languages")
    func codes() throws {
        #expect(WeatherCondition.codes.count == 28)
        for code in WeatherCondition.codes {
            let condition = try #require(WeatherCondition(code: code))
            #expect(!condition.name(.en).isEmpty && !condition.name(.de).isEmpty && condition.name(.en) != condition.name(.de) || code == 63)
        }
        #expect(WeatherCondition(code: 71)?.kind == .snow && WeatherCondition(code: 66)?.kind == .ice && WeatherCondition(code: 81)?.kind == .showers)
        #expect(WeatherCondition(code: 65)?.name(.de) == "Starker Regen")
        #expect(WeatherCondition(code: 4) == nil && WeatherCondition(code: -1) == nil && WeatherCondition(code: 100) == nil)
        #expect(WeatherCondition(homeAssistant: "rainy")?.code == 61 && WeatherCondition(homeAssistant: "snowy-rainy")?.kind == .ice)
        #expect(WeatherCondition(homeAssistant: "clear-night")?.kind == .clear && WeatherCondition(homeAssistant: "volcano") == nil)
    }

    @Test("the request asks for the weather now and two days, in Fahrenheit and mph when imperial")
    func request() {
        let metric = OpenMeteo.url(base: OpenMeteo.defaultBase, latitude: 52.52, longitude: 13.41, units: .metric)
        #expect(metric.hasPrefix("https://api.open-meteo.com/v1/forecast?latitude=52.52&longitude=13.41&current="))
        #expect(metric.contains("daily=weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max"))
        #expect(metric.contains("timezone=auto") && !metric.contains("fahrenheit"))
        let imperial = OpenMeteo.url(base: "http://127.0.0.1:8080/v1/forecast", latitude: 40.7, longitude: -74, units: .imperial)
        #expect(imperial.hasPrefix("http://127.0.0.1:8080/v1/forecast?latitude=40.7&longitude=-74.0"))
        #expect(imperial.contains("temperature_unit=fahrenheit") && imperial.contains("wind_speed_unit=mph"))
    }

    @Test("Open-Meteo's answer: the weather now and today's low, high and chance of precipitation")
    func parse() throws {
        let report = try OpenMeteo.report(Array(answer.utf8), units: .metric, at: now)
        #expect(report.condition.code == 71 && report.temperature == -1.4 && report.feelsLike == -5.2)
        #expect(report.low == -3.8 && report.high == 1.6 && report.precipitationProbability == 85 && report.wind == 14.8)
        #expect(report.source == "open-meteo" && report.updatedAt == now)
        let json = report.json(at: now) { _ in "2026-12-06T07:00:00+01:00" }
        #expect(json == [
            "condition": 71, "kind": "snow", "names": ["en": "Slight snowfall", "de": "Leichter Schneefall"], "temperature": -1.4,
            "feels_like": -5.2, "low": -3.8, "high": 1.6, "precipitation_probability": 85, "wind_kmh": 14.8, "units": "metric",
            "updated_at": "2026-12-06T07:00:00+01:00", "stale": false, "source": "open-meteo", "error": nil,
            "days": [
                ["date": "2026-12-06", "condition": 73, "kind": "snow", "low": -3.8, "high": 1.6, "precipitation_probability": 85],
                ["date": "2026-12-07", "condition": 3, "kind": "cloudy", "low": -1.0, "high": 3.2, "precipitation_probability": 10],
            ],
        ])
        #expect(report.json(at: now.addingTimeInterval(3 * 3600 + 1)) { _ in "" } == json.replacingStale(true))
        #expect(try WeatherReport(stored: report.stored) == report, "weather.json round-trips")
        #expect(throws: CommandError.self) { try WeatherReport(stored: ["condition": 42, "updated_at": 0]) }
    }

    @Test("an answer that is not the weather is an error that says what it is", arguments: [
        ("<html>Too many requests</html>", "not JSON"), ("[1,2]", "not a JSON object"),
        (#"{"error":true,"reason":"Latitude must be in range of -90 to 90°. Given: 91.0."}"#, "refused: Latitude must be"),
        (#"{"daily":{}}"#, "no current weather"), (#"{"current":{"weather_code":42}}"#, "no known weather code"),
    ])
    func refused(body: String, says: String) {
        #expect { _ = try OpenMeteo.report(Array(body.utf8), units: .metric, at: now) } throws: {
            ($0 as? OpenMeteo.AnswerError)?.reason.contains(says) == true
        }
    }

    @Test("missing or absurd numbers leave their field empty, never a made-up value")
    func partial() throws {
        let report = try OpenMeteo.report(Array(#"{"current":{"weather_code":0,"temperature_2m":9999}}"#.utf8), units: .metric, at: now)
        #expect(report.temperature == nil && report.low == nil && report.high == nil && report.precipitationProbability == nil)
        #expect(report.sentence(.en, at: now) == "Clear sky.")
    }

    @Test("what an automation publishes: a Home Assistant condition or a WMO code, numbers or their text")
    func published() throws {
        let report = try PublishedWeather.report(
            Array(#"{"condition":"rainy","temperature":"11.5","low":8,"high":14,"precipitation_probability":60}"#.utf8), units: .metric, at: now)
        #expect(report.condition.code == 61 && report.temperature == 11.5 && report.low == 8 && report.high == 14 && report.source == "mqtt")
        #expect(try PublishedWeather.report(Array(#"{"condition":95}"#.utf8), units: .imperial, at: now).condition.kind == .thunder)
        // `wind_kmh` and `feels_like` reach B/weather as published: km/h whatever the node's units.
        let windy = Array(#"{"condition":3,"temperature":40,"feels_like":33.5,"wind_kmh":20}"#.utf8)
        for units in [WeatherReport.Units.metric, .imperial] {
            let shown = try PublishedWeather.report(windy, units: units, at: now).json(at: now) { _ in "" }
            #expect(shown["wind_kmh"] == 20 && shown["feels_like"] == 33.5, "\(units): \(shown.serialized)")
        }
        #expect { _ = try PublishedWeather.report(Array(#"{"condition":"volcano"}"#.utf8), units: .metric, at: now) } throws: {
            ($0 as? OpenMeteo.AnswerError)?.reason.contains("condition") == true
        }
    }

    @Test("the forecast: Open-Meteo's days and hours (local times read in the node's zone), Home Assistant's hourly forecast; both stored")
    func forecast() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        #expect(OpenMeteo.url(base: OpenMeteo.defaultBase, latitude: 1, longitude: 2, units: .metric).contains("hourly=weather_code,temperature_2m"))
        let hourly = answer.replacingOccurrences(
            of: #""precipitation_probability_max":[85,10]}}"#,
            with: #""precipitation_probability_max":[85,10]},"hourly":{"time":["2026-12-07T05:00","2026-12-07T06:00","bad"],"weather_code":[71,999,3],"temperature_2m":[-2.5,-2]}}"#)
        let report = try OpenMeteo.report(Array(hourly.utf8), units: .metric, at: now, zone: berlin)
        #expect(report.days.map(\.date.iso) == ["2026-12-06", "2026-12-07"] && report.days.map(\.condition.code) == [73, 3])
        #expect(report.hours.map(\.start) == [Date(timeIntervalSince1970: 1_796_616_000)], "05:00 in Berlin is 04:00 UTC; code 999 and a bad time are left out")
        #expect(report.hours.first?.temperature == -2.5 && report.hours.first?.condition.kind == .snow)
        #expect(try WeatherReport(stored: report.stored) == report, "days and hours round-trip through weather.json")
        let published = #"{"condition":"cloudy","temperature":1,"forecast":[{"datetime":"2026-12-07T06:00:00+01:00","condition":"snowy","temperature":-1},{"datetime":"later","condition":"rainy"},{"datetime":"2026-12-07T07:00:00+01:00","condition":"volcano"}]}"#
        let mqtt = try PublishedWeather.report(Array(published.utf8), units: .metric, at: now, zone: berlin)
        #expect(mqtt.hours.count == 1 && mqtt.hours.first?.start == Date(timeIntervalSince1970: 1_796_619_600) && mqtt.hours.first?.condition.kind == .snow)
    }

    @Test("the briefing's sentence in both languages, below zero too; stale weather is not said")
    func sentence() throws {
        let report = try OpenMeteo.report(Array(answer.utf8), units: .metric, at: now)
        #expect(report.sentence(.en, at: now) == "Slight snowfall, minus 1 degree, today between minus 4 and 2.")
        #expect(report.sentence(.de, at: now) == "Leichter Schneefall, minus 1 Grad, heute zwischen minus 4 und 2 Grad.")
        #expect(report.sentence(.en, at: now.addingTimeInterval(4 * 3600)) == nil)
    }
}

extension JSONValue {
    fileprivate func replacingStale(_ stale: Bool) -> JSONValue {
        guard var members = objectValue else { return self }
        members["stale"] = .bool(stale)
        members["updated_at"] = ""
        return .object(members)
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

// SPEC §17's weather in real node processes: Open-Meteo's answer served by a local HTTP server in
// the API's documented shape, hostile answers from FaultServer, and what an automation publishes.

/// Open-Meteo's answer for Berlin on a snowy morning (the documented shape).
private let forecast = """
    {"latitude":52.52,"longitude":13.419998,"utc_offset_seconds":3600,"timezone":"Europe/Berlin",
     "current_units":{"time":"iso8601","interval":"seconds","temperature_2m":"°C","apparent_temperature":"°C","weather_code":"wmo code","wind_speed_10m":"km/h"},
     "current":{"time":"2026-12-06T07:00","interval":900,"temperature_2m":-1.4,"apparent_temperature":-5.2,"weather_code":71,"wind_speed_10m":14.8},
     "daily_units":{"time":"iso8601","weather_code":"wmo code","temperature_2m_max":"°C","temperature_2m_min":"°C","precipitation_probability_max":"%"},
     "daily":{"time":["2026-12-06","2026-12-07"],"weather_code":[73,3],"temperature_2m_max":[1.6,3.2],"temperature_2m_min":[-3.8,-1.0],
              "precipitation_probability_max":[85,10]}}
    """

/// A node at Berlin that asks `url` for the weather.
private func openMeteo(_ url: String) -> [String: String] {
    [
        "NOISECLOCK_WEATHER_SOURCE": "open-meteo", "NOISECLOCK_WEATHER_URL": url, "NOISECLOCK_DISPLAY_LATITUDE": "52.52",
        "NOISECLOCK_DISPLAY_LONGITUDE": "13.41", "NOISECLOCK_AUDIO_DEVICE": "null",
    ]
}

extension Topics {
    fileprivate var weather: String { state("weather") }
}

@Suite("Weather in a real node: Open-Meteo from a local server, hostile answers, an automation's topic (SPEC §17)")
struct WeatherSourceTests {
    @Test("Open-Meteo's answer becomes B/weather, is stored, and is shown at once after a restart with the service gone")
    func openMeteoAnswer() async throws {
        let directory = try makeTemporaryDirectory("weather-open-meteo")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: "\(directory)/www/v1", withIntermediateDirectories: true)
        try forecast.write(toFile: "\(directory)/www/v1/forecast", atomically: true, encoding: .utf8)
        let server = try FileServer(directory: "\(directory)/www")
        let state = "\(directory)/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try await withNode(stateDirectory: state, environment: openMeteo(server.url("v1/forecast"))) { node, process, client in
            let weather = try #require(await client.latest(node.topics.weather) { $0["condition"] == 71 }, "log:\n\(process.log)")
            #expect(weather["names"]?["de"] == "Leichter Schneefall" && weather["temperature"] == -1.4 && weather["low"] == -3.8)
            #expect(weather["high"] == 1.6 && weather["precipitation_probability"] == 85 && weather["stale"] == false && weather["error"] == .null)
            #expect(server.requests == ["/v1/forecast"], "one request: \(server.requests)")
            process.signal(SIGTERM)
            _ = await process.waitForExit(timeout: eventHangGuard)
        }
        #expect(FileManager.default.fileExists(atPath: "\(state)/weather.json"))
        try FileManager.default.removeItem(atPath: "\(directory)/www/v1/forecast")
        try await withNode(stateDirectory: state, environment: openMeteo(server.url("v1/forecast"))) { node, _, client in
            let weather = try #require(await client.latest(node.topics.weather) { $0["condition"] != .null })
            #expect(weather["condition"] == 71 && weather["temperature"] == -1.4, "the stored report, at once")
            #expect(server.requests == ["/v1/forecast"], "a fresh stored report waits for its refresh: \(server.requests)")
        }
    }

    @Test("a service that answers a web page, garbage, an error or nothing: B/weather says why, and no report is made up", arguments: [
        (FaultServer.Fault.html, "not JSON"), (.garbage, "could not be reached"),
        (.body(#"{"error":true,"reason":"Parameter 'latitude' is out of range"}"#, contentType: "application/json"), "refused: Parameter"),
        (.body(String(repeating: "x", count: 3 << 20), contentType: "application/json"), "could not be reached"),
    ])
    func hostile(fault: FaultServer.Fault, says: String) async throws {
        let server = try FaultServer(fault)
        try await withNode(environment: openMeteo(server.url)) { node, process, client in
            let weather = try #require(
                await client.latest(node.topics.weather) { $0["error"]?.stringValue?.contains(says) == true }, "log:\n\(process.log)")
            #expect(weather["condition"] == .null && weather["stale"] == true)
        }
    }

    @Test("what an automation publishes is the weather; something else is refused and the last report kept; the briefing says it")
    func published() async throws {
        let directory = try makeTemporaryDirectory("weather-mqtt")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = try await FakeTime(at: at("2026-12-07T07:00:00+00:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_WEATHER_SOURCE": "mqtt", "NOISECLOCK_WEATHER_TOPIC": "home/weather/nightstand", "NOISECLOCK_CLOCK_TIMEZONE": "UTC",
            "NOISECLOCK_AUDIO_DEVICE": "file:'\(directory)/out.raw',raw", "NOISECLOCK_SPEECH_QUIET_HOURS_START": "",
            "NOISECLOCK_SPEECH_QUIET_HOURS_END": "",
        ]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            client.publish("home/weather/nightstand", #"{"condition":"rainy","temperature":11.2,"low":8,"high":14,"precipitation_probability":"60"}"#)
            let weather = try #require(await client.latest(node.topics.weather) { $0["condition"] == 61 }, "log:\n\(process.log)")
            #expect(weather["source"] == "mqtt" && weather["temperature"] == 11.2 && weather["precipitation_probability"] == 60)
            client.publish("home/weather/nightstand", #"{"condition":"volcano"}"#)
            let refused = try #require(await client.latest(node.topics.weather) { $0["error"] != .null })
            #expect(refused["condition"] == 61, "the last report is kept")
            // The morning briefing, in German, says the weather.
            _ = try await client.request(node.topics, "settings", #"{"language":"de"}"#)
            let added = try await client.request(node.topics, "alarm/add", #"{"time":"07:30","briefing":true,"fade_in_s":0}"#)
            #expect(added["status"] == "ok")
            try clock.set(to: at("2026-12-07T07:29:58+00:00"))
            #expect(await client.waitFor(node.topics.event, timeout: .seconds(60)) { (try? JSONValue.parse($0.payload)["event"]) == "alarm_ringing" } != nil)
            _ = try await client.request(node.topics, "dismiss")
            let briefing = await client.waitFor(node.topics.event, timeout: .seconds(60)) { (try? JSONValue.parse($0.payload)["event"]) == "briefing" }
            let text = try #require(briefing.flatMap { try? JSONValue.parse($0.payload)["text"]?.stringValue })
            #expect(text == "Guten Morgen. Es ist sieben Uhr dreißig, Montag, der 7. Dezember. Leichter Regen, 11 Grad, heute zwischen 8 und 14 Grad.", "\(text)")
        }
    }
}

/// An instant written as ISO 8601 with its offset.
private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// SPEC §17's Home Assistant part, a part of the one end-to-end run: the weather's templates (and
// the Next alarm's new attributes) rendered by Home Assistant's own engine; docs/home-assistant.md's
// automation that publishes the weather with weather.get_forecasts, installed exactly as written,
// run against a template weather entity (`weather.home`) at Home Assistant's start and on demand;
// the node (`weather.source: mqtt`) takes it, and its weather sensors carry it back; stale
// weather makes them unavailable, fresh weather brings them back.

/// The topic the documented automation publishes to, which the node reads (`weather.topic`).
let weatherTopic = "home/weather/nightstand"
/// The documented automation's entity id (from its alias).
private let weatherAutomation = "automation.nightstand_the_weather_for_noiseclock"

/// A template weather entity `weather.home` whose condition and temperature two helpers set (at
/// first snowy and -2.5, their first option and minimum; after a restart what they were), feeling
/// 4 degrees colder, a 10 mph wind (the automation gives the node km/h whatever the entity's unit); its
/// daily forecast's today is 3.5 degrees above the temperature and 2.5 below, 70 % rain, then a
/// second day (as real weather integrations give several); its hourly forecast is 36 hours of the
/// condition and temperature.
private let templateWeather = """
    input_number:
      e2e_temperature: {min: -2.5, max: 50, step: 0.1}
    input_select:
      e2e_condition: {options: [snowy, rainy, sunny]}
    weather:
      - platform: template
        name: Home
        condition_template: "{{ states('input_select.e2e_condition') }}"
        temperature_template: "{{ states('input_number.e2e_temperature') | float }}"
        humidity_template: "{{ 80 }}"
        apparent_temperature_template: "{{ states('input_number.e2e_temperature') | float - 4 }}"
        wind_speed_template: "{{ 10 }}"
        wind_speed_unit: mph
        forecast_daily_template: >-
          {% set t = states('input_number.e2e_temperature') | float %}
          {{ [{'datetime': now().date().isoformat(), 'condition': states('input_select.e2e_condition'),
               'temperature': t + 3.5, 'templow': t - 2.5, 'precipitation_probability': 70},
              {'datetime': (now() + timedelta(days=1)).date().isoformat(), 'condition': 'sunny',
               'temperature': t + 5, 'templow': t - 1, 'precipitation_probability': 10}] }}
        forecast_hourly_template: >-
          {% set ns = namespace(hours=[]) %}
          {% for h in range(36) %}
          {% set ns.hours = ns.hours + [{'datetime': (now() + timedelta(hours=h)).replace(minute=0, second=0, microsecond=0).isoformat(),
               'condition': states('input_select.e2e_condition'), 'temperature': states('input_number.e2e_temperature') | float}] %}
          {% endfor %}
          {{ ns.hours }}

    """

/// The first node's calendar feed (a file), and its sensor's component key.
let calendarFeed = "work"
let calendarKey = "calendar_work"

/// `value` as a Jinja string literal in single quotes.
private func quoted(_ value: String) -> String {
    "'" + value.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
}

/// A template of the node's discovery rendered by Home Assistant with `value_json` set.
private func render(_ ha: HomeAssistantCore, _ template: String, json: JSONValue) async throws -> String {
    try await ha.render("{% set value_json = \(quoted(json.serialized)) | from_json %}" + template)
}

extension HomeAssistantE2ETests {
    /// The block after the weather automation's marker in docs/home-assistant.md, exactly as a reader copies it.
    static func documentedWeatherAutomation() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/home-assistant.md"), encoding: .utf8)
        let marker = try #require(text.range(of: "<!-- automation: the weather"), "no weather automation marker in docs/home-assistant.md")
        let fence = try #require(text.range(of: "```yaml\n", range: marker.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "\n```", range: fence.upperBound..<text.endIndex))
        return String(text[fence.upperBound..<end.lowerBound]) + "\n"
    }

    /// The documented automation as a package of its own (its `automation:` key as written), and the
    /// template weather it reads (before Home Assistant starts).
    static func installWeather(_ ha: HomeAssistantCore) throws {
        let automation = try documentedWeatherAutomation()
        #expect(automation.contains("weather.home") && automation.contains("topic: \(weatherTopic)"), "\(automation)")
        try automation.write(toFile: "\(ha.configDirectory)/packages/noiseclock_weather.yaml", atomically: true, encoding: .utf8)
        try templateWeather.write(toFile: "\(ha.configDirectory)/packages/e2e_weather.yaml", atomically: true, encoding: .utf8)
    }

    /// The weather sensors' templates and the Next alarm's attributes in Home Assistant's engine,
    /// with `B/weather` and `B/alarm/next` as the node writes them.
    func weatherTemplates(_ ha: HomeAssistantCore, discovery: JSONValue) async throws {
        let components = try #require(discovery["cmps"], "no cmps in the discovery payload")
        func template(_ key: String, _ member: String) throws -> String {
            try #require(components[key]?[member]?.stringValue, "\(key).\(member)")
        }
        func availability(_ key: String) throws -> String {
            try #require(components[key]?["availability"]?.arrayItems?.last?["value_template"]?.stringValue, "\(key) availability")
        }
        let now = Date()
        let iso = { (date: Date) in ISO8601DateFormatter().string(from: date) }
        let report = WeatherReport(
            condition: try #require(WeatherCondition(code: 61)), temperature: 4.2, feelsLike: 1.6, low: -1, high: 6, precipitationProbability: 80,
            wind: 12.3, updatedAt: now, source: "mqtt")
        let fresh = report.json(at: now, iso: iso), stale = report.json(at: now.addingTimeInterval(3 * 3600 + 1), iso: iso)
        let none = WeatherReport.none(source: "mqtt", error: "no weather yet")
        for key in HomeAssistantDiscovery.weatherKeys where key != "weather_updated" {
            #expect(try await render(ha, try availability(key), json: fresh) == "online", "\(key)")
            #expect(try await render(ha, try availability(key), json: stale) == "offline", "\(key): stale weather is not now")
            #expect(try await render(ha, try availability(key), json: none) == "offline", "\(key): no weather yet")
        }
        #expect(try await render(ha, try template("weather", "value_template"), json: fresh) == "Slight rain")
        #expect(try await render(ha, try template("weather_temperature", "value_template"), json: fresh) == "4.2")
        #expect(try await render(ha, try template("weather_low", "value_template"), json: fresh) == "-1")
        #expect(try await render(ha, try template("weather_precipitation", "value_template"), json: fresh) == "80")
        #expect(try await render(ha, try template("weather_feels_like", "value_template"), json: fresh) == "1.6")
        #expect(try await render(ha, try template("weather_wind", "value_template"), json: fresh) == "12.3")
        for key in ["weather", "weather_temperature", "weather_feels_like", "weather_high", "weather_precipitation", "weather_wind", "weather_updated"] {
            #expect(try await render(ha, try template(key, "value_template"), json: none) == "None", "\(key) without weather")
        }
        var members = fresh.objectValue ?? [:]
        members["days"] = [["date": "2026-12-07", "condition": 73, "kind": "snow", "low": -5, "high": 1]]
        let withDays = JSONValue.object(members)
        let attributes = try await render(ha, try template("weather", "json_attributes_template"), json: withDays)
        let shown = try JSONValue.parse(Array(attributes.utf8))
        #expect(shown["code"] == 61 && shown["kind"] == "rain" && shown["days"]?.arrayItems?.count == 1, "\(attributes)")
        let noDays = try JSONValue.parse(Array(try await render(ha, try template("weather", "json_attributes_template"), json: none).utf8))
        #expect(noDays["days"] == [] && noDays["code"] == .null, "\(noDays.serialized)")
        let updated = try JSONValue.parse(Array(try await render(ha, try template("weather_updated", "json_attributes_template"), json: none).utf8))
        #expect(updated["stale"] == true && updated["error"] == "no weather yet" && updated["source"] == "mqtt", "\(updated.serialized)")

        // The Next alarm: why it moves, and 0 / null from a B/alarm/next without the fields.
        let nextAttributes = try template("next_alarm", "json_attributes_template")
        let moved: JSONValue = [
            "id": "a1", "label": "Work", "fires_at": "2026-12-07T06:20:00+01:00", "earlier_by_min": 20, "reason": "snow",
            "event": ["feed": "work", "title": "Dentist", "start": "2026-12-07T07:30:00+01:00"],
        ]
        let why = try JSONValue.parse(Array(try await render(ha, nextAttributes, json: moved).utf8))
        #expect(why["earlier_by_min"] == 20 && why["reason"] == "snow" && why["event"]?["title"] == "Dentist", "\(why.serialized)")
        let plain = try JSONValue.parse(Array(try await render(ha, nextAttributes, json: ["id": "a1", "label": "Work", "fires_at": nil]).utf8))
        #expect(plain["earlier_by_min"] == 0 && plain["reason"] == .null && plain["event"] == .null && plain["alarm_id"] == "a1", "\(plain.serialized)")
    }

    /// The node's `calendar.feeds`: one file feed, `work`, with a Dentist at 07:30 (Berlin) the
    /// day after the node's today.
    static func calendarConfiguration(directory: String, nodeNow: Date) throws -> String {
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "Europe/Berlin")
        day.dateFormat = "yyyyMMdd"
        let tomorrow = day.string(from: nodeNow.addingTimeInterval(86_400))
        let feed = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//NoiseClock E2E//EN", "BEGIN:VEVENT", "UID:dentist@e2e", "DTSTAMP:20261201T000000Z",
            "DTSTART;TZID=Europe/Berlin:\(tomorrow)T073000", "DTEND;TZID=Europe/Berlin:\(tomorrow)T080000", "SUMMARY:Dentist", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        try feed.write(toFile: "\(directory)/work.ics", atomically: true, encoding: .utf8)
        return "calendar:\n  feeds:\n    - {id: \(calendarFeed), file: \"\(directory)/work.ics\"}\n"
    }

    /// The node's B/calendar, read by the feed's Calendar sensor: tomorrow's Dentist.
    func calendar(_ ha: HomeAssistantCore, client: TestClient, topics: Topics) async throws {
        let bCalendar = topics.state(StateTopic.calendar)
        func dentist(_ value: JSONValue) -> JSONValue? {
            value["feeds"]?.arrayItems?.first { $0["id"] == .string(calendarFeed) }?["days"]?.arrayItems?.compactMap { $0["first"] }
                .first { $0["title"] == "Dentist" }
        }
        let published = await client.latest(bCalendar) { dentist($0) != nil }
        let start = try #require(published.flatMap(dentist)?["start"]?.stringValue, "B/calendar \(published?.serialized ?? "none")")
        let expected = try #require(homeAssistantUTC(start))
        let sensor = await ha.waitState(entity(calendarKey), is: expected)
        #expect(stateText(sensor) == expected, "\(sensor?.serialized ?? "none")")
        #expect(sensor?["attributes"]?["title"] == "Dentist" && sensor?["attributes"]?["ok"] == true, "\(sensor?.serialized ?? "none")")
        #expect(sensor?["attributes"]?["friendly_name"] == .string("\(deviceName) Calendar \(calendarFeed)"))
        print("[ha-e2e] calendar.feeds work (a file, through the node's helper) → B/calendar → \(entity(calendarKey)) \(stateText(sensor)) Dentist")
    }

    /// An alarm ten hours ahead with `earlier_if` snow, the hourly forecast snowy: B/alarm/next and
    /// the Next alarm sensor say 20 minutes earlier for snow; then the alarm goes.
    func earlierForSnow(_ ha: HomeAssistantCore, client: TestClient, topics: Topics, clock: FakeTime) async throws {
        let berlin = DateFormatter()
        berlin.locale = Locale(identifier: "en_US_POSIX")
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")
        berlin.dateFormat = "HH:mm"
        let time = berlin.string(from: clock.now.addingTimeInterval(10 * 3600))
        let added = try await client.request(topics, "alarm/add", #"{"time":"\#(time)","label":"Snow test","earlier_if":{"snow":20}}"#)
        let id = try #require(added["data"]?["id"]?.stringValue, "alarm/add \(added.serialized)")
        let next = await client.latest(topics.alarmNext, timeout: .seconds(30)) { $0["id"]?.stringValue == id && $0["earlier_by_min"] == 20 }
        #expect(next?["reason"] == "snow" && next?["event"] == .null, "B/alarm/next \(next?.serialized ?? "none")")
        let firesAt = try #require(next?["fires_at"]?.stringValue)
        let expected = try #require(homeAssistantUTC(firesAt))
        let sensor = await ha.waitState(entity("next_alarm"), is: expected)
        #expect(sensor?["attributes"]?["earlier_by_min"] == 20 && sensor?["attributes"]?["reason"] == "snow", "\(sensor?.serialized ?? "none")")
        #expect(sensor?["attributes"]?["alarm_id"]?.stringValue == id && sensor?["attributes"]?["event"] == .null)
        // Deleted once Home Assistant has read its time entity (deleted before, that entity logs an error).
        #expect(stateText(await ha.waitState("text.\(prefix)_snow_test_time", is: time)) == time)
        #expect(try await client.request(topics, "alarm/delete", id)["status"] == "ok")
        #expect(stateText(await ha.waitState(entity("next_alarm"), is: "unknown")) == "unknown")
        print("[ha-e2e] earlier_if snow, alarm at \(time): B/alarm/next fires_at \(firesAt) (earlier_by_min \(next?["earlier_by_min"]?.intValue ?? -1), reason \(next?["reason"]?.stringValue ?? "null")) → Next alarm \(stateText(sensor)) with its attributes")
    }

    /// A feed's Calendar sensor's templates in Home Assistant's engine, with `B/calendar` as the
    /// node's Agenda writes it: the first day with a timed event, the day off, a failed refresh, a
    /// feed not in the message.
    func calendarTemplates(_ ha: HomeAssistantCore) async throws {
        let discovery = HomeAssistantDiscovery(
            topics: Topics(base: "noiseclock", nodeID: "e2e"), prefix: "homeassistant", deviceName: deviceName, version: "0", noiseSounds: [],
            calendarFeeds: ["work"], catalogs: Catalogs([try shippedCatalog(.en)]))
        let sensor = try #require(discovery.payload(alarms: [])["cmps"]?["calendar_work"], "no calendar_work component")
        let state = try #require(sensor["value_template"]?.stringValue), attributes = try #require(sensor["json_attributes_template"]?.stringValue)
        let zone = try #require(Zone(identifier: "Europe/Berlin")), today = try #require(CivilDate(iso: "2026-12-07"))
        let iso = { (date: Date) in ISOTime.string(date, in: zone) }
        let dentist = try #require(ISOTime.parse("2026-12-08T07:30:00+01:00", in: zone))
        var feed = FeedAgenda(
            id: "work",
            events: [
                CalendarEvent(title: "Dentist", when: .timed(start: dentist, end: dentist.addingTimeInterval(1800))),
                CalendarEvent(title: "Urlaub", when: .allDay(first: today, end: try #require(CivilDate(iso: "2026-12-08")))),
            ],
            known: true, fetchedAt: dentist.addingTimeInterval(-86_400))
        func bCalendar() -> JSONValue {
            Agenda(feeds: ["work": feed, "school": FeedAgenda(id: "school")]).json(today: today, zone: zone, keywords: ["urlaub"], iso: iso)
        }
        #expect(try await render(ha, state, json: bCalendar()) == "2026-12-08T07:30:00+01:00", "tomorrow's first, today having none")
        var shown = try JSONValue.parse(Array(try await render(ha, attributes, json: bCalendar()).utf8))
        #expect(shown["title"] == "Dentist" && shown["date"] == "2026-12-08" && shown["day_off"] == "Urlaub" && shown["ok"] == true, "\(shown.serialized)")
        #expect(shown["days"]?.arrayItems?.count == 7 && shown["feed"] == "work" && shown["error"] == .null)
        feed.error = "the feed answered HTTP 503"
        shown = try JSONValue.parse(Array(try await render(ha, attributes, json: bCalendar()).utf8))
        #expect(shown["title"] == "Dentist" && shown["ok"] == false && shown["error"] == "the feed answered HTTP 503", "the stored copy still shown")
        feed = FeedAgenda(id: "work")
        #expect(try await render(ha, state, json: bCalendar()) == "None", "a feed never fetched is unknown")
        #expect(try await render(ha, state, json: ["feeds": []]) == "None", "a feed not in B/calendar is unknown")
        shown = try JSONValue.parse(Array(try await render(ha, attributes, json: ["feeds": []]).utf8))
        #expect(shown["title"] == .null && shown["ok"] == false && shown["days"] == [], "\(shown.serialized)")
    }

    /// The documented automation's weather, published at Home Assistant's start, is the node's; a
    /// change in Home Assistant reaches it through the automation; stale, the sensors go unavailable.
    func weather(_ ha: HomeAssistantCore, client: TestClient, topics: Topics, clock: FakeTime) async throws {
        let weather = topics.state(StateTopic.weather)
        func number(_ key: String) async -> Double? { Double(stateText(try? await ha.state(entity(key)))) }
        func shows(_ condition: String, _ temperature: Double, low: Double, high: Double) async -> Bool {
            await eventually {
                guard stateText(try? await ha.state(entity("weather"))) == condition else { return false }
                let shown = [await number("weather_temperature"), await number("weather_low"), await number("weather_high")]
                return shown == [temperature, low, high]
            }
        }
        // Published by the automation's start trigger, before the node was there: retained, so the node has it.
        let first = await client.latest(weather) { $0["source"] == "mqtt" && $0["condition"] == 73 }
        #expect(first?["temperature"] == -2.5 && first?["low"] == -5 && first?["high"] == 1, "B/weather \(first?.serialized ?? "none")")
        #expect(first?["precipitation_probability"] == 70 && first?["stale"] == false && first?["names"]?["en"] == "Snowfall")
        #expect(await shows("Snowfall", -2.5, low: -5, high: 1), "Home Assistant's weather sensors")
        #expect(await number("weather_precipitation") == 70)
        // Feels 4 degrees colder; the entity's 10 mph wind reaches the node as km/h (10 × 1.609344, to a tenth).
        #expect(first?["feels_like"] == -6.5 && first?["wind_kmh"] == 16.1, "B/weather \(first?.serialized ?? "none")")
        let felt = await eventually {
            let feels = await number("weather_feels_like"), wind = await number("weather_wind")
            return feels == -6.5 && wind == 16.1
        }
        let shownFeels = await number("weather_feels_like"), shownWind = await number("weather_wind")
        #expect(felt, "Feels like \(shownFeels ?? .nan), Wind speed \(shownWind ?? .nan)")
        let wind = try await ha.state(entity("weather_wind"))
        #expect(wind?["attributes"]?["unit_of_measurement"] == "km/h" && wind?["attributes"]?["device_class"] == "wind_speed", "\(wind?.serialized ?? "none")")
        let condition = try await ha.state(entity("weather"))
        #expect(condition?["attributes"]?["code"] == 73 && condition?["attributes"]?["kind"] == "snow", "\(condition?.serialized ?? "none")")
        let temperature = try await ha.state(entity("weather_temperature"))
        #expect(temperature?["attributes"]?["unit_of_measurement"] == "°C" && temperature?["attributes"]?["device_class"] == "temperature")
        let updatedAt = try #require(first?["updated_at"]?.stringValue)
        let updated = try await ha.state(entity("weather_updated"))
        #expect(stateText(updated) == homeAssistantUTC(updatedAt) && updated?["attributes"]?["stale"] == false, "\(updated?.serialized ?? "none")")

        // The hours came too: an alarm ten hours ahead with earlier_if snow rings 20 minutes earlier, and the Next alarm says why.
        try await earlierForSnow(ha, client: client, topics: topics, clock: clock)

        // Rain and 3.4 degrees in Home Assistant, published by the automation when it runs: the node's, and back in the sensors.
        let changed = ContinuousClock.now
        try await ha.callService("input_number", "set_value", ["entity_id": "input_number.e2e_temperature", "value": 3.4])
        try await ha.callService("input_select", "select_option", ["entity_id": "input_select.e2e_condition", "option": "rainy"])
        let home = await ha.waitState("weather.home") { $0["state"] == "rainy" && $0["attributes"]?["temperature"] == 3.4 }
        try #require(stateText(home) == "rainy", "weather.home \(home?.serialized ?? "none")")
        try await ha.callService("automation", "trigger", ["entity_id": .string(weatherAutomation)])
        let rain = await client.latest(weather) { $0["condition"] == 61 && $0["temperature"] == 3.4 }
        #expect(rain?["low"] == 0.9 && rain?["high"] == 6.9 && rain?["kind"] == "rain", "B/weather \(rain?.serialized ?? "none")")
        #expect(await shows("Slight rain", 3.4, low: 0.9, high: 6.9), "Home Assistant's weather sensors after the change")
        print("[ha-e2e] weather.get_forecasts automation (docs) → B/weather → sensors: \(seconds(ContinuousClock.now - changed)) from the change to Slight rain, 3.4 °C")

        // Three hours and a minute later, nothing new: stale, the weather sensors unavailable, "Weather updated" says so.
        try clock.jump(by: 3 * 3600 + 60)
        #expect(await client.latest(weather) { $0["stale"] == true }?["condition"] == 61, "B/weather \(client.latest(weather)?.serialized ?? "none")")
        for key in HomeAssistantDiscovery.weatherKeys where key != "weather_updated" {
            #expect(stateText(await ha.waitState(entity(key), is: "unavailable")) == "unavailable", "\(entity(key)) with stale weather")
        }
        let staleUpdated = await ha.waitState(entity("weather_updated")) { $0["attributes"]?["stale"] == true }
        #expect(staleUpdated?["attributes"]?["stale"] == true && stateText(staleUpdated) != "unavailable", "\(staleUpdated?.serialized ?? "none")")
        // Back to the node's time before (B/clock says when the node sees it), and the automation runs again: fresh, available.
        let back = client.messages.count
        try clock.jump(by: -(3 * 3600 + 60))
        let shown = await received(client, topics.clock, after: back) { face in
            face["iso"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) }.map { abs($0.timeIntervalSince(clock.now)) < 120 } ?? false
        }
        try #require(shown != nil, "the node's B/clock did not come back: \(client.latest(topics.clock)?.serialized ?? "none")")
        let republished = client.messages.count
        try await ha.callService("automation", "trigger", ["entity_id": .string(weatherAutomation)])
        let again = await received(client, weather, after: republished) { $0["stale"] == false && $0["condition"] == 61 }
        let againAt = again?["updated_at"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) }
        #expect(againAt.map { abs($0.timeIntervalSince(clock.now)) < 120 } == true, "B/weather \(again?.serialized ?? "none")")
        #expect(await shows("Slight rain", 3.4, low: 0.9, high: 6.9), "the weather sensors once the weather is fresh again")
        print("[ha-e2e] stale weather: the five weather sensors unavailable, Weather updated stale; fresh again on the next publish")
    }
}

import Foundation
import NoiseClockCore
import Testing

/// The weather entities (SPEC §17): six sensors from `B/weather`, only with a weather source,
/// temperatures in the node's units, the condition's name in the node's language, and every
/// weather sensor but "Weather updated" unavailable while the weather is stale. (Their templates
/// run in Home Assistant's own engine in the end-to-end test.)
@Suite("Home Assistant discovery of the weather (SPEC §17)")
struct HomeAssistantWeatherTests {
    static let topics = Topics(base: "noiseclock", nodeID: "bedroom")

    static func components(_ units: WeatherReport.Units? = .metric, _ language: Language = .en) -> [String: JSONValue] {
        HomeAssistantDiscovery(
            topics: topics, prefix: "homeassistant", deviceName: "Bedroom clock", version: "9.9.9", noiseSounds: [], weatherUnits: units,
            catalogs: Shipped.catalogs, language: language
        ).payload(alarms: [])[member: "cmps"]?.objectValue ?? [:]
    }

    static func component(_ key: String, _ units: WeatherReport.Units? = .metric, _ language: Language = .en) throws -> [String: JSONValue] {
        try #require(components(units, language)[key]?.objectValue, "no component \(key)")
    }

    @Test("without a weather source (weatherUnits nil) there is no weather sensor; with one, the six")
    func onlyWithASource() {
        let without = Self.components(nil), with = Self.components()
        #expect(HomeAssistantDiscovery.weatherKeys.allSatisfy { without[$0] == nil })
        #expect(Set(with.keys).subtracting(without.keys) == Set(HomeAssistantDiscovery.weatherKeys))
    }

    @Test("names in both languages, entity ids from the English ones, every sensor reading B/weather")
    func namesAndIDs() throws {
        let expected: [String: (en: String, de: String, id: String)] = [
            "weather": ("Weather", "Wetter", "sensor.bedroom_clock_weather"),
            "weather_temperature": ("Outside temperature", "Außentemperatur", "sensor.bedroom_clock_outside_temperature"),
            "weather_feels_like": ("Feels like", "Gefühlte Temperatur", "sensor.bedroom_clock_feels_like"),
            "weather_low": ("Low today", "Tiefstwert heute", "sensor.bedroom_clock_low_today"),
            "weather_high": ("High today", "Höchstwert heute", "sensor.bedroom_clock_high_today"),
            "weather_precipitation": ("Chance of precipitation", "Niederschlagswahrscheinlichkeit", "sensor.bedroom_clock_chance_of_precipitation"),
            "weather_wind": ("Wind speed", "Windgeschwindigkeit", "sensor.bedroom_clock_wind_speed"),
            "weather_updated": ("Weather updated", "Wetter aktualisiert", "sensor.bedroom_clock_weather_updated"),
        ]
        #expect(Set(expected.keys) == Set(HomeAssistantDiscovery.weatherKeys))
        for (key, names) in expected {
            let english = try Self.component(key), german = try Self.component(key, .metric, .de)
            #expect(english["p"] == "sensor" && english["state_topic"] == "noiseclock/bedroom/weather", "\(key)")
            #expect(english["name"] == .string(names.en) && german["name"] == .string(names.de), "\(key)")
            #expect(english["default_entity_id"] == .string(names.id) && german["default_entity_id"] == .string(names.id), "\(key)")
            #expect(english["unique_id"] == .string("noiseclock_bedroom_\(key)"))
        }
    }

    @Test("the temperatures in the node's units: °C with metric, °F with imperial; the wind in km/h; the chance of rain in %")
    func units() throws {
        for key in ["weather_temperature", "weather_feels_like", "weather_low", "weather_high"] {
            let metric = try Self.component(key), imperial = try Self.component(key, .imperial)
            #expect(metric["device_class"] == "temperature" && metric["state_class"] == "measurement", "\(key)")
            #expect(metric["unit_of_measurement"] == "°C" && imperial["unit_of_measurement"] == "°F", "\(key)")
        }
        #expect(try Self.component("weather_temperature")["value_template"]
            == "{{ value_json.temperature if value_json.temperature is number else 'None' }}")
        #expect(try Self.component("weather_low")["value_template"] == "{{ value_json.low if value_json.low is number else 'None' }}")
        #expect(try Self.component("weather_feels_like")["value_template"]
            == "{{ value_json.feels_like if value_json.feels_like is number else 'None' }}")
        // The wind is km/h in B/weather whatever the units; Home Assistant converts a wind_speed sensor.
        for units in [WeatherReport.Units.metric, .imperial] {
            let wind = try Self.component("weather_wind", units)
            #expect(wind["device_class"] == "wind_speed" && wind["unit_of_measurement"] == "km/h", "\(units)")
            #expect(wind["value_template"] == "{{ value_json.wind_kmh if value_json.wind_kmh is number else 'None' }}")
        }
        let rain = try Self.component("weather_precipitation")
        #expect(rain["unit_of_measurement"] == "%" && rain["device_class"] == nil)
        #expect(rain["value_template"] == "{{ value_json.precipitation_probability if value_json.precipitation_probability is number else 'None' }}")
    }

    @Test("the condition: its name in the node's language, the code and kind (and the days ahead) as attributes")
    func condition() throws {
        let english = try Self.component("weather"), german = try Self.component("weather", .metric, .de)
        #expect(english["value_template"] == "{{ value_json.names['en'] if value_json.names else 'None' }}")
        #expect(german["value_template"] == "{{ value_json.names['de'] if value_json.names else 'None' }}")
        let attributes = try #require(english["json_attributes_template"]?.stringValue)
        for member in ["'code': value_json.condition", "'kind': value_json.kind", "'updated_at': value_json.updated_at", "'days':"] {
            #expect(attributes.contains(member), "\(member)")
        }
        #expect(english["json_attributes_topic"] == "noiseclock/bedroom/weather")
    }

    @Test("stale weather is not shown as now: the seven weather sensors need the node online and B/weather not stale")
    func staleIsUnavailable() throws {
        for key in HomeAssistantDiscovery.weatherKeys where key != "weather_updated" {
            let sensor = try Self.component(key)
            #expect(sensor["availability_mode"] == "all", "\(key)")
            let availability = sensor["availability"]?.items ?? []
            #expect(availability.count == 2, "\(key)")
            #expect(availability.first?[member: "topic"] == "noiseclock/bedroom/availability", "\(key): the node's own")
            #expect(availability.last?[member: "topic"] == "noiseclock/bedroom/weather")
            #expect(availability.last?[member: "value_template"] == "{{ 'offline' if value_json.stale else 'online' }}")
            #expect(availability.last?[member: "payload_available"] == "online")
        }
        // "Weather updated" keeps the device's availability and says when the weather is from.
        let updated = try Self.component("weather_updated")
        #expect(updated["availability"] == nil && updated["device_class"] == "timestamp" && updated["entity_category"] == "diagnostic")
        #expect(updated["value_template"] == "{{ value_json.updated_at if value_json.updated_at else 'None' }}")
        let attributes = try #require(updated["json_attributes_template"]?.stringValue)
        #expect(attributes == "{{ {'stale': value_json.stale, 'source': value_json.source, 'error': value_json.error} | tojson }}")
    }

    @Test("the Next alarm sensor's attributes: why it moves (earlier_by_min, reason, event), 0 and null when B/alarm/next lacks them")
    func nextAlarmWhy() throws {
        let next = try Self.component("next_alarm", nil)
        let attributes = try #require(next["json_attributes_template"]?.stringValue)
        #expect(attributes.contains("'alarm_id': value_json.id") && attributes.contains("'label': value_json.label"))
        #expect(attributes.contains("'earlier_by_min': value_json.get('earlier_by_min') or 0"))
        #expect(attributes.contains("'reason': value_json.get('reason')") && attributes.contains("'event': value_json.get('event')"))
    }
}

/// The calendars' entities (SPEC §17): a "Calendar <feed>" timestamp sensor per feed of
/// `calendar.feeds`, from `B/calendar`. (Its templates run in Home Assistant's engine in the
/// end-to-end test, against `B/calendar` as the node writes it.)
@Suite("Home Assistant discovery of the calendars (SPEC §17)")
struct HomeAssistantCalendarTests {
    static func components(_ feeds: [String], _ language: Language = .en) -> [String: JSONValue] {
        HomeAssistantDiscovery(
            topics: HomeAssistantWeatherTests.topics, prefix: "homeassistant", deviceName: "Bedroom clock", version: "9.9.9", noiseSounds: [],
            calendarFeeds: feeds, catalogs: Shipped.catalogs, language: language
        ).payload(alarms: [])[member: "cmps"]?.objectValue ?? [:]
    }

    @Test("one sensor per feed, none without feeds; named after the feed in both languages, its entity id from the English name")
    func perFeed() throws {
        let none = Self.components([]), two = Self.components(["work", "school-2"])
        #expect(!none.keys.contains { $0.hasPrefix("calendar_") })
        #expect(Set(two.keys).subtracting(none.keys) == ["calendar_work", "calendar_school-2"])
        let work = try #require(two["calendar_work"]?.objectValue)
        #expect(work["p"] == "sensor" && work["device_class"] == "timestamp" && work["name"] == "Calendar work")
        #expect(work["state_topic"] == "noiseclock/bedroom/calendar" && work["json_attributes_topic"] == "noiseclock/bedroom/calendar")
        #expect(work["unique_id"] == "noiseclock_bedroom_calendar_work" && work["default_entity_id"] == "sensor.bedroom_clock_calendar_work")
        let german = try #require(Self.components(["school-2"], .de)["calendar_school-2"]?.objectValue)
        #expect(german["name"] == "Kalender school-2" && german["default_entity_id"] == "sensor.bedroom_clock_calendar_school_2")
    }

    @Test("the state: the first day's first timed event of the feed named; the attributes: which, the day off, the refresh")
    func templates() throws {
        let work = try #require(Self.components(["work"])["calendar_work"]?.objectValue)
        let state = try #require(work["value_template"]?.stringValue)
        #expect(state.contains("selectattr('id', 'eq', 'work') | list") && state.contains("feed.days | selectattr('first') | list"))
        #expect(!state.contains("| first"), "first of an empty sequence logs a warning in Home Assistant")
        #expect(state.hasSuffix("{{ day.first.start if day else 'None' }}"))
        let attributes = try #require(work["json_attributes_template"]?.stringValue)
        for member in ["'feed': 'work'", "'title': day.first.title", "'date': day.date", "'day_off': feed.days[0].day_off", "'ok': feed.ok",
                       "'error': feed.error", "'fetched_at': feed.fetched_at", "'days': feed.days"] {
            #expect(attributes.contains(member), "\(member)")
        }
    }
}

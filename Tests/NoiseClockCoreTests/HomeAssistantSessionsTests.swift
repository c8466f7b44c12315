import Foundation
import NoiseClockCore
import Testing

/// The components of SPEC §6 "Also:" and §10: each alarm's time, the meditation controls and
/// sensors, the timer sensor and button, the names table. Templates are checked by evaluating the
/// parts that carry logic (paths into the node's JSON, the select's option maps, the pattern)
/// against the node's own types.
@Suite("Home Assistant discovery: alarm times, timers and meditation (SPEC §6, §10)")
struct HomeAssistantSessionsTests {
    static let topics = Topics(base: "noiseclock", nodeID: "bedroom")
    static let alarm = HomeAssistantDiscovery.AlarmEntry(id: "a1b2c3d4", label: "Work")

    static func discovery(_ form: HomeAssistantDiscovery.AlarmTimeEntity = .text, language: Language = .en) -> HomeAssistantDiscovery {
        HomeAssistantDiscovery(
            topics: topics, prefix: "homeassistant", deviceName: "Bedroom clock", version: "9.9.9",
            noiseSounds: [Shipped.sound("pink-noise", "Pink noise", german: "Rosa Rauschen")], weatherUnits: .metric, alarmTimeEntity: form,
            catalogs: Shipped.catalogs, language: language)
    }

    func components(_ discovery: HomeAssistantDiscovery = discovery(), removed: [String] = []) -> [String: JSONValue] {
        discovery.payload(alarms: [Self.alarm], removed: removed)[member: "cmps"]?.objectValue ?? [:]
    }

    func component(_ key: String, _ discovery: HomeAssistantDiscovery = discovery()) throws -> [String: JSONValue] {
        try #require(components(discovery)[key]?.objectValue, "no component \(key)")
    }

    /// The member path of a template that only reads one (`{{ value_json.meditation.minutes }}`).
    func path(_ template: JSONValue?) throws -> [String] {
        let text = try #require(template?.stringValue)
        let match = try #require(text.wholeMatch(of: /\{\{ value_json\.([a-z_.]+) \}\}/), "not a plain path: \(text)")
        return match.1.split(separator: ".").map(String.init)
    }

    func lookUp(_ path: [String], in value: JSONValue) -> JSONValue? {
        path.reduce(Optional(value)) { $0?[member: $1] }
    }

    /// The pairs of the first Jinja dict literal after `marker` (`{'Off': 0, '3 min': 3}`), unquoted.
    func jinjaDict(after marker: String, in template: String) throws -> [(key: String, value: String)] {
        let start = try #require(template.range(of: marker)?.upperBound, "no \(marker) in \(template)")
        let rest = template[start...]
        let open = try #require(rest.firstIndex(of: "{")), close = try #require(rest.firstIndex(of: "}"))
        return rest[rest.index(after: open)..<close].split(separator: ", ").map { pair in
            let parts = pair.split(separator: ": ", maxSplits: 1).map { String($0).replacing("'", with: "") }
            return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
        }
    }

    // MARK: Each alarm's time

    @Test("an alarm's text entity: alarm/ID/time, the alarm's time from B/alarms by id, HH:MM by pattern, named after the label")
    func alarmTimeText() throws {
        let text = try component("alarm_a1b2c3d4_text")
        #expect(text["p"] == "text")
        #expect(text["name"] == "Work time")
        #expect(text["unique_id"] == "noiseclock_bedroom_alarm_a1b2c3d4_text")
        #expect(text["command_topic"] == "noiseclock/bedroom/cmd/alarm/a1b2c3d4/time")
        #expect(text["state_topic"] == "noiseclock/bedroom/alarms")
        #expect(text["min"] == 5 && text["max"] == 5 && text["mode"] == "text")
        #expect(text["pattern"] == "^([01][0-9]|2[0-3]):[0-5][0-9]$")
        let template = try #require(text["value_template"]?.stringValue)
        #expect(template.contains("for a in value_json if a.id == 'a1b2c3d4'"))
        #expect(template.contains("set found.time = a.time"), "the alarm's own time member")
        #expect(template.hasPrefix("{% set found = namespace(time=this.state) %}"), "an absent alarm keeps the entity's state")
        #expect(components()["alarm_a1b2c3d4_time"] == nil, "no time entity beside the text")
    }

    @Test("the text pattern takes every time an alarm is written with and nothing else")
    func alarmTimePattern() throws {
        let pattern = try Regex(HomeAssistantDiscovery.alarmTimePattern)
        var matched = 0
        for hour in 0...23 {
            for minute in 0...59 {
                let time = try #require(AlarmTime(hour: hour, minute: minute))
                if time.description.wholeMatch(of: pattern) != nil { matched += 1 }
                #expect(AlarmTime(time.description) == time)
            }
        }
        #expect(matched == 1440)
        for wrong in ["24:00", "7:30", "07:60", "07:30:00", "0730", "", "ab:cd", " 07:30"] {
            #expect(wrong.firstMatch(of: pattern) == nil, "\(wrong)")
        }
    }

    @Test("with alarm_time_entity time: the time platform, HH:MM:SS from B/alarms, under a key of its own")
    func alarmTimePlatform() throws {
        let discovery = Self.discovery(.time)
        let time = try component("alarm_a1b2c3d4_time", discovery)
        #expect(time["p"] == "time")
        #expect(time["name"] == "Work time")
        #expect(time["unique_id"] == "noiseclock_bedroom_alarm_a1b2c3d4_time")
        #expect(time["command_topic"] == "noiseclock/bedroom/cmd/alarm/a1b2c3d4/time")
        #expect(time["state_topic"] == "noiseclock/bedroom/alarms")
        #expect(time["value_template"] == "{% for a in value_json if a.id == 'a1b2c3d4' %}{{ a.time }}:00{% endfor %}")
        for key in ["pattern", "min", "max", "mode", "command_template"] { #expect(time[key] == nil, "\(key)") }
        #expect(components(discovery)["alarm_a1b2c3d4_text"] == nil)
        #expect(try component("alarm_a1b2c3d4", discovery)["p"] == "switch", "the switch stays")
    }

    @Test("a removed alarm's switch and time entity are sent as their platform alone, in either form")
    func alarmRemoval() throws {
        let gone = components(removed: ["e5f6a7b8"])
        #expect(gone["alarm_e5f6a7b8"] == ["p": "switch"])
        #expect(gone["alarm_e5f6a7b8_text"] == ["p": "text"])
        let goneTime = components(Self.discovery(.time), removed: ["e5f6a7b8"])
        #expect(goneTime["alarm_e5f6a7b8_time"] == ["p": "time"])
        #expect(goneTime["alarm_e5f6a7b8_text"] == nil)
        #expect(components(removed: ["a1b2c3d4"])["alarm_a1b2c3d4_text"]?[member: "name"] == "Work time", "still there: kept")
    }

    // MARK: Meditation

    @Test("Start meditation and Cancel timers press PRESS on meditation/start and timer/cancel, the no-argument form")
    func buttons() throws {
        for (key, verb, icon) in [("start_meditation", "meditation/start", "mdi:meditation"), ("cancel_timers", "timer/cancel", "mdi:timer-off-outline")] {
            let button = try component(key)
            #expect(button["p"] == "button")
            #expect(button["command_topic"] == .string("noiseclock/bedroom/cmd/\(verb)"))
            #expect(button["icon"] == .string(icon))
            let press = try #require(button["payload_press"]?.stringValue)
            #expect(CommandPayload.decode(Array(press.utf8)).payload == .success(.empty), "\(key) sends \(press)")
        }
        #expect(try component("start_meditation")["name"] == "Start meditation")
        #expect(try component("cancel_timers")["name"] == "Cancel timers")
    }

    @Test("Meditation minutes: 1-180 from settings.meditation.minutes, sent as a partial settings object")
    func meditationMinutes() throws {
        let number = try component("meditation_minutes")
        #expect(number["p"] == "number")
        #expect(number["name"] == "Meditation minutes")
        #expect(number["min"]?.intValue == MeditationSettings.minutesRange.lowerBound && number["max"]?.intValue == 180)
        #expect(number["step"] == 1 && number["unit_of_measurement"] == "min")
        #expect(["box", "slider"].contains(number["mode"]?.stringValue ?? ""))
        #expect(number["state_topic"] == "noiseclock/bedroom/settings")
        #expect(number["command_topic"] == "noiseclock/bedroom/cmd/settings")
        #expect(lookUp(try path(number["value_template"]), in: ClockSettings().json) == 10, "the default minutes in B/settings")
        #expect(number["command_template"] == "{{ {'meditation': {'minutes': value | int}} | tojson }}")
        // What the template renders for 25 is a settings patch the node takes.
        let patch = try #require(try JSONValue.parse(Array(#"{"meditation":{"minutes":25}}"#.utf8)).objectValue)
        #expect(try MeditationSettings().applying(try #require(patch["meditation"]?.objectValue)).minutes == 25)
    }

    @Test("Interval gongs: Off, 3, 5 and 10 min map to interval_min both ways, and every one is a value settings.meditation takes")
    func intervalSelect() throws {
        let select = try component("meditation_interval")
        #expect(select["p"] == "select")
        #expect(select["name"] == "Interval gongs")
        #expect(select["options"] == ["Off", "3 min", "5 min", "10 min"])
        #expect(select["state_topic"] == "noiseclock/bedroom/settings")
        #expect(select["command_topic"] == "noiseclock/bedroom/cmd/settings")
        let command = try #require(select["command_template"]?.stringValue)
        let value = try #require(select["value_template"]?.stringValue)
        #expect(command.hasPrefix("{{ {'meditation': {'interval_min': {") && command.hasSuffix("}[value]}} | tojson }}"))
        #expect(value.hasSuffix(".get(value_json.meditation.interval_min, 'None') }}"))
        #expect(lookUp(["meditation", "interval_min"], in: ClockSettings().json) == 0)

        let sent = try jinjaDict(after: "'interval_min': ", in: command)
        let shown = try jinjaDict(after: "{{ ", in: value)
        #expect(sent.map(\.key) == select["options"]?.items.compactMap(\.stringValue))
        for (option, minutes) in sent {
            let interval = try #require(Int(minutes), "\(option) → \(minutes)")
            #expect(try MeditationSettings().applying(["interval_min": .number(Double(interval))]).intervalMinutes == interval)
            #expect(shown.first { $0.key == minutes }?.value == option, "\(interval) shows as \(option)")
        }
        #expect(Set(sent.compactMap { Int($0.value) }) == Set(MeditationSettings.intervals))
    }

    @Test("the Meditation sensor is an enum of B/meditation's five states, with the session as attributes")
    func meditationSensor() throws {
        let sensor = try component("meditation")
        #expect(sensor["p"] == "sensor" && sensor["device_class"] == "enum")
        #expect(sensor["options"] == ["idle", "preparing", "running", "paused", "completed"])
        #expect(sensor["state_topic"] == "noiseclock/bedroom/meditation")
        #expect(try path(sensor["value_template"]) == ["state"])
        #expect(sensor["json_attributes_topic"] == "noiseclock/bedroom/meditation")
        let attributes = try #require(sensor["json_attributes_template"]?.stringValue)
        for member in ["kind", "started_at", "remaining_s", "duration_s", "interval_min", "next_gong_at", "item"] {
            #expect(attributes.contains("'\(member)': value_json.\(member)"), "\(member)")
        }
        #expect(sensor["icon"] == "mdi:meditation")
    }

    @Test("Meditation ends and Next timer are timestamps that render None (unknown) when there is nothing to end")
    func timestamps() throws {
        let ends = try component("meditation_ends")
        #expect(ends["p"] == "sensor" && ends["device_class"] == "timestamp")
        #expect(ends["state_topic"] == "noiseclock/bedroom/meditation")
        #expect(ends["value_template"] == "{{ value_json.ends_at if value_json.ends_at else 'None' }}")

        let next = try component("next_timer")
        #expect(next["p"] == "sensor" && next["device_class"] == "timestamp")
        #expect(next["state_topic"] == "noiseclock/bedroom/timers")
        #expect(next["name"] == "Next timer" && next["icon"] == "mdi:timer-outline")
        let template = try #require(next["value_template"]?.stringValue)
        #expect(template.contains("for t in value_json if t.state == 'running' and t.ends_at"), "running timers only")
        #expect(template.contains("as_timestamp(t.ends_at)") && template.contains("ts < next.ts"), "the earliest by instant")
        #expect(template.hasSuffix("{{ next.at if next.at else 'None' }}"))
        let attributes = try #require(next["json_attributes_template"]?.stringValue)
        #expect(attributes.hasSuffix("{{ {'timer_id': next.id, 'label': next.label, 'timers': value_json | count} | tojson }}"))
        #expect(next["json_attributes_topic"] == "noiseclock/bedroom/timers")
    }

    // MARK: Names

    @Test("every name comes from the catalog's ha.* keys; German renames every entity and changes no unique id and no entity id")
    func namesFromCatalog() throws {
        let english = components()
        let keys = Set(english.keys).subtracting(["alarm_a1b2c3d4", "alarm_a1b2c3d4_text"])
        let catalog = Shipped.catalogs[.en]
        // Options are `ha.<select>.<option>` (`ha.interval.off`, `ha.radio.off`): not names.
        let names = catalog.messages.keys.filter { $0.hasPrefix("ha.") && !$0.dropFirst(3).contains(".") && $0 != "ha.alarm_time" && $0 != "ha.calendar_feed" }
        #expect(keys.union(["screen", "illuminance"]) == Set(names.map { String($0.dropFirst(3)) }),
                "a ha.* key for exactly the components (and the Screen light and the Illuminance sensor)")
        for key in keys { #expect(english[key]?[member: "name"] == .string(catalog.text("ha.\(key)")), "\(key)") }

        let german = components(Self.discovery(language: .de))
        #expect(Set(german.keys) == Set(english.keys))
        for (key, value) in german {
            #expect(value[member: "unique_id"] == english[key]?[member: "unique_id"], "\(key)")
            #expect(value[member: "object_id"] == english[key]?[member: "object_id"], "\(key)")
            #expect(value[member: "default_entity_id"] == english[key]?[member: "default_entity_id"], "\(key)")
        }
        #expect(german["alarm_a1b2c3d4_text"]?[member: "name"] == "Work Uhrzeit")
        #expect(german["alarm_a1b2c3d4_text"]?[member: "object_id"] == "bedroom_clock_work_time", "the entity id of the English name")
        #expect(german["alarm_a1b2c3d4"]?[member: "name"] == "Work", "a switch is its alarm's label")
        #expect(german["meditation_interval"]?[member: "options"] == ["Aus", "3 Min.", "5 Min.", "10 Min."])
        let command = try #require(german["meditation_interval"]?[member: "command_template"]?.stringValue)
        #expect(try jinjaDict(after: "'interval_min': ", in: command).map(\.key) == ["Aus", "3 Min.", "5 Min.", "10 Min."])
    }
}

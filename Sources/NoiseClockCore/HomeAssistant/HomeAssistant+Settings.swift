/// The clock's settings as configuration entities (SPEC §6, §9, §11): time format, seconds, the
/// face's theme, the language, and the Screen light when the node drives a screen. Each select
/// shows options in the language in force and sends the node's own values (`12h`, `red`, `de`),
/// through a partial settings object on `B/cmd/settings`.
extension HomeAssistantDiscovery {
    /// The "Vacation until" text: a date, or empty for none.
    public static let vacationPattern = "^([0-9]{4}-[0-9]{2}-[0-9]{2})?$"

    var settingsComponents: [String: JSONValue] {
        let settings = topics.settings, command = topics.command("settings")
        let formats = TimeFormat.allCases.map { (value: quoted($0.rawValue), option: names.timeFormat($0)) }
        let themes = FaceStyle.Theme.allCases.map { (value: quoted($0.rawValue), option: names.theme($0)) }
        // Each language by its own name, the same in every language: someone who cannot read the
        // language in force still finds theirs.
        let languages = Language.allCases.map { (value: quoted($0.rawValue), option: $0.endonym) }
        var components = [
            "time_format": select("time_format", state: settings, command: command, formats, from: "value_json.time_format", sent: {
                "{'time_format': \($0)}"
            }, ["entity_category": "config", "icon": "mdi:clock-digital"]),
            "show_seconds": component("switch", "show_seconds", state: settings, command: command, [
                "value_template": "{{ 'ON' if value_json.show_seconds else 'OFF' }}", "payload_on": #"{"show_seconds":true}"#,
                "payload_off": #"{"show_seconds":false}"#, "state_on": "ON", "state_off": "OFF", "entity_category": "config",
                "icon": "mdi:timer-outline",
            ]),
            "face_theme": select("face_theme", state: settings, command: command, themes, from: "value_json.face.theme", sent: {
                "{'face': {'theme': \($0)}}"
            }, ["entity_category": "config", "icon": "mdi:palette"]),
            // settings.wake (SPEC §12): the default of new alarms, and a vacation as a date.
            "skip_holidays": component("switch", "skip_holidays", state: settings, command: command, [
                "value_template": "{{ 'ON' if value_json.wake.skip_holidays else 'OFF' }}",
                "payload_on": #"{"wake":{"skip_holidays":true}}"#, "payload_off": #"{"wake":{"skip_holidays":false}}"#,
                "state_on": "ON", "state_off": "OFF", "entity_category": "config", "icon": "mdi:calendar-star",
            ]),
            "sunrise_min": component("number", "sunrise_min", state: settings, command: command, [
                "min": .number(Double(AlarmFields.sunrises.lowerBound)), "max": .number(Double(AlarmFields.sunrises.upperBound)),
                "step": 1, "unit_of_measurement": "min", "mode": "box", "device_class": "duration",
                "value_template": "{{ value_json.wake.sunrise_min }}",
                "command_template": "{{ {'wake': {'sunrise_min': value | int}} | tojson }}", "entity_category": "config",
                "icon": "mdi:weather-sunset-up",
            ]),
            "vacation_until": component("text", "vacation_until", state: settings, command: topics.command("vacation"), [
                "value_template": "{{ value_json.wake.vacation_until or '' }}",
                "command_template": "{{ {'until': value if value else none} | tojson }}",
                "pattern": .string(Self.vacationPattern), "min": 0, "max": 10, "mode": "text", "icon": "mdi:island",
            ]),
            "language": select("language", state: settings, command: command, languages, from: "value_json.language", sent: {
                "{'language': \($0)}"
            }, ["entity_category": "config", "icon": "mdi:translate"]),
        ]
        if screen {
            // Brightness 0-100 as the node counts it; ON without a brightness lights it as it was.
            components["screen"] = component("light", "screen", state: topics.display, command: topics.command("display/power"), [
                "payload_on": "ON", "payload_off": "OFF", "state_value_template": "{{ 'ON' if value_json.screen == 'on' else 'OFF' }}",
                "brightness_state_topic": .string(topics.display), "brightness_command_topic": .string(topics.command("display/brightness")),
                "brightness_scale": 100, "brightness_value_template": "{{ value_json.brightness }}", "icon": "mdi:monitor",
            ])
        }
        return components
    }
}

/// The bedtime components of the discovery payload (SPEC §13): the "Wind down" button, the
/// "Bedtime" text (one time for every day, or empty for none), the bedtime phase sensor, and the
/// kids' clock's switch and state sensor, and the "Night light".
extension HomeAssistantDiscovery {
    public static let bedtimeEvents = ["bedtime_reminder", "bedtime_started", "bedtime_ended", "kids_ok"]
    /// The "Bedtime" text: `HH:MM`, or empty for no bedtime.
    public static let bedtimePattern = "^(([01][0-9]|2[0-3]):[0-5][0-9])?$"

    var bedtimeComponents: [String: JSONValue] {
        let bedtime = topics.state(StateTopic.bedtime)
        var components: [String: JSONValue] = [:]
        if lux {
            // The room's light as the node last read it (`B/display`'s `lux`).
            components["illuminance"] = component("sensor", "illuminance", state: topics.display, [
                "device_class": "illuminance", "unit_of_measurement": "lx", "state_class": "measurement",
                "value_template": "{{ value_json.lux if value_json.lux is not none else 'None' }}", "icon": "mdi:brightness-5",
            ])
        }
        return components.merging([
            "wind_down": component("button", "wind_down", command: topics.command("bedtime/start"), [
                "payload_press": "PRESS", "icon": "mdi:weather-sunset-down",
            ]),
            // A bedtime per weekday reads as empty here; setting one gives every day that time.
            "bedtime_time": component("text", "bedtime_time", state: topics.settings, command: topics.command("settings"), [
                "value_template": "{{ value_json.bedtime.time if value_json.bedtime.time is string else '' }}",
                "command_template": "{{ {'bedtime': {'time': value if value else none}} | tojson }}",
                "pattern": .string(Self.bedtimePattern), "min": 0, "max": 5, "mode": "text", "icon": "mdi:bed-clock",
            ]),
            "bedtime": component("sensor", "bedtime", state: bedtime, [
                "device_class": "enum", "options": .array(BedtimePhase.allCases.map { .string($0.rawValue) }),
                "value_template": "{{ value_json.phase }}", "json_attributes_topic": .string(bedtime),
                "json_attributes_template": "{{ {'next_at': value_json.next_at, 'ends_at': value_json.ends_at} | tojson }}",
                "icon": "mdi:bed",
            ]),
            // The screen as a lamp, in Home Assistant's JSON light schema (`B/nightlight` carries
            // its `state`, `brightness`, `color_mode` and `color`).
            "night_light": component("light", "night_light", state: topics.state(StateTopic.nightLight), command: topics.command("nightlight"), [
                "schema": "json", "brightness": true, "brightness_scale": 100, "supported_color_modes": .array(["rgb"]),
                "icon": "mdi:lightbulb-night",
            ]),
            "kids": component("switch", "kids", state: topics.settings, command: topics.command("settings"), [
                "value_template": "{{ 'ON' if value_json.kids.enabled else 'OFF' }}",
                "payload_on": #"{"kids":{"enabled":true}}"#, "payload_off": #"{"kids":{"enabled":false}}"#,
                "state_on": "ON", "state_off": "OFF", "icon": "mdi:human-child",
            ]),
            "kids_state": component("sensor", "kids_state", state: topics.state(StateTopic.kids), [
                "device_class": "enum", "options": .array(KidsState.allCases.map { .string($0.rawValue) }),
                "value_template": "{{ value_json.state }}", "json_attributes_topic": .string(topics.state(StateTopic.kids)),
                "json_attributes_template": "{{ {'next_change_at': value_json.next_change_at, 'wake_at': value_json.wake_at} | tojson }}",
                "icon": "mdi:weather-night",
            ]),
        ]) { a, _ in a }
    }
}

/// The bedtime components of the discovery payload (SPEC §13): the "Wind down" button, the
/// "Bedtime" text (one time for every day, or empty for none) and the bedtime phase sensor.
extension HomeAssistantDiscovery {
    public static let bedtimeEvents = ["bedtime_reminder", "bedtime_started", "bedtime_ended"]
    /// The "Bedtime" text: `HH:MM`, or empty for no bedtime.
    public static let bedtimePattern = "^(([01][0-9]|2[0-3]):[0-5][0-9])?$"

    var bedtimeComponents: [String: JSONValue] {
        let bedtime = topics.state(StateTopic.bedtime)
        return [
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
        ]
    }
}

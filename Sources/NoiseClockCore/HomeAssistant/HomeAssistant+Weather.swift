/// The weather components of the discovery payload (SPEC §17), from retained `B/weather`, only
/// when the node has a weather source (`weather.source` not `none`): the condition ("Weather", its
/// name in the node's language, with the WMO code and kind as attributes), the outside
/// temperature and what it feels like, today's low and high, the chance of precipitation, the
/// wind, and when the weather was last updated.
///
/// Stale weather is never shown as now: the seven weather sensors are unavailable while
/// `B/weather` says `stale` (older than three hours, or no weather known yet), beside the node's
/// own availability. "Weather updated" stays available and tells when the weather is from, with
/// `stale`, `source` and the last refresh's `error` as attributes.
extension HomeAssistantDiscovery {
    /// The keys of the weather components, the seven that go unavailable while the weather is stale first.
    public static let weatherKeys = [
        "weather", "weather_temperature", "weather_feels_like", "weather_low", "weather_high", "weather_precipitation", "weather_wind",
        "weather_updated",
    ]

    /// The availability of a weather sensor: the node's, and `B/weather` not stale.
    var weatherAvailability: [String: JSONValue] {
        [
            "availability": [
                ["topic": .string(topics.availability), "payload_available": "online", "payload_not_available": "offline"],
                [
                    "topic": .string(topics.state(StateTopic.weather)), "payload_available": "online", "payload_not_available": "offline",
                    "value_template": "{{ 'offline' if value_json.stale else 'online' }}",
                ],
            ],
            "availability_mode": "all",
        ]
    }

    var weatherComponents: [String: JSONValue] {
        guard let units = weatherUnits else { return [:] }
        let weather = topics.state(StateTopic.weather)
        // A member that is null (no weather, or the source did not say it) is unknown.
        func number(_ member: String) -> JSONValue {
            .string("{{ value_json.\(member) if value_json.\(member) is number else 'None' }}")
        }
        func temperature(_ key: String, _ member: String, icon: String?) -> JSONValue {
            var extra: [String: JSONValue] = [
                "device_class": "temperature", "unit_of_measurement": .string(units.temperature), "state_class": "measurement",
                "suggested_display_precision": 1, "value_template": number(member),
            ]
            if let icon { extra["icon"] = .string(icon) }
            return component("sensor", key, state: weather, extra.merging(weatherAvailability) { a, _ in a })
        }
        let language = quoted(names.language.rawValue)
        return [
            // The condition's name in the node's language (the discovery is made again when it changes).
            "weather": component("sensor", "weather", state: weather, [
                "value_template": .string("{{ value_json.names[\(language)] if value_json.names else 'None' }}"),
                "json_attributes_topic": .string(weather),
                "json_attributes_template":
                    "{{ {'code': value_json.condition, 'kind': value_json.kind, 'updated_at': value_json.updated_at, 'days': value_json.get('days') or []} | tojson }}",
                "icon": "mdi:weather-partly-cloudy",
            ].merging(weatherAvailability) { a, _ in a }),
            "weather_temperature": temperature("weather_temperature", "temperature", icon: nil),
            "weather_feels_like": temperature("weather_feels_like", "feels_like", icon: "mdi:thermometer-lines"),
            "weather_low": temperature("weather_low", "low", icon: "mdi:thermometer-low"),
            "weather_high": temperature("weather_high", "high", icon: "mdi:thermometer-high"),
            "weather_precipitation": component("sensor", "weather_precipitation", state: weather, [
                "unit_of_measurement": "%", "state_class": "measurement", "value_template": number("precipitation_probability"),
                "icon": "mdi:weather-pouring",
            ].merging(weatherAvailability) { a, _ in a }),
            // Always km/h in `B/weather`: Home Assistant shows it in its own units (a wind_speed sensor).
            "weather_wind": component("sensor", "weather_wind", state: weather, [
                "device_class": "wind_speed", "unit_of_measurement": "km/h", "state_class": "measurement",
                "suggested_display_precision": 0, "value_template": number("wind_kmh"), "icon": "mdi:weather-windy",
            ].merging(weatherAvailability) { a, _ in a }),
            // Available whenever the node is: when the weather is from, and whether it is stale.
            "weather_updated": component("sensor", "weather_updated", state: weather, [
                "device_class": "timestamp", "value_template": "{{ value_json.updated_at if value_json.updated_at else 'None' }}",
                "json_attributes_topic": .string(weather),
                "json_attributes_template": "{{ {'stale': value_json.stale, 'source': value_json.source, 'error': value_json.error} | tojson }}",
                "entity_category": "diagnostic", "icon": "mdi:weather-cloudy-clock",
            ]),
        ]
    }
}

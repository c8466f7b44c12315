/// The alarm, noise and event components of the discovery payload, and the two per alarm.
extension HomeAssistantDiscovery {
    /// The alarm events the event entity reports.
    public static let alarmEvents = [
        "alarm_upcoming", "alarm_ringing", "alarm_snoozed", "alarm_dismissed", "alarm_auto_silenced", "alarm_missed",
        "alarm_skipped", "alarm_escalated", "wake_sunrise", "wake_awake",
    ]

    /// Every event the event entity reports: the alarms', then the timers', the meditations',
    /// bedtime's, the radio's and speech's.
    public static var eventTypes: [String] {
        alarmEvents + timerEvents + meditationEvents + bedtimeEvents + radioEvents + speechEvents
    }

    /// A time entity's pattern: `HH:MM`, 00:00 to 23:59, as the alarm's `time` is written.
    public static let alarmTimePattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$"

    var alarmAndNoiseComponents: [String: JSONValue] {
        let onWhenCharging = "{{ 'ON' if value_json.charging else 'OFF' }}"
        return [
            "battery": component("sensor", "battery", state: topics.battery, [
                "device_class": "battery", "unit_of_measurement": "%", "state_class": "measurement",
                "value_template": "{{ value_json.percentage }}", "entity_category": "diagnostic",
            ]),
            "charging": component("binary_sensor", "charging", state: topics.battery, [
                "device_class": "battery_charging", "value_template": .string(onWhenCharging), "entity_category": "diagnostic",
            ]),
            // "None" is how an MQTT sensor is told its value is unknown (no alarm set).
            "next_alarm": component("sensor", "next_alarm", state: topics.alarmNext, [
                "device_class": "timestamp", "value_template": "{{ value_json.fires_at if value_json.fires_at else 'None' }}",
                "json_attributes_topic": .string(topics.alarmNext),
                "json_attributes_template": .string(nextAlarmAttributes), "icon": "mdi:alarm",
            ]),
            "alarm_state": component("sensor", "alarm_state", state: topics.alarmState, [
                "device_class": "enum", "options": ["idle", "ringing", "snoozed"], "value_template": "{{ value_json.state }}",
                "json_attributes_topic": .string(topics.alarmState),
                "json_attributes_template":
                    "{{ {'alarm_id': value_json.alarm_id, 'label': value_json.label, 'snoozed_until': value_json.snoozed_until, 'snooze_count': value_json.snooze_count} | tojson }}",
                "icon": "mdi:alarm-bell",
            ]),
            // SPEC §12: where a waking up is, with the sunrise's progress and the light's level.
            "wake": component("sensor", "wake", state: topics.state(StateTopic.wake), [
                "device_class": "enum", "options": .array(WakePhase.allCases.map { .string($0.rawValue) }),
                "value_template": "{{ value_json.phase }}", "json_attributes_topic": .string(topics.state(StateTopic.wake)),
                "json_attributes_template":
                    "{{ {'alarm_id': value_json.alarm_id, 'label': value_json.label, 'ring_at': value_json.ring_at, 'sunrise_started_at': value_json.sunrise_started_at, 'progress': value_json.progress, 'level': value_json.level} | tojson }}",
                "icon": "mdi:weather-sunset-up",
            ]),
            "ringing": component("binary_sensor", "ringing", state: topics.alarmState, [
                "value_template": "{{ 'ON' if value_json.state == 'ringing' else 'OFF' }}", "icon": "mdi:alarm-light",
            ]),
            "snooze": component("button", "snooze", command: topics.command("snooze"), [
                "payload_press": "PRESS", "icon": "mdi:alarm-snooze",
            ]),
            "dismiss": component("button", "dismiss", command: topics.command("dismiss"), [
                "payload_press": "PRESS", "icon": "mdi:alarm-off",
            ]),
            "noise": component("switch", "noise", state: topics.noise, command: topics.command("noise/power"), [
                "value_template": "{{ 'ON' if value_json.playing else 'OFF' }}", "payload_on": "ON", "payload_off": "OFF",
                "icon": "mdi:waves",
            ]),
            // The option itself is the command: noise/play takes a sound's name in any language.
            "noise_sound": component("select", "noise_sound", state: topics.noise, command: topics.command("noise/play"), [
                "options": .array(noiseSounds.map { .string(names.sound($0)) }), "value_template": .string(soundNameTemplate),
                "icon": "mdi:playlist-music",
            ]),
            "noise_volume": component("number", "noise_volume", state: topics.noise, command: topics.command("noise/volume"), [
                "min": 0, "max": 100, "step": 1, "unit_of_measurement": "%", "mode": "slider",
                "value_template": "{{ value_json.volume }}", "icon": "mdi:volume-high",
            ]),
            "sleep_timer": component("number", "sleep_timer", state: topics.noise, command: topics.command("noise/sleep"), [
                "min": 0, "max": 720, "step": 5, "unit_of_measurement": "min", "mode": "box", "device_class": "duration",
                // Minutes left when B/noise was last published (0: no timer).
                "value_template":
                    "{{ ((as_timestamp(value_json.sleep_timer_ends_at) - as_timestamp(now())) / 60) | round(0) | int if value_json.sleep_timer_ends_at else 0 }}",
                "icon": "mdi:timer-sand",
            ]),
            // The key keeps its first name so the unique id stays; it reports timers and meditations too.
            "alarm_event": component("event", "alarm_event", state: topics.event, [
                "event_types": .array(Self.eventTypes.map { .string($0) }),
                // Other events on B/event (noise, battery) render empty and are ignored.
                "value_template": .string(eventTemplate),
                "icon": "mdi:bell-ring-outline",
            ]),
        ]
    }

    func alarmSwitch(_ alarm: AlarmEntry) -> JSONValue {
        let id = escaped(alarm.id)
        return component(
            "switch", Self.alarmKey(alarm.id), named: alarm.label, english: alarm.label, state: topics.alarms,
            command: topics.command("alarm/\(alarm.id)/enabled"),
            [
                "value_template": .string("{% for a in value_json if a.id == '\(id)' %}{{ 'ON' if a.enabled else 'OFF' }}{% endfor %}"),
                "payload_on": "ON", "payload_off": "OFF", "icon": "mdi:alarm",
            ])
    }

    /// The alarm's time from `B/alarms`, set through `alarm/ID/time`.
    func alarmTime(_ alarm: AlarmEntry) -> JSONValue {
        let id = escaped(alarm.id)
        let key = Self.alarmTimeKey(alarm.id, alarmTimeEntity)
        let name = names.alarmTime(label: alarm.label), englishName = english.alarmTime(label: alarm.label)
        let command = topics.command("alarm/\(alarm.id)/time")
        switch alarmTimeEntity {
        case .text:
            // A text entity takes whatever its template renders and fails on what does not match
            // the pattern, even "" (while the alarm is being deleted): so it keeps its own state then.
            let template = "{% set found = namespace(time=this.state) %}{% for a in value_json if a.id == '\(id)' %}"
                + "{% set found.time = a.time %}{% endfor %}{{ found.time }}"
            return component("text", key, named: name, english: englishName, state: topics.alarms, command: command, [
                "value_template": .string(template), "pattern": .string(Self.alarmTimePattern), "min": 5, "max": 5, "mode": "text",
                "icon": "mdi:clock-outline",
            ])
        case .time:
            // The time platform reads and sends HH:MM:SS; it ignores an empty rendering.
            return component("time", key, named: name, english: englishName, state: topics.alarms, command: command, [
                "value_template": .string("{% for a in value_json if a.id == '\(id)' %}{{ a.time }}:00{% endfor %}"),
                "icon": "mdi:clock-outline",
            ])
        }
    }

    /// The Next alarm sensor's attributes: the alarm, and why it rings off its own time (SPEC §17):
    /// `earlier_by_min` and `reason` (`snow`, `ice`, `rain`) for the weather, `event` (feed, title,
    /// start) for the calendar event it follows; 0 and null when it rings at its time.
    var nextAlarmAttributes: String {
        "{{ {'alarm_id': value_json.id, 'label': value_json.label, 'earlier_by_min': value_json.get('earlier_by_min') or 0, "
            + "'reason': value_json.get('reason'), 'event': value_json.get('event')} | tojson }}"
    }

    /// An event of `eventTypes` as the event entity wants it: its members as attributes, its name
    /// as `event_type`; any other event on B/event renders empty.
    var eventTemplate: String {
        let names = Self.eventTypes.map { "'\($0)'" }.joined(separator: ", ")
        return "{% if value_json.event in [\(names)] %}"
            + "{{ dict(value_json.items() | rejectattr('0', 'eq', 'event'), event_type=value_json.event) | tojson }}"
            + "{% endif %}"
    }

    /// The first playing sound's name in the language, "None" (unknown) when nothing plays.
    private var soundNameTemplate: String {
        let names = noiseSounds.map { "\(quoted($0.id)): \(quoted(self.names.sound($0)))" }.joined(separator: ", ")
        return "{% set names = {\(names)} %}{{ names.get(value_json.sounds[0].id, 'None') if value_json.playing and value_json.sounds else 'None' }}"
    }
}

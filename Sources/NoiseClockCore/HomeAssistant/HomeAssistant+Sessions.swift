/// The countdown timer and meditation components of the discovery payload (SPEC §6, §10).
extension HomeAssistantDiscovery {
    public static let timerEvents = ["timer_finished", "timer_dismissed", "timer_missed"]
    public static let meditationEvents = ["meditation_started", "meditation_interval", "meditation_completed", "meditation_stopped"]
    /// The states of `B/meditation`, the meditation sensor's options.
    public static let meditationStates = ["idle", "preparing", "running", "paused", "completed"]

    var sessionComponents: [String: JSONValue] {
        let settings = topics.settings, meditation = topics.state(StateTopic.meditation), timers = topics.state(StateTopic.timers)
        let minutes = MeditationSettings.minutesRange
        return [
            // Nothing else in the press: the session takes every member from settings.meditation.
            "start_meditation": component("button", "start_meditation", command: topics.command("meditation/start"), [
                "payload_press": "PRESS", "icon": "mdi:meditation",
            ]),
            "meditation_minutes": component("number", "meditation_minutes", state: settings, command: topics.command("settings"), [
                "min": .number(Double(minutes.lowerBound)), "max": .number(Double(minutes.upperBound)), "step": 1,
                "unit_of_measurement": "min", "mode": "box", "device_class": "duration",
                "value_template": "{{ value_json.meditation.minutes }}",
                "command_template": "{{ {'meditation': {'minutes': value | int}} | tojson }}", "icon": "mdi:timer-sand",
            ]),
            "meditation_interval": select(
                "meditation_interval", state: settings, command: topics.command("settings"),
                MeditationSettings.intervals.map { (value: String($0), option: names.interval($0)) }, from: "value_json.meditation.interval_min",
                sent: { "{'meditation': {'interval_min': \($0)}}" }, ["icon": "mdi:bell-outline"]),
            "meditation": component("sensor", "meditation", state: meditation, [
                "device_class": "enum", "options": .array(Self.meditationStates.map { .string($0) }),
                "value_template": "{{ value_json.state }}", "json_attributes_topic": .string(meditation),
                "json_attributes_template":
                    "{{ {'kind': value_json.kind, 'started_at': value_json.started_at, 'remaining_s': value_json.remaining_s, 'duration_s': value_json.duration_s, 'interval_min': value_json.interval_min, 'next_gong_at': value_json.next_gong_at, 'item': value_json.item} | tojson }}",
                "icon": "mdi:meditation",
            ]),
            // "None": unknown, as for the next alarm (no session, or a paused one).
            "meditation_ends": component("sensor", "meditation_ends", state: meditation, [
                "device_class": "timestamp", "value_template": "{{ value_json.ends_at if value_json.ends_at else 'None' }}",
                "icon": "mdi:timer-sand-complete",
            ]),
            "next_timer": component("sensor", "next_timer", state: timers, [
                "device_class": "timestamp", "value_template": .string(Self.nextTimerLoop + "{{ next.at if next.at else 'None' }}"),
                "json_attributes_topic": .string(timers),
                "json_attributes_template":
                    .string(Self.nextTimerLoop + "{{ {'timer_id': next.id, 'label': next.label, 'timers': value_json | count} | tojson }}"),
                "icon": "mdi:timer-outline",
            ]),
            // `timer/cancel` without an id cancels every timer.
            "cancel_timers": component("button", "cancel_timers", command: topics.command("timer/cancel"), [
                "payload_press": "PRESS", "icon": "mdi:timer-off-outline",
            ]),
        ]
    }

    /// Finds the running timer of `B/timers` that ends first, by instant (offsets may differ
    /// across a change of daylight saving time), into `next.at`, `next.id`, `next.label`.
    static let nextTimerLoop =
        "{% set next = namespace(at=none, id=none, label=none, ts=none) %}"
        + "{% for t in value_json if t.state == 'running' and t.ends_at %}{% set ts = as_timestamp(t.ends_at) %}"
        + "{% if next.ts is none or ts < next.ts %}{% set next.at = t.ends_at %}{% set next.id = t.id %}{% set next.label = t.label %}"
        + "{% set next.ts = ts %}{% endif %}{% endfor %}"
}

/// Every name Home Assistant shows for the node's entities, in one table (SPEC §11 gives it a
/// second language). Names only: the component keys, and so the `unique_id`s, never change with them.
public struct HomeAssistantNames: Sendable, Hashable {
    /// Component key → entity name, for every component that is not per alarm.
    public var entities: [String: String]
    /// An alarm's time entity, with `{label}` for the alarm's label (its switch is the label alone).
    public var alarmTime: String
    /// The interval gongs select's options: 0 (none), else `{minutes}` for 3, 5 or 10.
    public var intervalOff: String
    public var intervalMinutes: String

    public init(entities: [String: String], alarmTime: String, intervalOff: String, intervalMinutes: String) {
        self.entities = entities
        self.alarmTime = alarmTime
        self.intervalOff = intervalOff
        self.intervalMinutes = intervalMinutes
    }

    public static let english = HomeAssistantNames(
        entities: [
            "battery": "Battery", "charging": "Charging", "next_alarm": "Next alarm", "alarm_state": "Alarm", "ringing": "Ringing",
            "snooze": "Snooze", "dismiss": "Dismiss", "noise": "Noise", "noise_sound": "Noise sound", "noise_volume": "Noise volume",
            "sleep_timer": "Sleep timer", "alarm_event": "Event", "time_format": "Time format", "show_seconds": "Show seconds",
            "face_theme": "Face theme", "screen": "Screen",
            "start_meditation": "Start meditation", "meditation_minutes": "Meditation minutes", "meditation_interval": "Interval gongs",
            "meditation": "Meditation", "meditation_ends": "Meditation ends", "next_timer": "Next timer", "cancel_timers": "Cancel timers",
        ],
        alarmTime: "{label} time", intervalOff: "Off", intervalMinutes: "{minutes} min")

    /// The name of a component that is not per alarm; its key when the table lacks it (a test
    /// proves it never does).
    public func entity(_ key: String) -> String { entities[key] ?? key }

    public func alarmTime(label: String) -> String { alarmTime.replacing("{label}", with: label) }

    /// The select option for an interval of `minutes` (0: none).
    public func interval(_ minutes: Int) -> String {
        minutes == 0 ? intervalOff : intervalMinutes.replacing("{minutes}", with: String(minutes))
    }
}

/// The keys of countdown timers, guided meditations (SPEC §10) and Home Assistant's entity forms
/// (SPEC §6): `timers.*`, `meditations.*`, `homeassistant.*`.
extension Configuration {
    public struct Timers: Sendable, Hashable {
        /// How long a finished timer rings before it stops by itself.
        public var ringTimeoutSeconds: Int

        public init(ringTimeoutSeconds: Int = 60) {
            self.ringTimeoutSeconds = ringTimeoutSeconds
        }
    }

    public struct Meditations: Sendable, Hashable {
        /// A folder of the user's guided meditations (`.mp3`), read only; empty: none.
        public var directory: String

        public init(directory: String = "") {
            self.directory = directory
        }
    }

    public struct HomeAssistant: Sendable, Hashable {
        /// How an alarm's time appears: a `text` entity (`HH:MM` with a pattern), or the `time`
        /// platform of Home Assistant 2026.5 and later.
        public enum AlarmTimeEntity: String, Sendable, Hashable, CaseIterable { case text, time }

        public var alarmTimeEntity: AlarmTimeEntity

        public init(alarmTimeEntity: AlarmTimeEntity = .text) {
            self.alarmTimeEntity = alarmTimeEntity
        }
    }
}

extension ConfigurationSchema {
    static let sessionKeys: [ConfigKey] = [
        ConfigKey(path: "timers.ring_timeout_s", kind: .integer(5...3600), defaultValue: "60", secret: false),
        ConfigKey(path: "meditations.dir", kind: .text, defaultValue: "", secret: false),
        ConfigKey(
            path: "homeassistant.alarm_time_entity", kind: .choice(Configuration.HomeAssistant.AlarmTimeEntity.allCases.map(\.rawValue)),
            defaultValue: "text", secret: false),
    ]
}

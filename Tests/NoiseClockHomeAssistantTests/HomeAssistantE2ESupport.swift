import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// What the end-to-end tests against a real Home Assistant share: the entity ids Home Assistant
// derives from the node's discovery, and helpers to read its states.

/// The device name the node is given (NOISECLOCK_NODE_NAME); Home Assistant derives entity ids from it.
let deviceName = "NoiseClock E2E"
let prefix = "noiseclock_e2e"
let alarmLabel = "Wake up"

/// The entity id Home Assistant gives each component key: `<domain>.<device>_<English entity
/// name>`, in every language (the node asks for it with `object_id`).
let baseEntities: [String: String] = [
    "battery": "sensor.\(prefix)_battery",
    "charging": "binary_sensor.\(prefix)_charging",
    "next_alarm": "sensor.\(prefix)_next_alarm",
    "alarm_state": "sensor.\(prefix)_alarm",
    "ringing": "binary_sensor.\(prefix)_ringing",
    "snooze": "button.\(prefix)_snooze",
    "dismiss": "button.\(prefix)_dismiss",
    "noise": "switch.\(prefix)_noise",
    "noise_sound": "select.\(prefix)_noise_sound",
    "noise_volume": "number.\(prefix)_noise_volume",
    "sleep_timer": "number.\(prefix)_sleep_timer",
    "alarm_event": "event.\(prefix)_event",
    "time_format": "select.\(prefix)_time_format",
    "face_theme": "select.\(prefix)_face_theme",
    "screen": "light.\(prefix)_screen",
    "show_seconds": "switch.\(prefix)_show_seconds",
    "start_meditation": "button.\(prefix)_start_meditation",
    "meditation_minutes": "number.\(prefix)_meditation_minutes",
    "meditation_interval": "select.\(prefix)_interval_gongs",
    "meditation": "sensor.\(prefix)_meditation",
    "meditation_ends": "sensor.\(prefix)_meditation_ends",
    "next_timer": "sensor.\(prefix)_next_timer",
    "cancel_timers": "button.\(prefix)_cancel_timers",
    "language": "select.\(prefix)_language",
    "skip_holidays": "switch.\(prefix)_skip_holidays",
    "vacation_until": "text.\(prefix)_vacation_until",
    "wake": "sensor.\(prefix)_wake",
    "sunrise_min": "number.\(prefix)_sunrise",
    "wind_down": "button.\(prefix)_wind_down",
    "bedtime_time": "text.\(prefix)_bedtime",
    "bedtime": "sensor.\(prefix)_bedtime_phase",
    "kids": "switch.\(prefix)_kids_clock",
    "kids_state": "sensor.\(prefix)_kids_clock_state",
    "night_light": "light.\(prefix)_night_light",
    "illuminance": "sensor.\(prefix)_illuminance",
    "radio": "select.\(prefix)_radio",
    "radio_playing": "sensor.\(prefix)_radio_playing",
    "radio_volume": "number.\(prefix)_radio_volume",
    "announce": "notify.\(prefix)_announce",
    "say_time": "button.\(prefix)_say_the_time",
    "weather": "sensor.\(prefix)_weather",
    "weather_temperature": "sensor.\(prefix)_outside_temperature",
    "weather_feels_like": "sensor.\(prefix)_feels_like",
    "weather_low": "sensor.\(prefix)_low_today",
    "weather_high": "sensor.\(prefix)_high_today",
    "weather_precipitation": "sensor.\(prefix)_chance_of_precipitation",
    "weather_wind": "sensor.\(prefix)_wind_speed",
    "weather_updated": "sensor.\(prefix)_weather_updated",
    "calendar_work": "sensor.\(prefix)_calendar_work",
]
/// The room's light for the Illuminance sensor (`display.lux_topic`).
let luxTopic = "e2e/bedroom/illuminance"
let alarmSwitch = "switch.\(prefix)_wake_up"
/// The alarm's time, a text entity named "<label> time".
let alarmTimeText = "text.\(prefix)_wake_up_time"

func entity(_ key: String) -> String { baseEntities[key]! }

func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

/// 16-bit samples of a raw sink file (44.1 kHz stereo).
func samples(_ path: String) -> [Int16] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

func rms(_ window: ArraySlice<Int16>) -> Double {
    guard !window.isEmpty else { return 0 }
    return (window.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(window.count)).squareRoot()
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// How Home Assistant writes a timestamp sensor's state: the instant in UTC, `+00:00`.
func homeAssistantUTC(_ iso: String) -> String? {
    let parser = ISO8601DateFormatter()
    guard let date = parser.date(from: iso) else { return nil }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxx"
    return formatter.string(from: date)
}

func seconds(_ duration: Duration) -> String {
    String(format: "%.2f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
}

extension HomeAssistantCore {
    /// Waits until the entity's state object satisfies `predicate`; returns the last one seen (nil: no such entity).
    func waitState(_ entityID: String, timeout: Duration = .seconds(10), _ predicate: (JSONValue) -> Bool) async -> JSONValue? {
        var last: JSONValue?
        _ = await eventually(timeout: timeout) {
            last = try? await state(entityID)
            return last.map(predicate) ?? false
        }
        return last
    }

    func waitState(_ entityID: String, timeout: Duration = .seconds(10), is expected: String) async -> JSONValue? {
        await waitState(entityID, timeout: timeout) { $0["state"]?.stringValue == expected }
    }

    /// The entity ids of the node's device in Home Assistant's entity registry.
    func deviceEntities() async throws -> [String] {
        let text = try await render("{{ device_entities(device_id('\(entity("battery"))')) | tojson }}")
        return (try JSONValue.parse(Array(text.utf8))).arrayItems?.compactMap(\.stringValue) ?? []
    }

    /// `entity_id → state` for the node's entities in /api/states.
    func nodeStates() async throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for item in try await states() {
            if let id = item["entity_id"]?.stringValue, id.contains(".\(prefix)_") { result[id] = item }
        }
        return result
    }
}

func stateText(_ value: JSONValue?) -> String { value?["state"]?.stringValue ?? "<absent>" }

/// The shipped message catalog of `language` (Resources/i18n), for the names Home Assistant must show.
func shippedCatalog(_ language: Language) throws -> Catalog {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let path = root.appendingPathComponent("Resources/i18n/\(language.rawValue).json").path
    let data = try #require(FileManager.default.contents(atPath: path), "cannot read \(path)")
    return try Catalog(language: language, json: Array(data))
}

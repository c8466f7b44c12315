import Foundation
import NoiseClockCore
import Testing

@Suite("Home Assistant discovery payload (SPEC §6)")
struct HomeAssistantDiscoveryTests {
    static let topics = Topics(base: "noiseclock", nodeID: "bedroom")
    static let sounds = [("heavy-rain-white-noise", "Heavy rain"), ("pink-noise", "Pink noise"), ("odd", "Rock 'n' roll")]
    let discovery = HomeAssistantDiscovery(
        topics: Self.topics, prefix: "homeassistant", deviceName: "Bedroom clock", version: "9.9.9",
        noiseSounds: Self.sounds.map { Shipped.sound($0.0, $0.1) }, catalogs: Shipped.catalogs)

    var payload: JSONValue { discovery.payload(alarms: [.init(id: "a1b2c3d4", label: "Work")]) }
    var components: [String: JSONValue] { payload[member: "cmps"]?.objectValue ?? [:] }

    func component(_ key: String) throws -> [String: JSONValue] {
        try #require(components[key]?.objectValue, "no component \(key)")
    }

    @Test("goes to <prefix>/device/<node_id>/config; Home Assistant's birth is on <prefix>/status")
    func topicsOfDiscovery() {
        #expect(discovery.configTopic == "homeassistant/device/bedroom/config")
        #expect(discovery.statusTopic == "homeassistant/status")
    }

    @Test("the device, the origin and availability from B/availability")
    func device() throws {
        let device = try #require(payload[member: "dev"]?.objectValue)
        #expect(device["ids"] == ["noiseclock_bedroom"])
        #expect(device["name"] == "Bedroom clock")
        #expect(device["mf"] == "NoiseClock")
        #expect(device["sw"] == "9.9.9")
        #expect(device["mdl"]?.stringValue?.isEmpty == false)
        #expect(payload[member: "o"]?[member: "name"] == "NoiseClock")
        #expect(payload[member: "avty"] == [["t": "noiseclock/bedroom/availability", "pl_avail": "online", "pl_not_avail": "offline"]])
    }

    @Test("every component SPEC §6 lists is there, on its platform")
    func everyComponent() throws {
        let expected: [String: String] = [
            "battery": "sensor", "charging": "binary_sensor", "next_alarm": "sensor", "alarm_state": "sensor",
            "ringing": "binary_sensor", "snooze": "button", "dismiss": "button", "noise": "switch", "noise_sound": "select",
            "noise_volume": "number", "sleep_timer": "number", "alarm_event": "event", "alarm_a1b2c3d4": "switch",
            "alarm_a1b2c3d4_text": "text", "start_meditation": "button", "meditation_minutes": "number",
            "meditation_interval": "select", "meditation": "sensor", "meditation_ends": "sensor", "next_timer": "sensor",
            "cancel_timers": "button", "time_format": "select", "show_seconds": "switch", "face_theme": "select",
            "language": "select", "wake": "sensor", "sunrise_min": "number", "skip_holidays": "switch", "vacation_until": "text",
            "wind_down": "button", "bedtime_time": "text", "bedtime": "sensor", "kids": "switch", "kids_state": "sensor",
            "night_light": "light", "radio": "select", "radio_playing": "sensor", "radio_volume": "number",
            "announce": "notify", "say_time": "button",
        ]
        for (key, platform) in expected {
            #expect(try component(key)["p"] == .string(platform), "\(key)")
        }
        #expect(try component("battery")["device_class"] == "battery")
        #expect(try component("battery")["unit_of_measurement"] == "%")
        #expect(try component("charging")["device_class"] == "battery_charging")
        #expect(try component("next_alarm")["device_class"] == "timestamp")
        #expect(try component("next_alarm")["state_topic"] == "noiseclock/bedroom/alarm/next")
        #expect(try component("sleep_timer")["unit_of_measurement"] == "min")
    }

    @Test("the face theme select shows the face's theme names and sends a partial settings.face object; the Screen light exists only with a screen")
    func faceAndScreen() throws {
        let theme = try component("face_theme")
        #expect(theme["p"] == "select")
        #expect(theme["options"] == ["Night", "Day", "Red", "Custom"])
        #expect(theme["command_topic"] == "noiseclock/bedroom/cmd/settings")
        #expect(theme["command_template"] == "{{ {'face': {'theme': {'Night': 'night', 'Day': 'day', 'Red': 'red', 'Custom': 'custom'}[value]}} | tojson }}")
        #expect(theme["value_template"] == "{{ {'night': 'Night', 'day': 'Day', 'red': 'Red', 'custom': 'Custom'}.get(value_json.face.theme, 'None') }}")
        #expect(components["screen"] == nil, "no screen, no light")

        let withScreen = HomeAssistantDiscovery(
            topics: Self.topics, prefix: "homeassistant", deviceName: "Bedroom clock", version: "9.9.9", noiseSounds: [], screen: true,
            catalogs: Shipped.catalogs)
        let light = try #require(withScreen.payload(alarms: [])[member: "cmps"]?[member: "screen"]?.objectValue)
        #expect(light["p"] == "light")
        #expect(light["name"] == "Screen")
        #expect(light["command_topic"] == "noiseclock/bedroom/cmd/display/power")
        #expect(light["brightness_command_topic"] == "noiseclock/bedroom/cmd/display/brightness")
        #expect(light["state_topic"] == "noiseclock/bedroom/display")
        #expect(light["brightness_scale"] == 100)
        #expect(light["unique_id"] == "noiseclock_bedroom_screen")
    }

    @Test("the Illuminance sensor exists only with a light source (display.lux_topic), and reads B/display's lux")
    func illuminance() throws {
        #expect(components["illuminance"] == nil, "no light source, no sensor")
        let withLight = HomeAssistantDiscovery(
            topics: Self.topics, prefix: "homeassistant", deviceName: "Bedroom clock", version: "9.9.9", noiseSounds: [], lux: true,
            catalogs: Shipped.catalogs)
        let sensor = try #require(withLight.payload(alarms: [])[member: "cmps"]?[member: "illuminance"]?.objectValue)
        #expect(sensor["p"] == "sensor" && sensor["device_class"] == "illuminance" && sensor["unit_of_measurement"] == "lx")
        #expect(sensor["state_topic"] == "noiseclock/bedroom/display" && sensor["name"] == "Illuminance")
        #expect(sensor["value_template"] == "{{ value_json.lux if value_json.lux is not none else 'None' }}")
        #expect(sensor["object_id"] == "bedroom_clock_illuminance")
    }

    @Test("the Night light is Home Assistant's JSON light: RGB and a brightness of 1-100, sent to the nightlight verb, read from B/nightlight")
    func nightLight() throws {
        let light = try component("night_light")
        #expect(light["schema"] == "json" && light["brightness"] == true && light["brightness_scale"] == 100)
        #expect(light["supported_color_modes"] == ["rgb"])
        #expect(light["command_topic"] == "noiseclock/bedroom/cmd/nightlight" && light["state_topic"] == "noiseclock/bedroom/nightlight")
        // What it sends is what the verb takes, and what B/nightlight says is what it reads.
        let sent = try NightLight().applying(CommandArguments(["state": "ON", "brightness": 40, "color": ["r": 10, "g": 20, "b": 30]]), now: Date())
        let state = sent.json { _ in "" }
        #expect(state["state"] == "ON" && state["brightness"] == 40 && state["color_mode"] == "rgb" && state["color"] == ["r": 10, "g": 20, "b": 30])
    }

    @Test("each component has the keys its platform requires, a stable unique id, and asks for the entity id of its English name")
    func requiredKeys() throws {
        var uniqueIDs: Set<String> = []
        for (key, value) in components {
            let members = try #require(value.objectValue)
            let platform = try #require(members["p"]?.stringValue)
            let uniqueID = try #require(members["unique_id"]?.stringValue, "\(key)")
            #expect(uniqueID == "noiseclock_bedroom_\(key)")
            #expect(uniqueIDs.insert(uniqueID).inserted)
            #expect(members["name"]?.stringValue?.isEmpty == false, "\(key)")
            let objectID = try #require(members["object_id"]?.stringValue, "\(key)")
            #expect(objectID.hasPrefix("bedroom_clock_") && objectID.wholeMatch(of: /[a-z0-9_]+/) != nil, "\(key): \(objectID)")
            #expect(members["default_entity_id"] == .string("\(platform).\(objectID)"), "\(key)")
            switch platform {
            case "sensor", "binary_sensor", "event":
                #expect(members["state_topic"]?.stringValue?.hasPrefix("noiseclock/bedroom/") == true, "\(key)")
                #expect(members["value_template"]?.stringValue != nil, "\(key)")
            case "button", "notify":
                #expect(members["command_topic"]?.stringValue?.hasPrefix("noiseclock/bedroom/cmd/") == true, "\(key)")
            case "switch", "select", "number", "text", "light":
                #expect(members["command_topic"]?.stringValue?.hasPrefix("noiseclock/bedroom/cmd/") == true, "\(key)")
                #expect(members["state_topic"]?.stringValue?.hasPrefix("noiseclock/bedroom/") == true, "\(key)")
            default:
                Issue.record("unexpected platform \(platform) for \(key)")
            }
            if platform == "select" { #expect(members["options"]?.items.isEmpty == false, "\(key)") }
            if platform == "number" {
                let low = try #require(members["min"]?.intValue), high = try #require(members["max"]?.intValue)
                #expect(low < high && (members["step"]?.intValue ?? 0) > 0, "\(key)")
            }
            if platform == "event" { #expect(members["event_types"]?.items.isEmpty == false) }
        }
    }

    @Test("the noise select offers the catalog's names and plays what is chosen; its state maps ids back to names")
    func noiseSelect() throws {
        let select = try component("noise_sound")
        #expect(select["options"] == ["Heavy rain", "Pink noise", "Rock 'n' roll"])
        #expect(select["command_topic"] == "noiseclock/bedroom/cmd/noise/play")
        let template = try #require(select["value_template"]?.stringValue)
        #expect(template.contains("'heavy-rain-white-noise': 'Heavy rain'"))
        #expect(template.contains(#"'odd': 'Rock \'n\' roll'"#), "quotes escaped for Jinja: \(template)")
    }

    @Test("numbers have ranges and units; controls of the clock's settings are configuration entities")
    func numbersAndCategories() throws {
        let volume = try component("noise_volume")
        #expect(volume["min"] == 0 && volume["max"] == 100 && volume["unit_of_measurement"] == "%")
        #expect(volume["command_topic"] == "noiseclock/bedroom/cmd/noise/volume")
        let timer = try component("sleep_timer")
        #expect(timer["min"] == 0 && timer["max"] == 720)
        #expect(try component("time_format")["entity_category"] == "config")
        #expect(try component("show_seconds")["entity_category"] == "config")
        #expect(try component("battery")["entity_category"] == "diagnostic")
        #expect(try component("snooze")["entity_category"] == nil, "snooze belongs on the dashboard")
    }

    @Test("the event entity lists the alarm events of SPEC §2, the timer and meditation events of §10, the bedtime events of §13, the radio events of §15 and the speech events of §16, under its first unique id")
    func eventEntity() throws {
        let event = try component("alarm_event")
        #expect(event["event_types"] == [
            "alarm_upcoming", "alarm_ringing", "alarm_snoozed", "alarm_dismissed", "alarm_auto_silenced", "alarm_missed",
            "alarm_skipped", "alarm_escalated", "wake_sunrise", "wake_awake", "timer_finished", "timer_dismissed", "timer_missed",
            "meditation_started", "meditation_interval", "meditation_completed", "meditation_stopped",
            "bedtime_reminder", "bedtime_started", "bedtime_ended", "kids_ok",
            "radio_started", "radio_stopped", "radio_failed", "alarm_fallback", "alarm_failed",
            "speech_started", "speech_finished", "speech_dropped", "briefing",
        ])
        #expect(event["unique_id"] == "noiseclock_bedroom_alarm_event")
        #expect(event["name"] == "Event")
        // Only these events pass the template (others render empty, which Home Assistant ignores).
        let template = try #require(event["value_template"]?.stringValue)
        let listed = try #require(template.firstMatch(of: /value_json.event in \[([^\]]*)\]/)).1
        #expect(listed.split(separator: ", ").map { String($0).replacing("'", with: "") } == HomeAssistantDiscovery.eventTypes)
        #expect(template.contains("event_type=value_json.event"))
    }

    @Test("one switch per alarm, named after its label, switching alarm/ID/enabled; a removed alarm is sent as {\"p\":\"switch\"} alone")
    func alarmSwitches() throws {
        let alarm = try component("alarm_a1b2c3d4")
        #expect(alarm["name"] == "Work")
        #expect(alarm["command_topic"] == "noiseclock/bedroom/cmd/alarm/a1b2c3d4/enabled")
        #expect(alarm["state_topic"] == "noiseclock/bedroom/alarms")
        #expect(alarm["payload_on"] == "ON" && alarm["payload_off"] == "OFF")

        let after = discovery.payload(alarms: [.init(id: "e5f6a7b8", label: "Weekend")], removed: ["a1b2c3d4"])
        #expect(after[member: "cmps"]?[member: "alarm_a1b2c3d4"] == ["p": "switch"])
        #expect(after[member: "cmps"]?[member: "alarm_e5f6a7b8"]?[member: "name"] == "Weekend")
        // Removing an alarm that is still there removes nothing.
        let kept = discovery.payload(alarms: [.init(id: "a1b2c3d4", label: "Work")], removed: ["a1b2c3d4"])
        #expect(kept[member: "cmps"]?[member: "alarm_a1b2c3d4"]?[member: "name"] == "Work")
    }
}

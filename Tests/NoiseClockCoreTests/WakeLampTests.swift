import NoiseClockCore
import Testing

@Suite("Wake lamps (SPEC §12 wake.lights): their commands and their configuration")
struct WakeLampTests {
    @Test("Zigbee2MQTT and Home Assistant's JSON schema: ON, brightness of its full, a transition, colour temperature in mireds rising with the light")
    func jsonCommands() throws {
        let lamp = WakeLamp(topic: "zigbee2mqtt/lamp/set", schema: .zigbee2mqtt, maxBrightness: 254, colorTemperature: (2000, 4000), minIntervalSeconds: 20)
        let half = try JSONValue.parse(lamp.command(level: 0.5, transition: 20))
        #expect(half == ["state": "ON", "brightness": 127, "transition": 20, "color_temp": 333])
        let start = try JSONValue.parse(lamp.command(level: 0, transition: 20))
        #expect(start["brightness"] == 1, "on at the faintest, never 0 with ON")
        #expect(start["color_temp"] == 500, "2000 K")
        #expect(try JSONValue.parse(lamp.command(level: 1, transition: 1))["color_temp"] == 250, "4000 K")
        #expect(try JSONValue.parse(lamp.off) == ["state": "OFF"])
        let white = WakeLamp(topic: "home/lamp/set", schema: .homeassistant, maxBrightness: 255)
        #expect(try JSONValue.parse(white.command(level: 1, transition: 5)) == ["state": "ON", "brightness": 255, "transition": 5])
    }

    @Test("a bare level: 0-100, 0 for off")
    func level() {
        let lamp = WakeLamp(topic: "lamp/level", schema: .level, maxBrightness: 100)
        #expect(String(decoding: lamp.command(level: 0.184, transition: 20), as: UTF8.self) == "18")
        #expect(String(decoding: lamp.off, as: UTF8.self) == "0")
    }

    private func resolve(_ file: [String: String]) throws(ConfigurationError) -> ResolvedConfiguration {
        try ConfigurationSchema.resolve(file: file, fileName: "test.yaml", environment: [:], hostname: "host")
    }

    @Test("wake.lights from the file: defaults by schema, colour temperature as two kelvin values")
    func configuration() throws {
        let resolved = try resolve([
            "wake.lights[0].topic": "zigbee2mqtt/bedroom-lamp/set", "wake.lights[0].color_temp[0]": "2000",
            "wake.lights[0].color_temp[1]": "4000",
            "wake.lights[1].topic": "home/lamp/set", "wake.lights[1].schema": "homeassistant", "wake.lights[1].min_interval_s": "10",
            "wake.lights[2].topic": "lamp/level", "wake.lights[2].schema": "level",
        ])
        let lamps = resolved.configuration.wake.lights
        #expect(lamps.map(\.topic) == ["zigbee2mqtt/bedroom-lamp/set", "home/lamp/set", "lamp/level"])
        #expect(lamps.map(\.maxBrightness) == [254, 255, 100])
        #expect(lamps.map(\.minIntervalSeconds) == [20, 10, 20])
        #expect(lamps[0].colorTemperature?.start == 2000 && lamps[0].colorTemperature?.end == 4000)
        #expect(lamps[1].colorTemperature == nil)
        #expect(resolved.unknownKeys.isEmpty)
        #expect(resolved.values.contains { $0.key.path == "wake.lights[0].color_temp" && $0.value == "[2000, 4000]" })
        #expect(try resolve(["wake.lights": ""]).configuration.wake.lights.isEmpty)
    }

    @Test("a lamp that cannot work is refused naming the field", arguments: [
        (["wake.lights[0].schema": "level"], "wake.lights[0].topic"),
        (["wake.lights[0].topic": "z/+/set"], "wake.lights[0].topic"),
        (["wake.lights[0].topic": "z/l/set", "wake.lights[0].schema": "hue"], "wake.lights[0].schema"),
        (["wake.lights[0].topic": "z/l/set", "wake.lights[0].min_interval_s": "0"], "wake.lights[0].min_interval_s"),
        (["wake.lights[0].topic": "z/l/set", "wake.lights[0].max_brightness": "lots"], "wake.lights[0].max_brightness"),
        (["wake.lights[0].topic": "z/l/set", "wake.lights[0].color_temp[0]": "2000"], "wake.lights[0].color_temp"),
        (["wake.lights[0].topic": "z/l/set", "wake.lights[0].color_temp[0]": "200", "wake.lights[0].color_temp[1]": "4000"],
         "wake.lights[0].color_temp"),
    ])
    func refused(file: [String: String], key: String) throws {
        let error = try #require(throws: ConfigurationError.self) { try resolve(file) }
        #expect(error.key == key)
    }

    @Test("a field a lamp does not have is an unknown key")
    func unknown() throws {
        #expect(try resolve(["wake.lights[0].topic": "z/l/set", "wake.lights[0].colour": "warm"]).unknownKeys == ["wake.lights[0].colour (in test.yaml)"])
    }
}

import NoiseClockCore
import Testing

@Suite("Configuration: timers, guided meditations, Home Assistant's alarm time entity (SPEC §6, §10)")
struct SessionConfigurationTests {
    private func resolve(_ environment: [String: String] = [:], file: [String: String] = [:]) throws(ConfigurationError) -> Configuration {
        try ConfigurationSchema.resolve(file: file, fileName: "test.yaml", environment: environment, hostname: "host").configuration
    }

    @Test("defaults: timers ring 60 s, no meditation folder, a text entity for alarm times")
    func defaults() throws {
        let configuration = try resolve()
        #expect(configuration.timers == .init(ringTimeoutSeconds: 60))
        #expect(configuration.meditations == .init(directory: ""))
        #expect(configuration.homeAssistant == .init(alarmTimeEntity: .text))
    }

    @Test("from the file and from the environment")
    func keys() throws {
        let configuration = try resolve(
            ["NOISECLOCK_HOMEASSISTANT_ALARM_TIME_ENTITY": "time"],
            file: ["timers.ring_timeout_s": "120", "meditations.dir": "/srv/meditations"])
        #expect(configuration.timers.ringTimeoutSeconds == 120)
        #expect(configuration.meditations.directory == "/srv/meditations")
        #expect(configuration.homeAssistant.alarmTimeEntity == .time)
    }

    @Test("bad values name their key", arguments: [
        ("timers.ring_timeout_s", "0"), ("timers.ring_timeout_s", "3601"), ("timers.ring_timeout_s", "soon"),
        ("homeassistant.alarm_time_entity", "datetime"),
    ])
    func badValues(key: String, value: String) throws {
        let error = try #require(throws: ConfigurationError.self) { try resolve(file: [key: value]) }
        #expect(error.key == key)
        #expect(error.source == "test.yaml")
    }
}

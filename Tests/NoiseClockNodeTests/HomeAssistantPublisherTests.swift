import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import Testing

@testable import NoiseClockNode

@Suite("Home Assistant discovery in the node")
@NodeActor
struct HomeAssistantPublisherTests {
    static let configTopic = "homeassistant/device/kitchen/config"

    func discoveryPayloads(_ f: AlarmFixture) -> [JSONValue] {
        f.transport.published(on: Self.configTopic).compactMap(\.json)
    }

    /// The keys of the components on `platform` that are per alarm (`alarm_<id>`, `alarm_<id>_text`).
    func alarmKeys(_ payload: JSONValue?, _ platform: String = "switch") -> Set<String> {
        Set((payload?["cmps"]?.objectValue ?? [:]).filter { key, value in
            key.hasPrefix("alarm_") && key != "alarm_state" && key != "alarm_event" && value["p"]?.stringValue == platform
        }.keys)
    }

    func switchKeys(_ payload: JSONValue?) -> Set<String> { alarmKeys(payload) }

    @Test("published retained at start, with the catalog's noise names in the select")
    func atStart() async throws {
        let f = try await AlarmFixture()
        let messages = f.transport.published(on: Self.configTopic)
        #expect(messages.count == 1)
        #expect(messages.first?.retain == true)
        let options = messages.first?.json?["cmps"]?["noise_sound"]?["options"]?.items.compactMap(\.stringValue) ?? []
        #expect(options == f.library.catalog.sounds(of: .noise).map(\.name))
        #expect(options.contains("Heavy rain"))
        let components = messages.first?.json?["cmps"]?.objectValue ?? [:]
        for key in ["start_meditation", "meditation_minutes", "meditation_interval", "meditation", "meditation_ends", "next_timer", "cancel_timers"] {
            #expect(components[key]?["unique_id"] == .string("noiseclock_kitchen_\(key)"), "\(key)")
        }
        #expect(f.node.subscriptions.contains("homeassistant/status"))
    }

    @Test("an alarm added gets a switch named after its label; renamed, it is renamed; deleted, it is sent once as {\"p\":\"switch\"} and then left out")
    func alarmSwitchLifecycle() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"07:00","label":"Work"}"#)
        let added = discoveryPayloads(f).last
        #expect(switchKeys(added) == ["alarm_\(id)"])
        #expect(added?["cmps"]?["alarm_\(id)"]?["name"] == "Work")

        try await f.ok("alarm/update", #"{"id":"\#(id)","label":"Early"}"#)
        #expect(discoveryPayloads(f).last?["cmps"]?["alarm_\(id)"]?["name"] == "Early")
        let count = discoveryPayloads(f).count
        try await f.ok("alarm/update", #"{"id":"\#(id)","volume":40}"#)
        #expect(discoveryPayloads(f).count == count, "a change that leaves the switches alone publishes no discovery")

        let (other, _) = try await f.add(#"{"time":"09:00","label":"Late"}"#)
        try await f.ok("alarm/delete", #"{"id":"\#(id)"}"#)
        let removal = discoveryPayloads(f).last
        #expect(removal?["cmps"]?["alarm_\(id)"] == ["p": "switch"])
        #expect(removal?["cmps"]?["alarm_\(other)"]?["name"] == "Late")

        try await f.ok("alarm/update", #"{"id":"\#(other)","label":"Later"}"#)
        #expect(switchKeys(discoveryPayloads(f).last) == ["alarm_\(other)"])
    }

    @Test("each alarm's text entity comes and goes with it: named after its label, its time from B/alarms; a deleted one is sent once as {\"p\":\"text\"}")
    func alarmTimeTextLifecycle() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"07:00","label":"Work"}"#)
        let added = discoveryPayloads(f).last
        #expect(alarmKeys(added, "text") == ["alarm_\(id)_text"])
        let text = added?["cmps"]?["alarm_\(id)_text"]
        #expect(text?["name"] == "Work time")
        #expect(text?["command_topic"] == .string(f.topics.command("alarm/\(id)/time")))
        #expect(text?["state_topic"] == .string(f.topics.alarms))
        #expect(text?["unique_id"] == .string("noiseclock_kitchen_alarm_\(id)_text"))

        // The entity's command: the time changes in B/alarms, and the discovery stays as it was.
        let count = discoveryPayloads(f).count
        let response = await f.respond("alarm/\(id)/time", "06:45")
        #expect(response.isOK, "\(response.json.serialized)")
        #expect(f.publishedAlarm(id)?["time"] == "06:45")
        #expect(discoveryPayloads(f).count == count, "a new time is state, not discovery")

        try await f.ok("alarm/update", #"{"id":"\#(id)","label":"Early"}"#)
        #expect(discoveryPayloads(f).last?["cmps"]?["alarm_\(id)_text"]?["name"] == "Early time")

        let (other, _) = try await f.add(#"{"time":"09:00","label":"Late"}"#)
        try await f.ok("alarm/delete", #"{"id":"\#(id)"}"#)
        let removal = discoveryPayloads(f).last
        #expect(removal?["cmps"]?["alarm_\(id)_text"] == ["p": "text"])
        #expect(removal?["cmps"]?["alarm_\(id)"] == ["p": "switch"])
        #expect(removal?["cmps"]?["alarm_\(other)_text"]?["name"] == "Late time")

        try await f.ok("alarm/update", #"{"id":"\#(other)","label":"Later"}"#)
        let after = discoveryPayloads(f).last
        #expect(alarmKeys(after, "text") == ["alarm_\(other)_text"], "the removal went out once")
        #expect(after?["cmps"]?["alarm_\(id)_text"] == nil)
    }

    @Test("with homeassistant.alarm_time_entity time each alarm gets a time entity, removed as {\"p\":\"time\"}; its HH:MM:SS sets the alarm")
    func alarmTimePlatform() async throws {
        let f = try await AlarmFixture(configuration: ["homeassistant.alarm_time_entity": "time"])
        let (id, _) = try await f.add(#"{"time":"07:00","label":"Work"}"#)
        let added = discoveryPayloads(f).last
        #expect(alarmKeys(added, "time") == ["alarm_\(id)_time"])
        #expect(alarmKeys(added, "text").isEmpty)
        #expect(added?["cmps"]?["alarm_\(id)_time"]?["name"] == "Work time")
        #expect(added?["cmps"]?["alarm_\(id)_time"]?["command_topic"] == .string(f.topics.command("alarm/\(id)/time")))

        // What Home Assistant's time platform sends: the time in ISO form, with seconds.
        let response = await f.respond("alarm/\(id)/time", "06:15:00")
        #expect(response.isOK, "\(response.json.serialized)")
        #expect(f.publishedAlarm(id)?["time"] == "06:15")

        try await f.ok("alarm/delete", #"{"id":"\#(id)"}"#)
        #expect(discoveryPayloads(f).last?["cmps"]?["alarm_\(id)_time"] == ["p": "time"])
    }

    @Test("online on homeassistant/status: discovery and every retained state go out again; other payloads do nothing")
    func birth() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"07:00","label":"Work"}"#)
        let service = CommandService(
            transport: f.transport, topics: f.topics, router: f.node.router, logger: f.logs.logger(), otherTopics: f.node.otherTopics)
        let before = discoveryPayloads(f).count

        await service.handle(MQTTMessage(topic: "homeassistant/status", text: "offline"))
        #expect(discoveryPayloads(f).count == before)
        #expect(f.transport.republished == 0)

        await service.handle(MQTTMessage(topic: "homeassistant/status", text: "online"))
        #expect(discoveryPayloads(f).count == before + 1)
        #expect(switchKeys(discoveryPayloads(f).last) == ["alarm_\(id)"])
        #expect(alarmKeys(discoveryPayloads(f).last, "text") == ["alarm_\(id)_text"])
        #expect(f.transport.republished == 1)
        // Not a command: nothing is answered.
        #expect(f.transport.published.filter { $0.topic.contains("/response/") }.isEmpty)
    }

    @Test("the settings verb's language renames every entity: discovery again in German with the same unique and entity ids, then every state; another setting or the same language publishes none")
    func languageChange() async throws {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"07:00","label":"Work"}"#)
        let english = try #require(discoveryPayloads(f).last)
        #expect(english["cmps"]?["battery"]?["name"] == "Battery")
        let count = discoveryPayloads(f).count, republished = f.transport.republished

        try await f.ok("settings", #"{"show_seconds":true}"#)
        #expect(discoveryPayloads(f).count == count, "another setting publishes no discovery")

        try await f.ok("settings", #"{"language":"de"}"#)
        #expect(discoveryPayloads(f).count == count + 1)
        let german = try #require(discoveryPayloads(f).last)
        #expect(german["cmps"]?["battery"]?["name"] == "Akku")
        #expect(german["cmps"]?["language"]?["name"] == "Sprache")
        #expect(german["cmps"]?["alarm_\(id)"]?["name"] == "Work")
        #expect(german["cmps"]?["alarm_\(id)_text"]?["name"] == "Work Uhrzeit")
        #expect(german["cmps"]?["time_format"]?["options"] == ["24 Stunden", "12 Stunden"])
        #expect(german["cmps"]?["noise_sound"]?["options"]?.items.contains("Starker Regen") == true)
        let englishComponents = try #require(english["cmps"]?.objectValue)
        #expect(Set((german["cmps"]?.objectValue ?? [:]).keys) == Set(englishComponents.keys))
        for (key, component) in englishComponents {
            #expect(german["cmps"]?[key]?["unique_id"] == component["unique_id"], "\(key)")
            #expect(german["cmps"]?[key]?["default_entity_id"] == component["default_entity_id"], "\(key)")
        }
        #expect(f.transport.republished == republished + 1, "every state again, so the selects show their German options")
        // B/settings with the new language went out first, then the discovery it renamed.
        let topics = f.transport.published.map(\.topic)
        let settings = try #require(topics.lastIndex(of: f.topics.settings)), discovery = try #require(topics.lastIndex(of: Self.configTopic))
        #expect(settings < discovery)

        try await f.ok("settings", #"{"language":"de","show_seconds":false}"#)
        #expect(discoveryPayloads(f).count == count + 1, "the same language again publishes no discovery")
        #expect(f.transport.republished == republished + 1)
        #expect(f.node.homeAssistant?.discovery.language == .de)

        // Later payloads (an alarm renamed, Home Assistant's birth) are in the language in force.
        try await f.ok("alarm/update", #"{"id":"\#(id)","label":"Früh"}"#)
        #expect(discoveryPayloads(f).last?["cmps"]?["alarm_\(id)_text"]?["name"] == "Früh Uhrzeit")
        f.node.homeAssistant?.homeAssistantAnnounced()
        #expect(discoveryPayloads(f).last?["cmps"]?["next_alarm"]?["name"] == "Nächster Wecker")

        try await f.ok("settings", #"{"language":"en"}"#)
        #expect(discoveryPayloads(f).last?["cmps"]?["next_alarm"]?["name"] == "Next alarm")
        #expect(discoveryPayloads(f).last?["cmps"]?["alarm_\(id)_text"]?["name"] == "Früh time")
    }

    @Test("the radio's stations are the Radio select's options: a new or renamed station publishes the discovery again, a new address does not")
    func stationsChange() async throws {
        let f = try await AlarmFixture()
        let publisher = try #require(f.node.homeAssistant)
        func options() -> [String] { discoveryPayloads(f).last?["cmps"]?["radio"]?["options"]?.items.compactMap(\.stringValue) ?? [] }
        #expect(options() == ["Off"])
        let count = discoveryPayloads(f).count
        let dlf = RadioStation(id: "dlf", name: "Deutschlandfunk", url: "https://example.org/dlf.mp3")
        publisher.stationsChanged([dlf])
        #expect(discoveryPayloads(f).count == count + 1)
        #expect(options() == ["Off", "Deutschlandfunk"])
        #expect(discoveryPayloads(f).last?["cmps"]?["radio"]?["command_template"]?.stringValue?.contains("'Deutschlandfunk': 'dlf'") == true)

        publisher.stationsChanged([RadioStation(id: "dlf", name: "Deutschlandfunk", url: "https://example.org/other.mp3", fallback: nil)])
        #expect(discoveryPayloads(f).count == count + 1, "a new address is B/radio's, not the select's")
        publisher.stationsChanged([RadioStation(id: "dlf", name: "DLF", url: dlf.url)])
        #expect(options() == ["Off", "DLF"])
        publisher.stationsChanged([])
        #expect(options() == ["Off"])
        #expect(discoveryPayloads(f).count == count + 3)

        // Later payloads (the language, Home Assistant's birth) keep the stations.
        publisher.stationsChanged([dlf])
        try await f.ok("settings", #"{"language":"de"}"#)
        #expect(options() == ["Aus", "Deutschlandfunk"])
        publisher.homeAssistantAnnounced()
        #expect(options() == ["Aus", "Deutschlandfunk"])
    }

    @Test("with node.language de the first discovery is German, with the entity ids of the English names")
    func germanAtStart() async throws {
        let f = try await AlarmFixture(configuration: ["node.language": "de"])
        let messages = f.transport.published(on: Self.configTopic)
        #expect(messages.count == 1)
        let components = try #require(messages.first?.json?["cmps"]?.objectValue)
        #expect(components["next_alarm"]?["name"] == "Nächster Wecker")
        #expect(components["meditation_interval"]?["options"] == ["Aus", "3 Min.", "5 Min.", "10 Min."])
        let english = try await AlarmFixture()
        let englishComponents = try #require(english.transport.published(on: Self.configTopic).first?.json?["cmps"]?.objectValue)
        for (key, component) in englishComponents {
            #expect(components[key]?["object_id"] == component["object_id"], "\(key)")
        }
        #expect(components["next_alarm"]?["object_id"]?.stringValue?.hasSuffix("_next_alarm") == true)
    }

    @Test("with mqtt.discovery false nothing goes to the discovery prefix and homeassistant/status is not subscribed")
    func discoveryOff() async throws {
        let f = try await AlarmFixture(configuration: ["mqtt.discovery": "false"])
        try await f.add(#"{"time":"07:00"}"#)
        #expect(f.transport.published.filter { $0.topic.hasPrefix("homeassistant/") }.isEmpty)
        #expect(f.node.homeAssistant == nil)
        #expect(!f.node.subscriptions.contains("homeassistant/status"))
    }

    @Test("a custom discovery prefix is used for both the payload and the status topic")
    func customPrefix() async throws {
        let f = try await AlarmFixture(configuration: ["mqtt.discovery_prefix": "ha"])
        #expect(f.transport.published(on: "ha/device/kitchen/config").count == 1)
        #expect(f.node.subscriptions.contains("ha/status"))
    }
}

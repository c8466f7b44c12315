import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// SPEC §11 in the real Home Assistant, a part of the one end-to-end run: the node switched to
// German through Home Assistant's own Language select, and a second node configured in German from
// its start. Names and options must be German, entity ids those of the English names, states codes.

/// The second node's device name: not `NoiseClock E2E`, whose entity ids `nodeStates()` collects.
private let germanDevice = "Nachttisch"

extension HomeAssistantE2ETests {
    /// The running node (Pink noise playing, 12-hour format, red theme, 5-minute gongs) switched to
    /// German with the Sprache select: every friendly name German, every entity id as it was, the
    /// selects' states in their German options; then a German noise option and time format option
    /// drive the node.
    func switchToGerman(_ ha: HomeAssistantCore, client: TestClient, topics: Topics, sink: String) async throws {
        let german = try shippedCatalog(.de)
        // Home Assistant sends its birth message once discovery has been quiet for 5 s (which the
        // steps above never are), and the node answers it with every state. Switch after it, so
        // that what brings the German options is the node's own re-send after the new discovery.
        let birth = await client.waitFor("homeassistant/status", timeout: .seconds(30)) { $0.text == "online" }
        try #require(birth != nil, "no birth message from Home Assistant")
        let answered = await eventually {
            let messages = client.messages
            guard let online = messages.firstIndex(where: { $0.topic == "homeassistant/status" && $0.text == "online" }) else { return false }
            return messages[online...].contains { $0.topic == topics.settings }
        }
        #expect(answered, "the node did not answer the birth message")
        let births = client.messages(on: "homeassistant/status").count
        let idsBefore = Set(try await ha.deviceEntities())
        let switched = ContinuousClock.now
        try await ha.callService("select", "select_option", ["entity_id": .string(entity("language")), "option": "Deutsch"])
        #expect(await client.latest(topics.settings) { $0["language"] == "de" } != nil, "B/settings \(client.latest(topics.settings)?.serialized ?? "none")")

        // Every entity renamed, none re-created: the entity ids are those of the English names.
        func friendlyName(_ key: String) -> String {
            key == calendarKey ? "\(deviceName) \(german.text("ha.calendar_feed", ["feed": calendarFeed]))" : "\(deviceName) \(german.text("ha.\(key)"))"
        }
        for (key, id) in baseEntities.sorted(by: { $0.key < $1.key }) {
            let state = await ha.waitState(id) { $0["attributes"]?["friendly_name"]?.stringValue == friendlyName(key) }
            #expect(state?["attributes"]?["friendly_name"]?.stringValue == friendlyName(key), "\(id)")
        }
        let renamed = ContinuousClock.now - switched
        #expect(Set(try await ha.deviceEntities()) == idsBefore, "entity ids changed with the language")
        #expect(Set(try await ha.nodeStates().keys) == Set(baseEntities.values))
        #expect(stateText(try await ha.state(entity("battery"))) != "unavailable")

        // The selects show their state in German at once (the node sent its states again after the discovery).
        let shownInGerman = [
            "language": "Deutsch", "time_format": "12 Stunden", "face_theme": "Rot", "meditation_interval": "5 Min.",
            "noise_sound": "Rosa Rauschen", "radio": "Aus", "radio_playing": "Aus",
        ]
        for (key, option) in shownInGerman.sorted(by: { $0.key < $1.key }) {
            #expect(stateText(await ha.waitState(entity(key), is: option)) == option, "\(entity(key))")
        }
        let shown = ContinuousClock.now - switched
        #expect(client.messages(on: "homeassistant/status").count == births, "Home Assistant asked for the states again itself")
        let formats = try await ha.state(entity("time_format"))?["attributes"]?["options"]?.arrayItems?.compactMap(\.stringValue)
        #expect(formats == ["24 Stunden", "12 Stunden"])
        // The weather's condition in German: its name in the node's language.
        #expect(stateText(await ha.waitState(entity("weather"), is: "Leichter Regen")) == "Leichter Regen")
        // Enum sensors keep the node's codes, so automations written in English still match.
        #expect(stateText(try await ha.state(entity("alarm_state"))) == "idle")
        #expect(stateText(try await ha.state(entity("meditation"))) == "idle")
        print("[ha-e2e] select.select_option Sprache → Deutsch: \(baseEntities.count) entities renamed in \(seconds(renamed)), entity ids unchanged, selects in German options in \(seconds(shown))")

        // A German noise option plays that sound.
        try await ha.callService("select", "select_option", ["entity_id": .string(entity("noise_sound")), "option": "Meereswellen"])
        let waves = await client.latest(topics.noise) { $0["playing"] == true && $0["sounds"]?.arrayItems?.first?["id"] == "ocean-waves" }
        #expect(waves != nil, "B/noise \(client.latest(topics.noise)?.serialized ?? "none")")
        #expect(stateText(await ha.waitState(entity("noise_sound"), is: "Meereswellen")) == "Meereswellen")
        let size = fileSize(sink)
        #expect(await eventually { fileSize(sink) > size + 88_200 }, "the sink did not grow by 0.5 s")
        let loudness = rms(samples(sink).suffix(44_100))
        #expect(loudness > 50, "the last 0.5 s of the sink is silent (RMS \(loudness))")

        // The time format through its German option.
        try await ha.callService("select", "select_option", ["entity_id": .string(entity("time_format")), "option": "24 Stunden"])
        #expect(await client.latest(topics.settings) { $0["time_format"] == "24h" } != nil)
        #expect(stateText(await ha.waitState(entity("time_format"), is: "24 Stunden")) == "24 Stunden")
        print("[ha-e2e] German options: Meereswellen → B/noise ocean-waves (RMS \(Int(loudness))), 24 Stunden → time_format 24h")
    }

    /// A node configured in German (`NOISECLOCK_NODE_LANGUAGE=de`) first discovered by Home
    /// Assistant: German friendly names, and the entity ids English names give (`…_battery`, not
    /// `…_akku`).
    func germanFromTheStart(_ ha: HomeAssistantCore, broker: Broker, environment: [String: String], directory: String) async throws {
        let german = try shippedCatalog(.de)
        var environment = environment.merging([
            "NOISECLOCK_NODE_NAME": germanDevice, "NOISECLOCK_NODE_LANGUAGE": "de", "NOISECLOCK_AUDIO_DEVICE": "file:'\(directory)/de.raw',raw",
        ]) { _, new in new }
        environment["NOISECLOCK_DISPLAY_BACKLIGHT"] = nil
        // Without a screen there is no Screen light; without the first node's file no calendar.
        let expected = baseEntities.filter { $0.key != "screen" && $0.key != calendarKey }.mapValues { $0.replacing("\(prefix)_", with: "\(HomeAssistantDiscovery.slug(germanDevice))_") }
        let nodeID = "e2e-de-\(UUID().uuidString.prefix(4).lowercased())"
        try await withNode(on: broker, nodeID: nodeID, environment: environment) { node, process, client in
            var seen: [String: JSONValue] = [:]
            let discovered = await eventually(timeout: .seconds(30)) {
                seen = [:]
                for item in (try? await ha.states()) ?? [] {
                    if let id = item["entity_id"]?.stringValue, expected.values.contains(id) { seen[id] = item }
                }
                return seen.count == expected.count && seen.values.allSatisfy { stateText($0) != "unavailable" }
            }
            let missing = expected.values.filter { seen[$0] == nil }.sorted()
            try #require(discovered, "missing: \(missing); node log:\n\(process.log.suffix(2000))")
            for (key, id) in expected {
                #expect(seen[id]?["attributes"]?["friendly_name"]?.stringValue == "\(germanDevice) \(german.text("ha.\(key)"))", "\(id)")
            }
            let registered = try await ha.render("{{ device_entities(device_id('\(expected["battery"] ?? "")')) | tojson }}")
            let ids = (try JSONValue.parse(Array(registered.utf8))).arrayItems?.compactMap(\.stringValue) ?? []
            #expect(Set(ids) == Set(expected.values), "device_entities: \(ids.sorted())")
            #expect(!ids.contains { $0.contains("akku") || $0.contains("sprache") }, "entity ids from German names: \(ids)")
            #expect(stateText(await ha.waitState(expected["language"] ?? "", is: "Deutsch")) == "Deutsch")
            #expect(stateText(await ha.waitState(expected["time_format"] ?? "", is: "24 Stunden")) == "24 Stunden")
            #expect(stateText(await ha.waitState(expected["alarm_state"] ?? "", is: "idle")) == "idle")
            #expect(client.latest(node.topics.settings)?["language"] == "de")
            print("[ha-e2e] a node in German from its start: \(ids.count) entities, e.g. \(expected["battery"] ?? "") \"\(german.text("ha.battery"))\"")
        }
    }
}

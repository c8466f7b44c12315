import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// SPEC §15's entities in the real Home Assistant, a part of the one end-to-end run: the radio's
// templates rendered by Home Assistant's own engine, then the Radio select, the Radio playing
// sensor and the Radio volume number driven through its services, against a real Icecast fed a
// tone by ffmpeg, and a station added over MQTT that Home Assistant offers at once.

/// The node's file's station: the Icecast mount `mp3`.
let radioStation = (id: "test", name: "Test FM")

/// The node's file with `radioStation` on `icecast`.
func radioConfiguration(_ icecast: Icecast) -> String {
    "radio:\n  buffer_s: 2\n  stations:\n    - {id: \(radioStation.id), name: \"\(radioStation.name)\", url: \"\(icecast.url("mp3"))\"}\n"
}

/// `value` as a Jinja string literal in single quotes.
private func quoted(_ value: String) -> String {
    "'" + value.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
}

/// A template of the node's discovery rendered by Home Assistant with `value_json` (and `value`) set.
private func render(_ ha: HomeAssistantCore, _ template: String, json: String, value: String? = nil) async throws -> String {
    let setValue = value.map { "{% set value = \(quoted($0)) %}" } ?? ""
    return try await ha.render("{% set value_json = \(quoted(json)) | from_json %}" + setValue + template)
}

extension HomeAssistantE2ETests {
    /// The radio's templates through Home Assistant's own engine, with `B/radio` as the node writes it.
    func radioTemplates(_ ha: HomeAssistantCore, discovery: JSONValue) async throws {
        let components = try #require(discovery["cmps"], "no cmps in the discovery payload")
        func template(_ key: String, _ member: String) throws -> String {
            try #require(components[key]?[member]?.stringValue, "\(key).\(member)")
        }
        var state = RadioState()
        func bRadio() -> String {
            state.json(stations: [RadioStation(id: radioStation.id, name: radioStation.name, url: "http://127.0.0.1:1/")]) { _ in "" }
                .serialized
        }
        let showSelect = try template("radio", "value_template"), showSensor = try template("radio_playing", "value_template")
        #expect(try await render(ha, showSelect, json: bRadio()) == "Off")
        #expect(try await render(ha, showSensor, json: bRadio()) == "Off")
        state.phase = .connecting
        state.station = radioStation.id
        state.name = radioStation.name
        #expect(try await render(ha, showSelect, json: bRadio()) == radioStation.name)
        #expect(try await render(ha, showSensor, json: bRadio()) == radioStation.name)
        state.nowPlaying = "Morning Show"
        #expect(try await render(ha, showSensor, json: bRadio()) == "Morning Show")
        state.phase = .failed
        state.error = "connection refused"
        #expect(try await render(ha, showSelect, json: bRadio()) == "Off", "a failed station is not playing")
        let attributes = try await render(ha, try template("radio_playing", "json_attributes_template"), json: bRadio())
        #expect((try? JSONValue.parse(Array(attributes.utf8)))?["error"] == "connection refused", "\(attributes)")
        // An address played as it is: no option names it.
        state = RadioState()
        state.phase = .playing
        state.name = "127.0.0.1"
        #expect(try await render(ha, showSelect, json: bRadio()) == "None")

        let send = try template("radio", "command_template")
        func sent(_ option: String) async throws -> JSONValue? {
            try? JSONValue.parse(Array(try await render(ha, send, json: "{}", value: option).utf8))
        }
        #expect(try await sent(radioStation.name) == ["station": .string(radioStation.id)])
        #expect(try await sent("Off") == ["station": .null])
    }

    /// The radio's entities driven from Home Assistant: a station chosen plays at the sink, its
    /// title reaches the sensor, the volume number reaches `B/radio`, a station added over MQTT
    /// is offered at once, and off stops the radio.
    func radioEntities(_ ha: HomeAssistantCore, client: TestClient, topics: Topics, icecast: Icecast, sink: String) async throws {
        let radio = topics.state(StateTopic.radio)
        func options() async -> [String] {
            (try? await ha.state(entity("radio")))?["attributes"]?["options"]?.arrayItems?.compactMap(\.stringValue) ?? []
        }
        #expect(await options() == ["Off", radioStation.name])

        // The file's station, chosen in Home Assistant: B/radio plays it; the select and the sensor say so.
        let size = fileSize(sink)
        try await ha.callService("select", "select_option", ["entity_id": .string(entity("radio")), "option": .string(radioStation.name)])
        let playing = await client.latest(radio) { $0["state"] == "playing" && $0["station"] == .string(radioStation.id) }
        #expect(playing?["codec"] == "mp3", "B/radio \(client.latest(radio)?.serialized ?? "none")")
        #expect(stateText(await ha.waitState(entity("radio"), is: radioStation.name)) == radioStation.name)
        let sensor = await ha.waitState(entity("radio_playing")) { $0["attributes"]?["state"] == "playing" }
        #expect(stateText(sensor) == radioStation.name, "\(sensor?.serialized ?? "none")")
        #expect(sensor?["attributes"]?["station"] == .string(radioStation.id) && sensor?["attributes"]?["codec"] == "mp3")
        let started = await ha.waitState(entity("alarm_event")) { $0["attributes"]?["event_type"] == "radio_started" }
        #expect(started?["attributes"]?["station"] == .string(radioStation.id), "event entity \(started?.serialized ?? "none")")
        #expect(await eventually { fileSize(sink) > size + 176_400 }, "the sink got less than 1 s of the station")
        let loudness = rms(samples(sink).suffix(44_100))
        #expect(loudness > 50, "the last 0.5 s of the sink is silent (RMS \(loudness))")

        // Its title, from the stream's ICY metadata.
        try await icecast.setTitle("mp3", "Morning Show")
        let titled = await ha.waitState(entity("radio_playing"), timeout: .seconds(20), is: "Morning Show")
        #expect(stateText(titled) == "Morning Show" && titled?["attributes"]?["now_playing"] == "Morning Show")

        // The volume number.
        try await ha.callService("number", "set_value", ["entity_id": .string(entity("radio_volume")), "value": 30])
        #expect(await client.latest(radio) { $0["volume"] == 30 }?["volume"] == 30)
        #expect(Double(stateText(await ha.waitState(entity("radio_volume")) { Double($0["state"]?.stringValue ?? "") == 30 })) == 30)
        print("[ha-e2e] select.select_option Radio → \(radioStation.name): B/radio playing mp3 (sink RMS \(Int(loudness))), sensor \"Morning Show\", volume 30")

        // A station added over MQTT is offered at once; chosen, the node connects to it (nothing
        // listens on port 1, so it retries).
        let added = try await client.request(topics, "radio/station/add", #"{"name":"Nowhere FM","url":"http://127.0.0.1:1/nowhere"}"#)
        #expect(added["status"] == "ok", "\(added.serialized)")
        let offered = await eventually { await options() == ["Off", radioStation.name, "Nowhere FM"] }
        let shownOptions = await options()
        #expect(offered, "options \(shownOptions)")
        try await ha.callService("select", "select_option", ["entity_id": .string(entity("radio")), "option": "Nowhere FM"])
        let trying = await client.latest(radio) { $0["station"] == "nowhere-fm" && ["connecting", "retrying"].contains($0["state"]?.stringValue ?? "") }
        #expect(trying != nil, "B/radio \(client.latest(radio)?.serialized ?? "none")")
        #expect(stateText(await ha.waitState(entity("radio"), is: "Nowhere FM")) == "Nowhere FM")
        #expect(stateText(await ha.waitState(entity("radio_playing"), is: "Nowhere FM")) == "Nowhere FM")

        // Off stops it.
        try await ha.callService("select", "select_option", ["entity_id": .string(entity("radio")), "option": "Off"])
        #expect(await client.latest(radio) { $0["state"] == "idle" }?["playing"] == false, "B/radio \(client.latest(radio)?.serialized ?? "none")")
        #expect(stateText(await ha.waitState(entity("radio"), is: "Off")) == "Off")
        #expect(stateText(await ha.waitState(entity("radio_playing"), is: "Off")) == "Off")
        let stopped = await ha.waitState(entity("alarm_event")) { $0["attributes"]?["event_type"] == "radio_stopped" }
        #expect(stopped?["attributes"]?["reason"] == "command", "event entity \(stopped?.serialized ?? "none")")

        // Deleted, it is no longer offered.
        #expect(try await client.request(topics, "radio/station/delete", "nowhere-fm")["status"] == "ok")
        let withdrawn = await eventually { await options() == ["Off", radioStation.name] }
        let leftOptions = await options()
        #expect(withdrawn, "options \(leftOptions)")
        print("[ha-e2e] radio/station/add Nowhere FM → offered, chosen → B/radio \(trying?["state"]?.stringValue ?? "?"); Off → idle; deleted → gone")
    }
}

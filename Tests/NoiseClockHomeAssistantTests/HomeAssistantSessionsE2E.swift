import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// SPEC §10's entities in the real Home Assistant, a part of the one end-to-end run (one Home
// Assistant start is about 20 s): the templates rendered by Home Assistant's own engine, then the
// meditation controls and the timer entities driven through its services.

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
    /// The templates of the session components, through Home Assistant's own template engine.
    func sessionTemplates(_ ha: HomeAssistantCore, discovery: JSONValue) async throws {
        let components = try #require(discovery["cmps"], "no cmps in the discovery payload")
        func template(_ key: String, _ member: String) throws -> String {
            try #require(components[key]?[member]?.stringValue, "\(key).\(member)")
        }

        // The interval select, both ways.
        let sendInterval = try template("meditation_interval", "command_template")
        let showInterval = try template("meditation_interval", "value_template")
        for (option, minutes) in [("Off", 0), ("3 min", 3), ("5 min", 5), ("10 min", 10)] {
            let sent = try await render(ha, sendInterval, json: "{}", value: option)
            #expect((try? JSONValue.parse(Array(sent.utf8))) == ["meditation": ["interval_min": .number(Double(minutes))]], "\(option) → \(sent)")
            let shown = try await render(ha, showInterval, json: #"{"meditation":{"interval_min":\#(minutes)}}"#)
            #expect(shown == option, "interval_min \(minutes) → \(shown)")
        }
        let minutes = try await render(ha, try template("meditation_minutes", "command_template"), json: "{}", value: "25.0")
        #expect((try? JSONValue.parse(Array(minutes.utf8))) == ["meditation": ["minutes": 25]], "minutes → \(minutes)")

        // The next timer: the running one that ends first by instant. Across the autumn change
        // 02:30+02:00 comes before 02:10+01:00, though its text sorts after it.
        let nextTimer = try template("next_timer", "value_template")
        let timers = """
            [{"id":"t1","label":"Later","state":"running","ends_at":"2026-10-25T02:10:00+01:00"},
             {"id":"t2","label":"First","state":"running","ends_at":"2026-10-25T02:30:00+02:00"},
             {"id":"t3","label":"Paused","state":"paused","ends_at":null},
             {"id":"t4","label":"Rang","state":"ringing","ends_at":"2026-10-25T00:00:00+02:00"}]
            """.replacing("\n", with: "")
        #expect(try await render(ha, nextTimer, json: timers) == "2026-10-25T02:30:00+02:00")
        let nextAttributes = try await render(ha, try template("next_timer", "json_attributes_template"), json: timers)
        #expect((try? JSONValue.parse(Array(nextAttributes.utf8))) == ["timer_id": "t2", "label": "First", "timers": 4], "\(nextAttributes)")
        #expect(try await render(ha, nextTimer, json: #"[{"id":"t3","label":"P","state":"paused","ends_at":null}]"#) == "None")
        #expect(try await render(ha, nextTimer, json: "[]") == "None")

        // Meditation ends: null is None (unknown).
        let ends = try template("meditation_ends", "value_template")
        #expect(try await render(ha, ends, json: #"{"state":"idle","ends_at":null}"#) == "None")
        #expect(try await render(ha, ends, json: #"{"state":"running","ends_at":"2026-03-10T08:30:00+01:00"}"#) == "2026-03-10T08:30:00+01:00")

        // The event entity: a timer event with its members, event_type for event; others render nothing.
        let event = try template("alarm_event", "value_template")
        let finished = try await render(ha, event, json: #"{"event":"timer_finished","at":"2026-03-10T08:30:00+01:00","timer_id":"t1","label":"Tea","duration_s":300}"#)
        #expect((try? JSONValue.parse(Array(finished.utf8))) == [
            "event_type": "timer_finished", "at": "2026-03-10T08:30:00+01:00", "timer_id": "t1", "label": "Tea", "duration_s": 300,
        ], "\(finished)")
        #expect(try await render(ha, event, json: #"{"event":"noise_started","at":"2026-03-10T08:30:00+01:00"}"#).isEmpty)
    }

    /// The meditation number, select, button and sensors, and the timer sensor and button, against the node.
    func sessionEntities(_ ha: HomeAssistantCore, client: TestClient, topics: Topics) async throws {
        let meditationTopic = topics.state(StateTopic.meditation), timersTopic = topics.state(StateTopic.timers)
        let types = try await ha.state(entity("alarm_event"))?["attributes"]?["event_types"]?.arrayItems?.compactMap(\.stringValue) ?? []
        #expect(Set(HomeAssistantDiscovery.eventTypes).isSubset(of: Set(types)), "event_types \(types)")
        #expect(try await ha.state(entity("meditation"))?["attributes"]?["options"]?.arrayItems?.count == 5)

        // The minutes number and the interval select write settings.meditation; B/settings comes back to them.
        try await ha.callService("number", "set_value", ["entity_id": .string(entity("meditation_minutes")), "value": 2])
        #expect(await client.latest(topics.settings) { $0["meditation"]?["minutes"] == 2 } != nil, "B/settings \(client.latest(topics.settings)?.serialized ?? "none")")
        #expect(Double(stateText(await ha.waitState(entity("meditation_minutes")) { Double($0["state"]?.stringValue ?? "") == 2 })) == 2)
        try await ha.callService("select", "select_option", ["entity_id": .string(entity("meditation_interval")), "option": "5 min"])
        #expect(await client.latest(topics.settings) { $0["meditation"]?["interval_min"] == 5 } != nil)
        #expect(stateText(await ha.waitState(entity("meditation_interval"), is: "5 min")) == "5 min")

        // Start meditation: a session with those defaults; the sensor leaves idle, Meditation ends is its ends_at.
        try await ha.callService("button", "press", ["entity_id": .string(entity("start_meditation"))])
        let session = try #require(
            await client.latest(meditationTopic) { $0["state"] != "idle" && $0["state"] != nil }, "B/meditation \(client.latest(meditationTopic)?.serialized ?? "none")")
        #expect(session["duration_s"] == 120 && session["interval_min"] == 5 && session["kind"] == "timed", "\(session.serialized)")
        let phase = try #require(session["state"]?.stringValue)
        let sensor = await ha.waitState(entity("meditation")) { $0["state"]?.stringValue != "idle" }
        #expect(["preparing", "running"].contains(stateText(sensor)), "Meditation \(stateText(sensor)), node \(phase)")
        #expect(sensor?["attributes"]?["kind"] == "timed")
        let endsAt = try #require(session["ends_at"]?.stringValue, "ends_at of \(session.serialized)")
        let endsUTC = try #require(homeAssistantUTC(endsAt))
        #expect(stateText(await ha.waitState(entity("meditation_ends"), is: endsUTC)) == endsUTC, "node ends_at \(endsAt)")
        print("[ha-e2e] button.press Start meditation → B/meditation \(phase), ends \(endsAt); Home Assistant: \(stateText(sensor)), ends \(endsUTC)")

        // Stopped over MQTT: idle again, and the event entity reports meditation_stopped.
        #expect(try await client.request(topics, "meditation/stop")["status"] == "ok")
        #expect(stateText(await ha.waitState(entity("meditation"), is: "idle")) == "idle")
        let stopped = await ha.waitState(entity("alarm_event")) { $0["attributes"]?["event_type"] == "meditation_stopped" }
        #expect(stopped?["attributes"]?["event_type"] == "meditation_stopped", "event entity \(stopped?.serialized ?? "none")")
        let idle = try #require(client.latest(meditationTopic))
        let idleEnds = idle["ends_at"]?.stringValue.flatMap(homeAssistantUTC) ?? "unknown"
        #expect(stateText(await ha.waitState(entity("meditation_ends"), is: idleEnds)) == idleEnds, "B/meditation \(idle.serialized)")

        // Two timers: Next timer is the one that ends first; Cancel timers empties B/timers.
        for payload in [#"{"minutes":10,"label":"Tea"}"#, #"{"minutes":5,"label":"Eggs"}"#] {
            let started = try await client.request(topics, "timer/start", payload)
            #expect(started["status"] == "ok", "timer/start: \(started.serialized)")
        }
        let running = try #require(await client.latest(timersTopic) { $0.arrayItems?.count == 2 }, "B/timers")
        let eggs = try #require(running.arrayItems?.first { $0["label"] == "Eggs" }?["ends_at"]?.stringValue)
        let eggsUTC = try #require(homeAssistantUTC(eggs))
        let next = await ha.waitState(entity("next_timer"), is: eggsUTC)
        #expect(stateText(next) == eggsUTC, "B/timers \(running.serialized)")
        #expect(next?["attributes"]?["label"] == "Eggs" && next?["attributes"]?["timers"] == 2)
        try await ha.callService("button", "press", ["entity_id": .string(entity("cancel_timers"))])
        #expect(await client.latest(timersTopic) { $0.arrayItems?.isEmpty == true } != nil, "B/timers \(client.latest(timersTopic)?.serialized ?? "none")")
        #expect(stateText(await ha.waitState(entity("next_timer"), is: "unknown")) == "unknown")
        print("[ha-e2e] timers: Next timer \(stateText(next)) (Eggs); button.press Cancel timers → B/timers []")
    }
}

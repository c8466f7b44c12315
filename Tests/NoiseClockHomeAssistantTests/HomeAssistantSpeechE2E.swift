import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// SPEC §16's Home Assistant part, a part of the one end-to-end run: the Announce notify entity and
// the Say the time button reach the node's say verbs, and the Assist files shipped in
// deploy/homeassistant/ (custom sentences in English and German, the intent_script package),
// installed as the README says, turn Home Assistant's own conversation agent's sentences into the
// node's commands: alarms set and a ringing one stopped, a sound, a station and a timer started.

/// The shipped Assist files: `deploy/homeassistant/`.
private let assistFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("deploy/homeassistant")

/// Where the test's automation publishes each briefing the Event entity shows.
let briefingTopic = "e2e/briefing"

/// What the package sets as the node's base topic, the one line a user changes.
private let shippedNodeLine = #"      node: "noiseclock/bedroom""#

extension HomeAssistantE2ETests {
    /// Home Assistant's conversation agent (`conversation:`), which the package's intents answer.
    static let assistConfiguration = "conversation:\n"

    /// The node speaks at any hour of the run (no quiet hours, which would hold an announcement).
    static let speechConfiguration = "speech:\n  quiet_hours:\n    start: \"\"\n    end: \"\"\n"

    /// The first message on `topic` after the first `mark` messages that satisfies `predicate`.
    /// (The inbox is never cleared: the steps after these read Home Assistant's birth message in it.)
    func received(
        _ client: TestClient, _ topic: String, after mark: Int = 0, timeout: Duration = eventHangGuard,
        where predicate: @escaping (JSONValue) -> Bool = { _ in true }
    ) async -> JSONValue? {
        var found: JSONValue?
        _ = await eventually(timeout: timeout) {
            found = client.messages.dropFirst(mark).filter { $0.topic == topic }.compactMap(json).first(where: predicate)
            return found != nil
        }
        return found
    }

    /// An automation on the Event entity that publishes each `briefing` it shows (its text and
    /// alarm) to `briefingTopic`: how a user's automation sees the briefing.
    static func installBriefingWatch(_ ha: HomeAssistantCore) throws {
        let automation = """
            automation:
              - alias: E2E briefing
                mode: queued
                triggers:
                  - trigger: state
                    entity_id: event.\(prefix)_event
                conditions:
                  - condition: template
                    value_template: "{{ trigger.to_state.attributes.event_type == 'briefing' }}"
                actions:
                  - action: mqtt.publish
                    data:
                      topic: \(briefingTopic)
                      payload: "{{ {'text': trigger.to_state.attributes.text, 'alarm_id': trigger.to_state.attributes.alarm_id} | tojson }}"

            """
        try automation.write(toFile: "\(ha.configDirectory)/packages/e2e_briefing.yaml", atomically: true, encoding: .utf8)
    }

    /// Installs the shipped Assist files as the README says: the custom sentences under
    /// `custom_sentences/<language>/`, the package under `packages/` with its one `node` line set to
    /// `base` (the node's `<base_topic>/<node_id>`).
    static func installAssist(_ ha: HomeAssistantCore, base: String) throws {
        for language in ["en", "de"] {
            let folder = "\(ha.configDirectory)/custom_sentences/\(language)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let source = assistFolder.appendingPathComponent("custom_sentences/\(language)/noiseclock.yaml")
            try FileManager.default.copyItem(atPath: source.path, toPath: "\(folder)/noiseclock.yaml")
        }
        let package = try String(contentsOf: assistFolder.appendingPathComponent("packages/noiseclock.yaml"), encoding: .utf8)
        let lines = package.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { $0 == shippedNodeLine }.count == 1, "the package sets the node's topic in one line")
        #expect(!lines.contains { $0.contains(/noiseclock\/[a-z]/) && $0 != shippedNodeLine }, "the node's topic in a second place")
        try package.replacing(shippedNodeLine, with: #"      node: "\#(base)""#)
            .write(toFile: "\(ha.configDirectory)/packages/noiseclock.yaml", atomically: true, encoding: .utf8)
    }

    /// The speech entities, then the Assist sentences, against the node whose base topic `base`
    /// the Assist package was given.
    func speech(_ ha: HomeAssistantCore, client: TestClient, topics: Topics, clock: FakeTime, base: String) async throws {
        #expect(topics.command("say") == "\(base)/cmd/say", "the base topic the Assist package was given")
        let started = ContinuousClock.now
        try await speechEntities(ha, client: client, topics: topics)
        try await assistIntents(ha, client: client, topics: topics, clock: clock)
        print("[ha-e2e] speech and Assist took \(seconds(ContinuousClock.now - started)) of the run")
    }

    /// `conversation.process` with `text` in `language`: Home Assistant's answer (`response`).
    func converse(_ ha: HomeAssistantCore, _ text: String, language: String = "en") async throws -> JSONValue {
        let answer = try await ha.request(
            "POST", "/api/services/conversation/process?return_response",
            json: ["text": .string(text), "language": .string(language)])
        try #require(answer.status == 200, "conversation.process \(text): \(answer.status) \(answer.text.prefix(500))")
        return try #require(answer.json?["service_response"]?["response"], "no response: \(answer.text.prefix(500))")
    }

    /// What Home Assistant said back.
    func speech(_ response: JSONValue) -> String { response["speech"]?["plain"]?["speech"]?.stringValue ?? "<none>" }

    /// The Announce entity sends its message to `say` as the very text (quotes, a newline, umlauts,
    /// markup), and the node speaks it to its end, its events in the event entity; the Say the time
    /// button makes the node say the time.
    func speechEntities(_ ha: HomeAssistantCore, client: TestClient, topics: Topics) async throws {
        let message = "The \"washing\" machine's done.\nGrüße & <b>bye</b>"
        let mark = client.messages.count
        let sent = ContinuousClock.now
        try await ha.callService("notify", "send_message", ["entity_id": .string(entity("announce")), "message": .string(message)])
        let said = await client.waitFor(topics.command("say"))
        #expect(said.flatMap(json)?["text"] == .string(message), "B/cmd/say \(said?.text ?? "none")")
        let answer = await received(client, topics.response("say"), after: mark)
        let id = try #require(answer?["data"]?["id"]?.stringValue, "B/response/say \(answer?.serialized ?? "none")")
        let started = await received(client, topics.event, after: mark) { $0["event"] == "speech_started" && $0["id"] == .string(id) }
        let startTook = ContinuousClock.now - sent
        #expect(started?["text"] == .string(message) && started?["kind"] == "say", "speech_started \(started?.serialized ?? "none")")
        let shown = await ha.waitState(entity("alarm_event")) { $0["attributes"]?["event_type"] == "speech_started" }
        #expect(shown?["attributes"]?["text"] == .string(message), "event entity \(shown?.serialized ?? "none")")
        let finished = await received(client, topics.event, after: mark, timeout: .seconds(30)) {
            $0["event"] == "speech_finished" && $0["id"] == .string(id)
        }
        #expect((finished?["ms"]?.intValue ?? 0) > 1000, "speech_finished \(finished?.serialized ?? "none")")
        let ended = await ha.waitState(entity("alarm_event")) { $0["attributes"]?["event_type"] == "speech_finished" }
        #expect(ended?["attributes"]?["id"] == .string(id), "event entity \(ended?.serialized ?? "none")")
        #expect(stateText(try await ha.state(entity("announce"))) != "unknown", "the notify entity keeps when it last sent")

        try await ha.callService("button", "press", ["entity_id": .string(entity("say_time"))])
        let time = await received(client, topics.response("say/time"), after: mark)
        let text = try #require(time?["data"]?["text"]?.stringValue, "B/response/say/time \(time?.serialized ?? "none")")
        let spoken = await received(client, topics.event, after: mark) { $0["event"] == "speech_started" && $0["kind"] == "time" }
        #expect(spoken?["text"] == .string(text), "speech_started \(spoken?.serialized ?? "none")")
        print("[ha-e2e] notify.send_message Announce → speech_started \(seconds(startTook)) later with the exact text, spoken in \(finished?["ms"]?.intValue ?? -1) ms; Say the time → \"\(text)\"")
    }

    /// The Assist sentences against the node: alarms set in English and German, one that rings
    /// stopped by voice, a sound, a station and a timer started, the next alarm asked for.
    func assistIntents(_ ha: HomeAssistantCore, client: TestClient, topics: Topics, clock: FakeTime) async throws {
        func alarms(at time: String) -> [JSONValue] {
            client.latest(topics.alarms)?.arrayItems?.filter { $0["time"]?.stringValue == time } ?? []
        }
        // Each alarm set by voice shows in Home Assistant (its switch, and its time entity at its
        // time) before it is deleted, and its entities go with it. (Deleted before Home Assistant
        // has read it, its new text entity would have no state of its own to keep, and fail.)
        func shownThenDeleted(_ alarm: JSONValue) async throws {
            let id = try #require(alarm["id"]?.stringValue), time = try #require(alarm["time"]?.stringValue)
            var made: [String] = []
            let shown = await eventually {
                made = ((try? await ha.deviceEntities()) ?? []).filter { !baseEntities.values.contains($0) }
                guard let text = made.first(where: { $0.hasPrefix("text.") }), made.count == 2 else { return false }
                return stateText(try? await ha.state(text)) == time
            }
            #expect(shown, "alarm \(id) at \(time) in Home Assistant: \(made)")
            #expect(try await client.request(topics, "alarm/delete", id)["status"] == "ok")
            let removed = await eventually { ((try? await ha.deviceEntities()) ?? []).allSatisfy { baseEntities.values.contains($0) } }
            #expect(removed, "alarm \(id)'s entities stayed: \(made)")
        }
        // "set an alarm for 6:45" and "stell einen Wecker auf 6:45": each a one-shot alarm at 06:45.
        let started = ContinuousClock.now
        let english = try await converse(ha, "set an alarm for 6:45")
        #expect(speech(english) == "Alarm set for 06:45.", "\(english.serialized)")
        #expect(await client.latest(topics.alarms) { _ in alarms(at: "06:45").count == 1 } != nil, "B/alarms \(client.latest(topics.alarms)?.serialized ?? "none")")
        let englishTook = ContinuousClock.now - started
        #expect(alarms(at: "06:45").allSatisfy { $0["days"] == [] && $0["enabled"] == true }, "a one-shot alarm, on")
        for alarm in alarms(at: "06:45") { try await shownThenDeleted(alarm) }
        let german = try await converse(ha, "stell einen Wecker auf 6:45", language: "de")
        #expect(speech(german) == "Der Wecker klingelt um 06:45 Uhr.", "\(german.serialized)")
        #expect(await client.latest(topics.alarms) { _ in alarms(at: "06:45").count == 1 } != nil, "B/alarms \(client.latest(topics.alarms)?.serialized ?? "none")")
        for alarm in alarms(at: "06:45") { try await shownThenDeleted(alarm) }
        let understood = try await converse(ha, "Stell einen Wecker auf viertel vor sieben", language: "de")
        #expect(speech(understood) == "Der Wecker klingelt um 06:45 Uhr.")
        #expect(await client.latest(topics.alarms) { _ in alarms(at: "06:45").count == 1 } != nil)
        for alarm in alarms(at: "06:45") { try await shownThenDeleted(alarm) }
        let unclear = try await converse(ha, "set an alarm for banana")
        #expect(speech(unclear) == #"Sorry, I did not understand the time "banana"."#)
        print("[ha-e2e] conversation.process \"set an alarm for 6:45\" → B/alarms 06:45 in \(seconds(englishTook)) (the first sentence loads Assist's sentences); German 6:45 and \"viertel vor sieben\" too")

        // An alarm set by voice two minutes ahead rings (the node's clock jumps), "stop the alarm" dismisses it.
        let berlin = DateFormatter()
        berlin.locale = Locale(identifier: "en_US_POSIX")
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")
        berlin.dateFormat = "H:mm"
        let spoken = berlin.string(from: clock.now.addingTimeInterval(120))
        let time = spoken.count == 4 ? "0\(spoken)" : spoken
        #expect(speech(try await converse(ha, "wake me up at \(spoken)")) == "Alarm set for \(time).")
        _ = await client.latest(topics.alarms) { _ in !alarms(at: time).isEmpty }
        let alarmID = try #require(alarms(at: time).first?["id"]?.stringValue, "B/alarms \(client.latest(topics.alarms)?.serialized ?? "none")")
        // With the morning briefing: after the dismiss it is spoken, its text in the event.
        #expect(try await client.request(topics, "alarm/update", #"{"id":"\#(alarmID)","briefing":true}"#)["status"] == "ok")
        let next = try #require(await client.latest(topics.alarmNext) { $0["id"]?.stringValue == alarmID }, "B/alarm/next")
        // Assist tells when it rings, from the node's Next alarm sensor.
        _ = await ha.waitState(entity("next_alarm")) { $0["attributes"]?["alarm_id"]?.stringValue == alarmID }
        let told = speech(try await converse(ha, "what is my next alarm"))
        #expect(told.hasPrefix("Your next alarm rings ") && told.hasSuffix(" at \(time)."), "\(told)")
        let fireDate = try #require(next["fires_at"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) })
        try clock.jump(by: fireDate.timeIntervalSince(clock.now) - 2)
        #expect(await client.latest(topics.alarmState, timeout: .seconds(15)) { $0["state"] == "ringing" }?["alarm_id"]?.stringValue == alarmID)
        let mark = client.messages.count
        let stopped = try await converse(ha, "stop the alarm")
        #expect(speech(stopped) == "Alarm stopped.")
        #expect(await client.latest(topics.alarmState) { $0["state"] == "idle" } != nil, "B/alarm/state \(client.latest(topics.alarmState)?.serialized ?? "none")")
        let dismissed = await received(client, topics.event, after: mark) { $0["event"] == "alarm_dismissed" }
        #expect(dismissed?["alarm_id"]?.stringValue == alarmID, "no alarm_dismissed for \(alarmID)")
        let briefing = await received(client, topics.event, after: mark) { $0["event"] == "briefing" }
        let briefed = try #require(briefing?["text"]?.stringValue, "no briefing event")
        #expect(briefing?["alarm_id"]?.stringValue == alarmID)
        // The weather Home Assistant published (SPEC §17) is in it, and the event entity shows its text.
        #expect(briefed.contains("Slight rain, 3 degrees, today between 1 and 7."), "\(briefed)")
        // (speech_started follows it within the millisecond, so the entity's state is seen through an automation.)
        let watched = await received(client, briefingTopic, after: mark) { _ in true }
        #expect(watched?["text"] == .string(briefed) && watched?["alarm_id"]?.stringValue == alarmID, "\(briefingTopic) \(watched?.serialized ?? "none")")
        let briefingSpoken = await received(client, topics.event, after: mark) { $0["event"] == "speech_started" && $0["kind"] == "briefing" }
        #expect(briefingSpoken?["text"] == .string(briefed), "speech_started \(briefingSpoken?.serialized ?? "none")")
        for alarm in alarms(at: time) { try await shownThenDeleted(alarm) }
        // "snooze" with nothing ringing reaches the node, which says so.
        #expect(speech(try await converse(ha, "snooze")) == "Snoozing.")
        #expect(await received(client, topics.response("snooze"), after: mark)?["error"]?["code"] == "conflict")
        print("[ha-e2e] conversation.process \"what is my next alarm\" → \"\(told)\"; \"stop the alarm\" → alarm \(alarmID) ringing at \(time) dismissed; its briefing spoken: \"\(briefed)\"")

        // A station, a sound (the radio stops), a timer with a label, the next alarm.
        let radio = topics.state(StateTopic.radio)
        #expect(speech(try await converse(ha, "play radio \(radioStation.name)")) == "Playing \(radioStation.name).")
        #expect(await client.latest(radio) { $0["station"] == .string(radioStation.id) && $0["playing"] == true } != nil,
                "B/radio \(client.latest(radio)?.serialized ?? "none")")
        _ = try await converse(ha, "spiel Regen", language: "de")
        #expect(await client.latest(topics.noise) { $0["sounds"]?.arrayItems?.first?["id"] == "heavy-rain-white-noise" } != nil,
                "B/noise \(client.latest(topics.noise)?.serialized ?? "none")")
        let timers = topics.state(StateTopic.timers)
        #expect(speech(try await converse(ha, "start a pasta timer for 9 minutes")) == "Timer for 9 minutes.")
        let timer = await client.latest(timers) { $0.arrayItems?.contains { $0["label"] == "Pasta" } == true }?.arrayItems?.first { $0["label"] == "Pasta" }
        #expect(timer?["duration_s"] == 540, "B/timers \(client.latest(timers)?.serialized ?? "none")")
        #expect(try await client.request(topics, "timer/cancel", timer?["id"]?.stringValue ?? "")["status"] == "ok")
        let asked = client.messages.count
        #expect(speech(try await converse(ha, "wann klingelt mein Wecker", language: "de")) == "Es ist kein Wecker gestellt.")
        let nextAlarm = await received(client, topics.response("say/next_alarm"), after: asked)
        let nextText = try #require(nextAlarm?["data"]?["text"]?.stringValue, "B/response/say/next_alarm \(nextAlarm?.serialized ?? "none")")
        let nextSpoken = await received(client, topics.event, after: asked) { $0["event"] == "speech_started" && $0["kind"] == "next_alarm" }
        #expect(nextSpoken?["text"] == .string(nextText), "speech_started \(nextSpoken?.serialized ?? "none")")
        // Pink noise is the last mix again, as the rest of the run expects; then quiet.
        #expect(try await client.request(topics, "noise/play", "pink-noise")["status"] == "ok")
        #expect(try await client.request(topics, "noise/stop")["status"] == "ok")
        print("[ha-e2e] conversation.process: radio \(radioStation.name), Regen, a 9 minute Pasta timer; the next alarm said: \"\(nextText)\"")
    }
}

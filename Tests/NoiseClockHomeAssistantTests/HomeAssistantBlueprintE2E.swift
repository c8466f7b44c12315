import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// The sunrise blueprint of docs/home-assistant.md in the real Home Assistant, a part of the one
// end-to-end run: Home Assistant imports the block the document shows, an automation made from it
// follows the node's wake_sunrise, and a light the test announces by discovery gets its commands.

/// The test lamp: an MQTT JSON-schema light whose command topic the test reads.
let blueprintLampTopic = "e2e/lamp/set"
let blueprintLamp = "light.e2e_lamp"

extension HomeAssistantE2ETests {
    /// What configuration.yaml needs for the automation below.
    static let automationConfiguration = "automation: !include automations.yaml\n"

    /// The block after the blueprint marker in docs/home-assistant.md, exactly as a reader copies it.
    static func documentedBlueprint() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/home-assistant.md"), encoding: .utf8)
        let marker = try #require(text.range(of: "<!-- blueprint: sunrise_light.yaml"), "no blueprint marker in docs/home-assistant.md")
        let fence = try #require(text.range(of: "```yaml\n", range: marker.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "\n```", range: fence.upperBound..<text.endIndex))
        return String(text[fence.upperBound..<end.lowerBound]) + "\n"
    }

    /// Writes the documented blueprint where the document says, and an automation made from it for
    /// the node's Event entity and the test lamp (before Home Assistant starts).
    static func installBlueprint(_ ha: HomeAssistantCore) throws {
        let folder = "\(ha.configDirectory)/blueprints/automation/noiseclock"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try documentedBlueprint().write(toFile: "\(folder)/sunrise_light.yaml", atomically: true, encoding: .utf8)
        let automations = """
            - id: noiseclock_sunrise_e2e
              alias: Sunrise in the test lamp
              use_blueprint:
                path: noiseclock/sunrise_light.yaml
                input:
                  clock_event: event.\(prefix)_event
                  light:
                    entity_id: \(blueprintLamp)
                  step: 5

            """
        try automations.write(toFile: "\(ha.configDirectory)/automations.yaml", atomically: true, encoding: .utf8)
    }

    /// An alarm whose sunrise is under way sends wake_sunrise; the blueprint's automation turns the
    /// test lamp on, faintly, with a transition of its step.
    func sunriseBlueprint(_ ha: HomeAssistantCore, client: TestClient, topics: Topics, nodeNow: Date) async throws {
        client.publish(
            "homeassistant/light/e2e_lamp/config",
            #"{"name":"E2E lamp","unique_id":"e2e_lamp","schema":"json","command_topic":"\#(blueprintLampTopic)","brightness":true,"supported_color_modes":["brightness"]}"#,
            retain: true)
        let lamp = await ha.waitState(blueprintLamp, timeout: .seconds(20)) { _ in true }
        try #require(lamp != nil, "Home Assistant did not take the test lamp; problems:\n\(ha.problems.joined(separator: "\n"))")
        let automation = await ha.waitState("automation.sunrise_in_the_test_lamp", timeout: .seconds(20), is: "on")
        try #require(stateText(automation) == "on", "the blueprint's automation is not on: \(automation?.serialized ?? "absent"); problems:\n\(ha.problems.joined(separator: "\n"))")

        // Rings in 4 minutes with a 10-minute sunrise: it is under way at once.
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        formatter.timeZone = TimeZone(identifier: "Europe/Berlin")
        let time = formatter.string(from: nodeNow.addingTimeInterval(4 * 60 + 30))
        let added = try await client.request(topics, "alarm/add", #"{"time":"\#(time)","label":"Sunrise","sunrise_min":10}"#)
        let id = try #require(added["data"]?["id"]?.stringValue, "\(added.serialized)")
        let event = await ha.waitState(entity("alarm_event"), timeout: .seconds(20)) { $0["attributes"]?["event_type"] == "wake_sunrise" }
        #expect(event?["attributes"]?["ring_at"] != nil, "\(event?.serialized ?? "no event")")
        #expect(stateText(await ha.waitState(entity("wake"), is: "sunrise")) == "sunrise")
        let command = await client.waitFor(blueprintLampTopic, timeout: .seconds(30)) { (try? JSONValue.parse($0.payload))?["state"] == "ON" }
        let sent = command.flatMap { try? JSONValue.parse($0.payload) }
        #expect(sent != nil, "the blueprint's automation sent the lamp nothing; Home Assistant problems:\n\(ha.problems.joined(separator: "\n"))")
        #expect(sent?["transition"] == 5, "\(sent?.serialized ?? "")")
        if let brightness = sent?["brightness"]?.intValue {
            // About half way into the first 5½ minutes of a 10-minute sunrise: a faint glow, far from full.
            #expect(brightness >= 1 && brightness < 128, "\(sent?.serialized ?? "")")
        } else {
            Issue.record("no brightness: \(sent?.serialized ?? "")")
        }
        // Done: the alarm goes (its sunrise ends: idle, or awake after the alarm dismissed earlier in
        // the run), and the automation is switched off. Not before Home Assistant has read the
        // alarm's time entity: deleted earlier (a loaded machine), that new entity has no state of
        // its own to keep and logs an error.
        #expect(stateText(await ha.waitState("text.\(prefix)_sunrise_time", timeout: .seconds(20), is: time)) == time)
        #expect(try await client.request(topics, "alarm/delete", id)["status"] == "ok")
        try await ha.callService("automation", "turn_off", ["entity_id": "automation.sunrise_in_the_test_lamp"])
        let after = await ha.waitState(entity("wake")) { ["idle", "awake"].contains($0["state"]?.stringValue ?? "") }
        #expect(["idle", "awake"].contains(stateText(after)), "\(after?.serialized ?? "absent")")
    }
}

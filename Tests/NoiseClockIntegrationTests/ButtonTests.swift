import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// Smart buttons (SPEC §12 `buttons`) in a real node process and a real Mosquitto: a fake
// Zigbee2MQTT button publishes what a real one does, and no Home Assistant is anywhere.

private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

/// A Zigbee2MQTT button: the `…/action` topic with the bare action (and an empty one after it, as
/// Zigbee2MQTT sends), and the device's own topic with its state as JSON.
private struct FakeZigbeeButton {
    let client: TestClient
    let name: String

    func press(_ action: String) {
        client.publish("zigbee2mqtt/\(name)/action", action)
        client.publish("zigbee2mqtt/\(name)/action", "")
        client.publish("zigbee2mqtt/\(name)", #"{"action":"\#(action)","battery":97,"linkquality":120}"#)
        client.publish("zigbee2mqtt/\(name)", #"{"battery":97,"linkquality":120}"#)
    }
}

@Suite("Smart buttons in a real node process, with Mosquitto and no Home Assistant")
struct ButtonTests {
    static let configuration = """
        buttons:
          - topic: zigbee2mqtt/nightstand/action
            actions:
              single: snooze
              double: dismiss
              hold: noise/toggle
          - topic: zigbee2mqtt/hall
            member: action
            actions:
              single: {verb: noise/play, payload: '{"sound":"Heavy rain"}'}
        """

    @Test("a button snoozes and dismisses a ringing alarm and toggles the noise; a retained press from before the start does nothing")
    func snoozeDismissToggle() async throws {
        let clock = try await FakeTime(at: at("2026-06-15T06:58:00+02:00"))
        let environment = clock.environment.merging(["NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "null"]) { _, new in new }
        try await withUnstartedNode(environment: environment, configuration: Self.configuration) { node, client in
            // Left on the broker from before: it must not act when the node connects.
            client.publish("zigbee2mqtt/nightstand/action", "hold", retain: true)
            let process = try await node.startOnline(seenBy: client)
            let button = FakeZigbeeButton(client: client, name: "nightstand")

            let added = try await client.request(node.topics, "alarm/add", #"{"time":"07:00"}"#)
            try #require(added["status"] == "ok", "\(added.serialized)")
            try clock.set(to: at("2026-06-15T06:59:58+02:00"))
            let ringing = await client.waitFor(node.topics.event, timeout: .seconds(20)) { json($0)?["event"] == "alarm_ringing" }
            try #require(ringing != nil, "no alarm_ringing; log:\n\(process.log)")

            button.press("single")
            let snoozed = await client.waitFor(node.topics.event) { json($0)?["event"] == "alarm_snoozed" }.flatMap(json)
            #expect(snoozed != nil, "the button did not snooze; log:\n\(process.log)")
            #expect(await client.latest(node.topics.response("snooze")) { $0["status"] == "ok" } != nil)

            button.press("double")
            let dismissed = await client.waitFor(node.topics.event) { json($0)?["event"] == "alarm_dismissed" }.flatMap(json)
            #expect(dismissed?["alarm_id"] == added["data"]?["id"], "the button did not dismiss; log:\n\(process.log)")
            #expect(await client.latest(node.topics.alarmState) { $0["state"] == "idle" } != nil)

            // The retained hold was not run: this hold turns the noise on, not off.
            button.press("hold")
            let toggled = await client.latest(node.topics.response("noise/toggle")) { $0["status"] == "ok" }
            #expect(toggled?["data"]?["playing"] == true, "\(toggled?.serialized ?? "no answer"); log:\n\(process.log)")
            #expect(await client.latest(node.topics.noise) { $0["playing"] == true } != nil)

            // A device topic whose JSON `action` member says what was pressed, with a payload.
            FakeZigbeeButton(client: client, name: "hall").press("single")
            let played = await client.latest(node.topics.noise) { state in
                guard state["playing"] == true, case .array(let sounds)? = state["sounds"] else { return false }
                return sounds.map { $0["id"] } == ["heavy-rain-white-noise"]
            }
            #expect(played != nil, "log:\n\(process.log)")
            #expect(process.log.contains("button pressed"))
        }
    }

    @Test("a button whose action names a verb the node does not have stops the start, naming it")
    func unknownVerb() async throws {
        let configuration = "buttons:\n  - topic: zigbee2mqtt/nightstand/action\n    actions:\n      single: snoze\n"
        try await withUnstartedNode(environment: ["NOISECLOCK_AUDIO_DEVICE": "null"], configuration: configuration) { node, _ in
            let process = try node.start()
            let code = await process.waitForExit(timeout: .seconds(20))
            #expect(code == 2, "log:\n\(process.log)")
            #expect(process.log.contains("buttons[0].actions.single"), "\(process.log)")
            #expect(process.log.contains("snoze"))
        }
    }
}


import Foundation
import NoiseClockCore
import NoiseClockMQTT
import Testing

@testable import NoiseClockNode

@Suite("Smart buttons")
struct ButtonTests {
    static let yaml = """
        buttons:
          - topic: zigbee2mqtt/nightstand/action
            actions:
              single: ping
              double: alarm/add
          - topic: zigbee2mqtt/hall
            member: action
            actions:
              hold: {verb: settings, payload: '{"time_format":"12h"}'}
        """

    @Test("the file's list of buttons is read under its indices, and only there is a list taken")
    func flattenList() throws {
        let values = try ConfigurationLoader.flatten(yaml: Self.yaml, fileName: "f.yaml")
        #expect(values == [
            "buttons[0].topic": "zigbee2mqtt/nightstand/action", "buttons[0].actions.single": "ping",
            "buttons[0].actions.double": "alarm/add", "buttons[1].topic": "zigbee2mqtt/hall", "buttons[1].member": "action",
            "buttons[1].actions.hold.verb": "settings", "buttons[1].actions.hold.payload": #"{"time_format":"12h"}"#,
        ])
        #expect(try ConfigurationLoader.flatten(yaml: "buttons: []\n", fileName: "f.yaml").isEmpty)
        let nested = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.flatten(yaml: "buttons:\n  - topic: a\n    actions: [snooze]\n", fileName: "f.yaml")
        }
        #expect(nested?.key == "buttons[0].actions")
        #expect(nested?.reason.contains("list") == true)
        let twice = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.flatten(yaml: "buttons:\n  - topic: a\n    topic: b\n", fileName: "f.yaml")
        }
        #expect(twice?.key == "buttons[0].topic")
    }

    private func fixture() throws -> NodeFixture {
        try NodeFixture(configuration: ConfigurationLoader.flatten(yaml: Self.yaml, fileName: "f.yaml"))
    }

    @Test("a press runs its action's command, answered on B/response/VERB; a JSON member's action too")
    func press() async throws {
        let fixture = try fixture()
        let service = fixture.commandService()
        await service.handle(MQTTMessage(topic: "zigbee2mqtt/nightstand/action", text: "single"))
        let answer = try #require(fixture.transport.published(on: fixture.topics.response("ping")).first)
        #expect(answer.json?["status"] == "ok")
        #expect(answer.json?["data"]?["version"] == .string(NodeStatus.version))

        await service.handle(MQTTMessage(topic: "zigbee2mqtt/hall", text: #"{"action":"hold","battery":97}"#))
        #expect(fixture.settings.timeFormat == .twelveHour)
        #expect(fixture.transport.published(on: fixture.topics.response("settings")).first?.json?["status"] == "ok")

        // A command the node refuses is answered so too (alarm/add needs a time).
        await service.handle(MQTTMessage(topic: "zigbee2mqtt/nightstand/action", text: "double"))
        #expect(fixture.transport.published(on: fixture.topics.response("alarm/add")).first?.json?["error"]?["code"] == "invalid_field")
        #expect(fixture.logs.entries.contains { $0.message == "button pressed" && $0.metadata["action"] == "single" && $0.metadata["verb"] == "ping" })
    }

    @Test("an action without a command, an empty action, a state without one, and a retained press do nothing")
    func ignored() async throws {
        let fixture = try fixture()
        let service = fixture.commandService()
        await service.handle(MQTTMessage(topic: "zigbee2mqtt/nightstand/action", text: "triple"))
        await service.handle(MQTTMessage(topic: "zigbee2mqtt/nightstand/action", text: ""))
        await service.handle(MQTTMessage(topic: "zigbee2mqtt/hall", text: #"{"battery":97,"linkquality":80}"#))
        await service.handle(MQTTMessage(topic: "zigbee2mqtt/nightstand/action", text: "single", retain: true))
        await service.handle(MQTTMessage(topic: "zigbee2mqtt/hall", text: #"{"action":"hold"}"#, retain: true))
        // A fence: a ping sent after them is the first thing answered.
        await service.handle(MQTTMessage(topic: fixture.topics.command("ping"), text: ""))
        #expect(fixture.transport.published.filter { $0.topic.contains("/response/") }.map(\.topic) == [fixture.topics.response("ping")])
        #expect(fixture.settings.timeFormat == .twentyFourHour)
    }

    @Test("the node subscribes to each button's topic")
    func subscriptions() throws {
        let fixture = try fixture()
        #expect(fixture.node.subscriptions.contains("zigbee2mqtt/nightstand/action"))
        #expect(fixture.node.subscriptions.contains("zigbee2mqtt/hall"))
    }

    @Test("an action whose verb the node does not have, or with a payload its verb takes none of, is a configuration error naming it")
    func checked() throws {
        try fixture().node.checkButtons(source: "f.yaml")
        let unknown = try NodeFixture(configuration: ["buttons[0].topic": "z/b", "buttons[0].actions.single": "snoze"])
        let error = try #require(throws: ConfigurationError.self) { try unknown.node.checkButtons(source: "f.yaml") }
        #expect(error.key == "buttons[0].actions.single")
        #expect(error.reason.contains("snoze"))
        let misfit = try NodeFixture(configuration: [
            "buttons[0].topic": "z/b", "buttons[0].actions.hold.verb": "ping", "buttons[0].actions.hold.payload": #"{"minutes":5}"#,
        ])
        let field = try #require(throws: ConfigurationError.self) { try misfit.node.checkButtons(source: "f.yaml") }
        #expect(field.key == "buttons[0].actions.hold")
        #expect(field.source == "f.yaml")
    }
}

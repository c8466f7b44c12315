import NoiseClockCore
import Testing

@Suite("Configuration: buttons")
struct ButtonConfigurationTests {
    private func resolve(_ file: [String: String]) throws(ConfigurationError) -> ResolvedConfiguration {
        try ConfigurationSchema.resolve(file: file, fileName: "test.yaml", environment: [:], hostname: "host")
    }

    @Test("a button's actions, bare verbs and verbs with a payload, in file order; shown by check-config")
    func buttons() throws {
        let resolved = try resolve([
            "buttons[0].topic": "zigbee2mqtt/nightstand/action",
            "buttons[0].actions.single": "snooze",
            "buttons[0].actions.double": " dismiss ",
            "buttons[1].topic": "zigbee2mqtt/hall",
            "buttons[1].member": "action",
            "buttons[1].actions.hold.verb": "noise/play",
            "buttons[1].actions.hold.payload": #"{"sound":"rain"}"#,
        ])
        let buttons = resolved.configuration.buttons
        #expect(buttons.map(\.key) == ["buttons[0]", "buttons[1]"])
        #expect(buttons.map(\.topic) == ["zigbee2mqtt/nightstand/action", "zigbee2mqtt/hall"])
        #expect(buttons[0].member == "")
        #expect(buttons[0].actions == ["single": .init(verb: "snooze"), "double": .init(verb: "dismiss")])
        #expect(buttons[1].member == "action")
        #expect(buttons[1].actions == ["hold": .init(verb: "noise/play", payload: #"{"sound":"rain"}"#)])
        #expect(resolved.unknownKeys.isEmpty)
        let shown = resolved.values.filter { $0.key.path.hasPrefix("buttons[") }.map { "\($0.key.path)=\($0.value)" }
        #expect(shown.contains("buttons[1].actions.hold=noise/play {\"sound\":\"rain\"}"))
        #expect(shown.contains("buttons[0].topic=zigbee2mqtt/nightstand/action"))
    }

    @Test("no buttons, and an empty `buttons:`, are none and no unknown key")
    func none() throws {
        #expect(try resolve([:]).configuration.buttons.isEmpty)
        let empty = try resolve(["buttons": ""])
        #expect(empty.configuration.buttons.isEmpty)
        #expect(empty.unknownKeys.isEmpty)
    }

    @Test("a field a button does not have is an unknown key, named with its button")
    func unknownField() throws {
        let resolved = try resolve([
            "buttons[0].topic": "z/b", "buttons[0].actions.single": "snooze", "buttons[0].topik": "z/c",
            "buttons[0].actions.hold.verbs": "dismiss",
        ])
        #expect(resolved.unknownKeys == ["buttons[0].actions.hold.verbs (in test.yaml)", "buttons[0].topik (in test.yaml)"])
    }

    @Test("a button that cannot work is refused, naming the field", arguments: [
        (["buttons[0].actions.single": "snooze"], "buttons[0].topic"),
        (["buttons[0].topic": "zigbee2mqtt/+/action", "buttons[0].actions.single": "snooze"], "buttons[0].topic"),
        (["buttons[0].topic": "/z/b", "buttons[0].actions.single": "snooze"], "buttons[0].topic"),
        (["buttons[0].topic": "z/b"], "buttons[0].actions"),
        (["buttons[0].topic": "z/b", "buttons[0].actions.single": ""], "buttons[0].actions.single"),
        (["buttons[0].topic": "z/b", "buttons[0].actions.hold.payload": "{}"], "buttons[0].actions.hold.verb"),
        (["buttons[0].topic": "z/b", "buttons[0].actions.hold.verb": "noise/play", "buttons[0].actions.hold.payload": "rain"],
         "buttons[0].actions.hold.payload"),
        (["buttons[0].topic": "z/b", "buttons[0].actions.hold.verb": "noise/play", "buttons[0].actions.hold.payload": "[1]"],
         "buttons[0].actions.hold.payload"),
        (["buttons[0].topic": "z/b", "buttons[0].actions.single": "snooze", "buttons[1].topic": "z/b", "buttons[1].actions.single": "dismiss"],
         "buttons[1].topic"),
        (["buttons[0]": "zigbee2mqtt/b"], "buttons[0]"),
    ])
    func refused(file: [String: String], key: String) throws {
        let error = try #require(throws: ConfigurationError.self) { try resolve(file) }
        #expect(error.key == key)
        #expect(error.source == "test.yaml")
    }

    @Test("the action of a message: the bare payload trimmed, or a JSON member's string, number or boolean")
    func action() {
        let bare = Configuration.Button(key: "buttons[0]", topic: "z/b/action", actions: ["single": .init(verb: "snooze")])
        #expect(bare.action(in: Array("single".utf8)) == "single")
        #expect(bare.action(in: Array(" single\n".utf8)) == "single")
        #expect(bare.action(in: []) == nil, "Zigbee2MQTT's empty action after a press")
        #expect(bare.command(for: Array("single".utf8))?.command == .init(verb: "snooze"))
        #expect(bare.command(for: Array("double".utf8)) == nil)

        let member = Configuration.Button(key: "buttons[1]", topic: "z/b", member: "action", actions: [:])
        #expect(member.action(in: Array(#"{"action":"hold","battery":97,"linkquality":120}"#.utf8)) == "hold")
        #expect(member.action(in: Array(#"{"action":2}"#.utf8)) == "2")
        #expect(member.action(in: Array(#"{"action":true}"#.utf8)) == "true")
        #expect(member.action(in: Array(#"{"action":""}"#.utf8)) == nil)
        #expect(member.action(in: Array(#"{"battery":97}"#.utf8)) == nil, "a state without an action")
        #expect(member.action(in: Array(#"{"action":null}"#.utf8)) == nil)
        #expect(member.action(in: Array("hold".utf8)) == nil, "not JSON")
        #expect(member.action(in: Array(#"["hold"]"#.utf8)) == nil)
    }

    @Test("list paths: item indices become []")
    func listPattern() {
        #expect(ConfigurationSchema.listPattern("buttons") == "buttons")
        #expect(ConfigurationSchema.listPattern("buttons[12]") == "buttons[]")
        #expect(ConfigurationSchema.listPattern("wake.lights[0].color_temp") == "wake.lights[].color_temp")
    }
}

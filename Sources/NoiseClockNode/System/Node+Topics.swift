import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem

/// The topics a node listens to besides its commands, and the smart buttons' check.
extension Node {
    /// Every topic the node subscribes to: its commands, and Home Assistant's status.
    public var subscriptions: [String] {
        configuration.topics.commandFilters + (homeAssistant.map { [$0.statusTopic] } ?? []) + configuration.buttons.map(\.topic)
            + (configuration.display.luxTopic.isEmpty ? [] : [configuration.display.luxTopic])
    }

    /// Each configured button's actions against the node's verbs: an unknown verb, or a payload
    /// that does not fit its verb, is a configuration error naming the action (`Node.run` stops on it).
    public func checkButtons(source: String) throws(ConfigurationError) {
        for button in configuration.buttons {
            for (name, action) in button.actions.sorted(by: { $0.key < $1.key }) {
                if let problem = router.problem(verb: action.verb, payload: Array(action.payload.utf8)) {
                    throw ConfigurationError(key: "\(button.key).actions.\(name)", source: source, reason: problem.message)
                }
            }
        }
    }

    /// Handlers for subscribed topics that are not commands.
    var otherTopics: [String: @NodeActor @Sendable (MQTTMessage) -> Void] {
        var handlers: [String: @NodeActor @Sendable (MQTTMessage) -> Void] = [:]
        if let homeAssistant {
            handlers[homeAssistant.statusTopic] = { message in
                if message.text == "online" { homeAssistant.homeAssistantAnnounced() }
            }
        }
        // The room's light (SPEC §13): a retained reading counts too (it is the light now).
        if !configuration.display.luxTopic.isEmpty {
            let display = display
            handlers[configuration.display.luxTopic] = { message in
                if let lux = LuxReading.parse(message.payload) { display.observeLux(lux) }
            }
        }
        return handlers
    }
}

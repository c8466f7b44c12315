import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockMQTT
import ServiceLifecycle

/// Answers commands from `B/cmd/VERB` and `<base_topic>/all/cmd/VERB`.
public struct CommandService: Service, CustomStringConvertible {
    public var description: String { "CommandService" }
    let transport: any MQTTTransport
    let topics: Topics
    let router: CommandRouter
    let logger: Logger
    /// Subscribed topics that are not commands, each with what to do with a message on it
    /// (Home Assistant's status topic).
    let otherTopics: [String: @Sendable (MQTTMessage) -> Void]

    public init(
        transport: any MQTTTransport, topics: Topics, router: CommandRouter, logger: Logger,
        otherTopics: [String: @Sendable (MQTTMessage) -> Void] = [:]
    ) {
        self.transport = transport
        self.topics = topics
        self.router = router
        self.logger = logger
        self.otherTopics = otherTopics
    }

    public func run() async throws {
        // Usually done already before connecting (see `Node.run`); subscribing twice is a no-op.
        transport.subscribe(topics.commandFilters + otherTopics.keys.sorted())
        // `cancelWhenGracefulShutdown`, not `cancelOnGracefulShutdown()`: the latter merges two
        // sequences in an unstructured task, which runs on libdispatch's pool (see NodeExecutor).
        await cancelWhenGracefulShutdown {
            for await message in transport.messages {
                await transport.waitForRoom()
                await handle(message)
            }
        }
    }

    func handle(_ message: MQTTMessage) async {
        if let handler = otherTopics[message.topic] {
            handler(message)
            return
        }
        guard let verb = topics.verb(inCommandTopic: message.topic) else { return }
        // A retained command is by definition an old one: acting on it at connect time would be late.
        guard !message.retain else {
            logger.warning("ignored a retained command", metadata: ["topic": "\(message.topic)"])
            return
        }
        let transport = transport, topics = topics, logger = logger
        let responseTopic = transport.supportsProperties ? message.responseTopic.flatMap { $0.isEmpty ? nil : $0 } : nil
        let correlation = message.correlationData
        await router.handle(
            Command(verb: verb, payload: message.payload) { response in
                if case .failure(let error) = response.result {
                    logger.info("command rejected", metadata: ["verb": "\(verb)", "error": "\(error)"])
                } else {
                    logger.debug("command answered", metadata: ["verb": "\(verb)"])
                }
                // An MQTT 5 request's own response topic, with its correlation data; else B/response/VERB.
                let payload = response.json.serializedBytes
                if let responseTopic {
                    transport.publish(MQTTMessage(topic: responseTopic, payload: payload, qos: 1, correlationData: correlation))
                } else {
                    transport.publish(MQTTMessage(topic: topics.response(verb), payload: payload, qos: 1))
                }
            })
    }
}

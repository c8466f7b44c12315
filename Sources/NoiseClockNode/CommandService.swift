import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockMQTT
import ServiceLifecycle
import NoiseClockSystem

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
        //
        // Commands run side by side, up to `window` at once: a command that waits for its write
        // (`Ledger`) holds neither the next `ping` nor the other changes, which join its group
        // commit. Each starts in the order it arrived and stages its change before its first wait,
        // so changes of one document apply in the order they were sent.
        let window = AsyncGate(size: Self.window)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for await message in transport.messages {
                    await transport.waitForRoom()
                    await window.enter()
                    group.addTask {
                        await handle(message)
                        window.leave()
                    }
                }
            }
        }
    }

    /// Commands in progress at once; the next waits (and so does the reading of the broker's
    /// messages) until one ends.
    static let window = 64

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
                // At QoS 0 (docs/mqtt.md): only a requester waiting now can use an answer, and the
                // PUBACK of a QoS 1 answer woke the node a second time for every command.
                let payload = response.json.serializedBytes
                if let responseTopic {
                    transport.publish(MQTTMessage(topic: responseTopic, payload: payload, qos: 0, correlationData: correlation))
                } else {
                    transport.publish(MQTTMessage(topic: topics.response(verb), payload: payload, qos: 0))
                }
            })
    }
}

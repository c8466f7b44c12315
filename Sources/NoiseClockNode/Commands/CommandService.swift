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
    let otherTopics: [String: @NodeActor @Sendable (MQTTMessage) -> Void]
    /// The smart buttons (`buttons`) by their topic: a press is the command its action maps to.
    let buttons: [String: Configuration.Button]
    /// What the commands waiting for a place may hold, in bytes (`waitingByteLimit`).
    let waitingLimit: Int
    /// Where the commands that did not fit are counted (`B/status`'s `commands`).
    let status: StatusBoard?

    public init(
        transport: any MQTTTransport, topics: Topics, router: CommandRouter, logger: Logger,
        otherTopics: [String: @NodeActor @Sendable (MQTTMessage) -> Void] = [:], buttons: [Configuration.Button] = [],
        waitingLimit: Int = CommandService.waitingByteLimit, status: StatusBoard? = nil
    ) {
        self.transport = transport
        self.topics = topics
        self.router = router
        self.logger = logger
        self.otherTopics = otherTopics
        self.buttons = Dictionary(buttons.map { ($0.topic, $0) }) { first, _ in first }
        self.waitingLimit = waitingLimit
        self.status = status
    }

    public func run() async throws {
        // Usually done already before connecting (see `Node.run`); subscribing twice is a no-op.
        transport.subscribe(topics.commandFilters + otherTopics.keys.sorted() + buttons.keys.sorted())
        let intake = Intake(service: self)
        // On the loop thread at once for the node's own client; a hop, in order, for any other.
        transport.deliver { message in NodeActor.onLoop { intake.receive(message) } }
        // What is in progress at the stop ends on its own; nothing new starts.
        try? await gracefulShutdown()
        await intake.close()
    }

    /// Commands in progress at once; the next wait, in order, until one ends.
    static let window = 64
    /// What the commands waiting for a place may hold, in bytes: each counts its message's
    /// `heldBytes` (payload, topics, correlation data) and `commandCost` for the rest. A command
    /// that does not fit is answered `unavailable` at once (a flood, not a user): with 64 KiB
    /// payloads, about 250 wait, and the 64 in progress hold 4 MiB more.
    public static let waitingByteLimit = 16 << 20
    /// What a waiting command holds besides its message: the `Command`, its reply closure.
    static let commandCost = 256
    /// A refused command's `transaction` is echoed when its payload is this small: a flood of
    /// large ones is refused without reading them.
    static let refusalParseLimit = 4096

    /// Starts each command as a task of its own as it comes in, on the loop thread, in the order
    /// they arrived: a command that waits for its write (`Ledger`) holds neither the next `ping`
    /// nor the other changes, which join its group commit. Each stages its change before its
    /// first wait, so changes of one document apply in the order they were sent. Up to `window`
    /// run at once, and none starts while the outgoing queue is half full (`waitForRoom`, which
    /// resumes the intake when there is room): the rest wait here, within `waitingLimit` bytes.
    @NodeActor
    final class Intake {
        let service: CommandService
        private var running = 0
        /// The commands waiting, oldest first from `next`, each with what it holds; those before
        /// `next` have started and are nil, so their payloads are not kept until the next compaction.
        private var waiting: [(command: Command?, bytes: Int)] = []
        private var next = 0
        /// What `waiting[next...]` holds, within `service.waitingLimit`.
        private(set) var waitingBytes = 0
        /// Commands that did not fit, since the start: answered `unavailable`, or dropped unanswered
        /// (the outgoing queue was half full).
        private(set) var refused = 0
        private(set) var dropped = 0
        /// The counts changed since `B/status` last showed them.
        private var countsUnpublished = false
        private var waitingForRoom = false
        private var closed = false

        nonisolated init(service: CommandService) { self.service = service }

        func receive(_ message: MQTTMessage) {
            guard !closed, let command = service.command(for: message) else { return }
            if next == waiting.count, running < CommandService.window, !waitingForRoom, service.transport.hasRoom {
                // With nothing in progress, a verb that never waits (`ping`) is answered here, as
                // it is read, without a task. With a command in progress it gets a task like any
                // other, started after the earlier ones: an earlier command that has not yet run
                // its first part (staging its change) must not be overtaken.
                if running == 0, let response = service.router.respondNow(verb: command.verb, payload: command.payload) {
                    command.reply(response)
                } else {
                    start(command)
                }
            } else if waitingBytes + message.heldBytes + CommandService.commandCost <= service.waitingLimit {
                let bytes = message.heldBytes + CommandService.commandCost
                waiting.append((command, bytes))
                waitingBytes += bytes
                startWaiting()
            } else {
                refuse(command)
            }
        }

        /// Answers a command that does not fit `unavailable`: it changes nothing, and the sender
        /// may send it again once the node has caught up. While the outgoing queue is half full
        /// the refusal is not sent (it would only push older messages, an event, out of the queue),
        /// and the command is dropped. Either way it is counted in `B/status` (published at the
        /// first, every 1000th, and once what waited has started) and logged.
        private func refuse(_ command: Command) {
            let answered = service.transport.hasRoom
            if answered { refused += 1 } else { dropped += 1 }
            let count = refused + dropped
            service.status?.status.commands.value = ["refused": .number(Double(refused)), "dropped": .number(Double(dropped))]
            countsUnpublished = true
            if count == 1 || count % 1000 == 0 {
                service.logger.warning(
                    "too many commands waiting; refused one",
                    metadata: ["verb": "\(command.verb)", "refused": "\(refused)", "dropped": "\(dropped)"])
                publishCounts()
            }
            guard answered else { return }
            let transaction = command.payload.count <= CommandService.refusalParseLimit ? CommandPayload.decode(command.payload).transaction : nil
            let error = CommandError(
                .unavailable, "too many commands are waiting (\(service.waitingLimit >> 10) KiB); this one was not run: send it again later")
            command.reply(CommandResponse(.failure(error), transaction: transaction))
        }

        func close() { closed = true }

        private func publishCounts() {
            countsUnpublished = false
            service.status?.publish()
        }

        /// A task of the node (`NodeActor.task`), as every task of the node is: one made here
        /// without the loop as its executor preference would run on libdispatch's pool (see
        /// NodeExecutor), and one not isolated to NodeActor would hop at each feature it reaches.
        private func start(_ command: Command) {
            running += 1
            let router = service.router
            // Isolated to NodeActor: the router and the feature it reaches run without a hop.
            NodeActor.task(priority: .medium) {
                await router.handle(command)
                self.ended()
            }
        }

        private func ended() {
            running -= 1
            startWaiting()
        }

        private func roomAgain() {
            waitingForRoom = false
            startWaiting()
        }

        /// Starts the waiting commands there is room for, oldest first.
        private func startWaiting() {
            while next < waiting.count, running < CommandService.window, !closed, !waitingForRoom {
                guard service.transport.hasRoom else {
                    waitingForRoom = true
                    let transport = service.transport
                    NodeActor.task(priority: .medium) {
                        await transport.waitForRoom()
                        self.roomAgain()
                    }
                    return
                }
                let (command, bytes) = waiting[next]
                waiting[next].command = nil
                next += 1
                waitingBytes -= bytes
                if let command { start(command) }
            }
            if next == waiting.count {
                waiting.removeAll(keepingCapacity: waiting.count < 1024)
                next = 0
                // The flood is over: `B/status` shows the final counts.
                if countsUnpublished { publishCounts() }
            } else if next >= 4096, next * 2 >= waiting.count {
                waiting.removeFirst(next)
                next = 0
            }
        }
    }

    /// Answers one message (or runs its topic's handler) and returns once it is answered.
    @NodeActor
    func handle(_ message: MQTTMessage) async {
        guard let command = command(for: message) else { return }
        await router.handle(command)
    }

    /// The command `message` carries, with where its answer goes; nil after running the handler
    /// of a topic that is not a command, or for a retained command (ignored).
    @NodeActor
    func command(for message: MQTTMessage) -> Command? {
        if let handler = otherTopics[message.topic] {
            handler(message)
            return nil
        }
        if let button = buttons[message.topic] { return command(pressing: button, message) }
        guard let verb = topics.verb(inCommandTopic: message.topic) else { return nil }
        // A retained command is by definition an old one: acting on it at connect time would be late.
        guard !message.retain else {
            logger.warning("ignored a retained command", metadata: ["topic": "\(message.topic)"])
            return nil
        }
        let transport = transport, topics = topics, logger = logger
        let responseTopic = transport.supportsProperties ? message.responseTopic.flatMap { $0.isEmpty ? nil : $0 } : nil
        let correlation = message.correlationData
        return Command(verb: verb, payload: message.payload) { response in
            if case .failure(let error) = response.result {
                logger.info("command rejected", metadata: ["verb": "\(verb)", "error": "\(error)"])
            } else {
                logger.debug("command answered", metadata: ["verb": "\(verb)"])
            }
            // An MQTT 5 request's own response topic, with its correlation data; else B/response/VERB.
            // At QoS 0 (docs/mqtt.md): only a requester waiting now can use an answer, and the
            // PUBACK of a QoS 1 answer woke the node a second time for every command.
            let payload = response.serializedBytes
            if let responseTopic {
                transport.publish(MQTTMessage(topic: responseTopic, payload: payload, qos: 0, correlationData: correlation))
            } else {
                transport.publish(MQTTMessage(topic: topics.response(verb), payload: payload, qos: 0))
            }
        }
    }

    /// The command a smart button's message asks for, answered on `B/response/VERB` as if it had
    /// come to `B/cmd/VERB`; nil for a message without a mapped action, or a retained one (an old
    /// press: it must not act when the node connects).
    private func command(pressing button: Configuration.Button, _ message: MQTTMessage) -> Command? {
        guard !message.retain else { return nil }
        guard let (action, mapped) = button.command(for: message.payload) else {
            logger.debug("a button message without a mapped action", metadata: ["topic": "\(message.topic)"])
            return nil
        }
        logger.info("button pressed", metadata: ["button": "\(button.key)", "action": "\(action)", "verb": "\(mapped.verb)"])
        let transport = transport, topics = topics, logger = logger, verb = mapped.verb
        return Command(verb: verb, payload: Array(mapped.payload.utf8)) { response in
            if case .failure(let error) = response.result {
                logger.info("button command rejected", metadata: ["button": "\(button.key)", "verb": "\(verb)", "error": "\(error)"])
            }
            transport.publish(MQTTMessage(topic: topics.response(verb), payload: response.serializedBytes, qos: 0))
        }
    }
}

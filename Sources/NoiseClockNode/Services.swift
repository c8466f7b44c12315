import Foundation
import Logging
import NoiseClockCore
import NoiseClockMQTT
import ServiceLifecycle

/// Keeps the broker connection for the node's whole life; on shutdown publishes `offline` and
/// disconnects. First in the group, so it stops last, after everything that publishes.
public struct MQTTConnectionService: Service, CustomStringConvertible {
    public var description: String { "MQTTConnectionService" }
    let client: MQTTClient

    public init(client: MQTTClient) {
        self.client = client
    }

    public func run() async throws {
        client.start()
        try? await gracefulShutdown()
        await client.stop(timeout: .milliseconds(1500))
    }
}

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
        for await message in transport.messages.cancelOnGracefulShutdown() {
            await transport.waitForRoom()
            await handle(message)
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
        let response = await router.respond(verb: verb, payload: message.payload)
        if case .failure(let error) = response.result {
            logger.info("command rejected", metadata: ["verb": "\(verb)", "error": "\(error)"])
        } else {
            logger.debug("command answered", metadata: ["verb": "\(verb)"])
        }
        let payload = response.json.serializedBytes
        if transport.supportsProperties, let responseTopic = message.responseTopic, !responseTopic.isEmpty {
            transport.publish(
                MQTTMessage(topic: responseTopic, payload: payload, qos: 1, correlationData: message.correlationData))
        } else {
            transport.publish(MQTTMessage(topic: topics.response(verb), payload: payload, qos: 1))
        }
    }
}

/// Publishes `B/clock` when the displayed time changes: at each wall-clock minute (or second)
/// boundary, aligned, never drifting. Wakes at least once a second, so a jump of the wall clock
/// shows within a second.
public struct ClockService: Service, CustomStringConvertible {
    public var description: String { "ClockService" }
    let publisher: StatePublisher

    public init(publisher: StatePublisher) {
        self.publisher = publisher
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await tick() }
    }

    private func tick() async {
        var published: (tick: Int64, settings: ClockSettings)?
        while !Task.isCancelled {
            let now = publisher.clock.now()
            let face = publisher.clockFace()
            let tick = face.tick(at: now)
            if published?.tick != tick || published?.settings != face.settings {
                publisher.publishClock(at: now, face: face)
                published = (tick, face.settings)
            }
            let untilNext = face.nextTick(after: now).timeIntervalSince(now)
            let wait = min(untilNext, 1.0)
            do {
                try await publisher.clock.sleep(.microseconds(Int64(wait * 1_000_000)))
            } catch {
                return
            }
        }
    }
}

/// After every (re)connect, publishes `B/status` fresh. The client has already replayed the latest
/// value of every retained topic; only `uptime_s` in the status is out of date by then.
public struct ConnectionEventsService: Service, CustomStringConvertible {
    public var description: String { "ConnectionEventsService" }
    let transport: any MQTTTransport
    let publisher: StatePublisher
    let logger: Logger

    public func run() async throws {
        for await event in transport.events.cancelOnGracefulShutdown() {
            switch event {
            case .connected:
                publisher.publishStatus()
            case .subscribed:
                logger.debug("subscriptions acknowledged")
            case .disconnected(let reason):
                logger.warning("disconnected from the broker", metadata: ["reason": "\(reason)"])
            }
        }
    }
}

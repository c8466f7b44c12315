import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockMQTT
import ServiceLifecycle

/// Keeps the broker connection for the node's whole life; on shutdown publishes `offline` and
/// disconnects. First in the group, so it stops last, after everything that publishes.
public struct MQTTConnectionService: Service, CustomStringConvertible {
    public var description: String { "MQTTConnectionService" }
    let client: MQTTClient
    let notifier: SystemdNotifier

    public init(client: MQTTClient, notifier: SystemdNotifier = SystemdNotifier(environment: [:])) {
        self.client = client
        self.notifier = notifier
    }

    public func run() async throws {
        client.start()
        try? await gracefulShutdown()
        notifier.stopping()
        await client.stop(timeout: .milliseconds(1500))
    }
}

/// systemd's watchdog: `WATCHDOG=1` every half `WatchdogSec`, but only while the node works —
/// the MQTT network thread goes round its loop, and the Swift side (this task, and the alarm
/// scheduler's actor) gets to run. A hung node stops sending, and systemd restarts it.
public struct WatchdogService: Service, CustomStringConvertible {
    public var description: String { "WatchdogService" }
    let notifier: SystemdNotifier
    let interval: Duration
    /// When the MQTT network thread was last seen alive.
    let heartbeat: @Sendable () -> ContinuousClock.Instant
    let scheduler: AlarmScheduler
    let logger: Logger

    public func run() async {
        await cancelWhenGracefulShutdown {
            var warned = false
            while !Task.isCancelled {
                _ = await scheduler.responsive()
                let age = ContinuousClock.now - heartbeat()
                if age < .seconds(10) {
                    notifier.watchdog()
                    warned = false
                } else if !warned {
                    logger.error("the MQTT network thread has not run for \(age); holding back the watchdog")
                    warned = true
                }
                try? await Task.sleep(for: interval)
            }
        }
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

/// After every (re)connect, publishes `B/status` fresh. The client has already replayed the latest
/// value of every retained topic; only `uptime_s` in the status is out of date by then.
public struct ConnectionEventsService: Service, CustomStringConvertible {
    public var description: String { "ConnectionEventsService" }
    let transport: any MQTTTransport
    let publisher: StatePublisher
    let logger: Logger
    var notifier = SystemdNotifier(environment: [:])
    var broker = ""

    public func run() async throws {
        await cancelWhenGracefulShutdown { await follow() }
    }

    private func follow() async {
        var ready = false
        for await event in transport.events {
            switch event {
            case .connected:
                publisher.publishStatus()
                // The client has replayed every retained state before it reports the connection.
                if !ready {
                    notifier.ready(status: "connected to \(broker)")
                    ready = true
                } else {
                    notifier.status("connected to \(broker)")
                }
            case .subscribed:
                logger.debug("subscriptions acknowledged")
            case .disconnected(let reason):
                logger.warning("disconnected from the broker", metadata: ["reason": "\(reason)"])
                notifier.status("disconnected from \(broker) (\(reason)); reconnecting")
            }
        }
    }
}

import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockFace
import NoiseClockMQTT
import NoiseClockPower
import NoiseClockSystem
import ServiceLifecycle

/// The node: its state, its verbs, and the services that run it. `@main` only loads the
/// configuration and calls `Node.run`; tests build the same node with fakes.
public struct Node: Sendable {
    public let configuration: Configuration
    public let transport: any MQTTTransport
    public let publisher: StatePublisher
    public let router: CommandRouter
    public let battery: (any BatterySource)?
    /// The noise player; nil when the node runs without audio.
    public let noise: NoisePlayer?
    public let alarms: AlarmScheduler
    /// Home Assistant discovery; nil with `mqtt.discovery: false`.
    public let homeAssistant: HomeAssistantPublisher?
    /// Wakes the clock service after a settings change (`publish_seconds` changes its period).
    let clockWakeUp = WakeUp()
    let logger: Logger

    public init(
        configuration: Configuration, transport: any MQTTTransport, store: any Store, clock: NodeClock,
        battery: (any BatterySource)? = nil, audio: (any AudioOutput)? = nil, sounds: SoundLibrary = .empty,
        storeProblems: [String] = [], logger: Logger
    ) {
        self.configuration = configuration
        self.transport = transport
        self.battery = battery
        self.logger = logger
        let settings = SettingsModel(configured: configuration.clock, store: store, logger: logger)
        let stored = AlarmScheduler.load(from: store, logger: logger)
        let status = NodeStatus(
            startedAt: clock.now(), audioDevice: configuration.audio.device, audio: { audio?.status },
            batterySource: battery?.name ?? "none",
            problems: storeProblems + [settings.loadProblem, stored.problem].compactMap { $0 })
        let publisher = StatePublisher(
            transport: transport, topics: configuration.topics, settings: settings, status: status, clock: clock)
        self.publisher = publisher
        noise = audio.map {
            NoisePlayer(
                library: sounds, output: $0, store: store, publisher: publisher,
                fadeMilliseconds: configuration.audio.fadeMilliseconds, logger: logger)
        }
        let homeAssistant = configuration.mqtt.discovery
            ? HomeAssistantPublisher(
                discovery: HomeAssistantDiscovery(
                    topics: configuration.topics, prefix: configuration.mqtt.discoveryPrefix, deviceName: configuration.node.name,
                    version: NodeStatus.version, noiseSounds: sounds.catalog.sounds(of: .noise).map { ($0.id, $0.name) }),
                transport: transport, logger: logger)
            : nil
        self.homeAssistant = homeAssistant
        alarms = AlarmScheduler(
            state: stored.state, store: store, publisher: publisher, noise: noise, library: sounds,
            alarms: configuration.alarms, logger: logger, alarmsPublished: homeAssistant.map(Self.alarmsHook))
        self.router = Self.commands(publisher: publisher, noise: noise, alarms: alarms, clockWakeUp: clockWakeUp)
    }

    private static func alarmsHook(_ homeAssistant: HomeAssistantPublisher) -> @Sendable ([Alarm]) -> Void {
        { homeAssistant.alarmsChanged($0) }
    }

    /// Every verb the node answers (SPEC §2). A new verb is one `add` here.
    static func commands(publisher: StatePublisher, noise: NoisePlayer?, alarms: AlarmScheduler, clockWakeUp: WakeUp) -> CommandRouter {
        var router = CommandRouter()
        if let noise { NoiseCommands.add(to: &router, player: noise) }
        AlarmCommands.add(to: &router, scheduler: alarms)
        router.add("ping") { _ in
            publisher.statusJSON()
        }
        router.add("settings", shape: .object(bareValue: nil)) { arguments in
            let patch = try SettingsPatch(arguments)
            let before = publisher.settings.current
            let after = try publisher.settings.change(patch)
            if after != before {
                publisher.publishSettings()
                publisher.publishClock(at: publisher.clock.now(), face: publisher.clockFace())
                clockWakeUp.wake()
            }
            return after.json
        }
        return router
    }

    /// The services that answer commands and publish state; the MQTT connection itself is added by `run`.
    /// Every topic the node subscribes to: its commands, and Home Assistant's status.
    public var subscriptions: [String] {
        configuration.topics.commandFilters + (homeAssistant.map { [$0.discovery.statusTopic] } ?? [])
    }

    /// Handlers for subscribed topics that are not commands.
    var otherTopics: [String: @Sendable (MQTTMessage) -> Void] {
        guard let homeAssistant else { return [:] }
        return [
            homeAssistant.discovery.statusTopic: { message in
                if message.text == "online" { homeAssistant.homeAssistantAnnounced() }
            },
        ]
    }

    public func services(notifier: SystemdNotifier = SystemdNotifier(environment: [:])) -> [any Service] {
        var services: [any Service] = [
            CommandService(
                transport: transport, topics: configuration.topics, router: router, logger: logger, otherTopics: otherTopics),
            ClockService(publisher: publisher, wakeUp: clockWakeUp),
            ConnectionEventsService(
                transport: transport, publisher: publisher, logger: logger, notifier: notifier,
                broker: "\(configuration.mqtt.host):\(configuration.mqtt.port)"),
            AlarmService(scheduler: alarms),
        ]
        if let battery {
            services.append(BatteryService(source: battery, publisher: publisher, lowThreshold: configuration.battery.lowThreshold))
        }
        if let noise { services.append(NoiseService(player: noise, clock: publisher.clock)) }
        return services
    }

    /// Runs a node against the configured broker until SIGTERM or SIGINT.
    public static func run(configuration: Configuration, logger: Logger) async throws {
        let store = try FileStore(directory: configuration.stateDirectory)
        let client = try MQTTClient(options: try MQTTSettings.options(for: configuration), logger: logger)
        let battery = BatterySources.make(configuration.battery, sleep: NodeClock.live.sleep, logger: logger)
        let sounds = loadSounds(configuration, logger: logger)
        let relay = AudioStatusRelay()
        let engine = AudioEngine(device: configuration.audio.device, logger: logger) { relay.changed($0) }
        let node = Node(
            configuration: configuration, transport: client, store: store, clock: .live, battery: battery, audio: engine,
            sounds: sounds, logger: logger)
        relay.publisher = node.publisher
        // Subscribe before connecting: the client then sends the subscriptions ahead of `online`,
        // so a command sent the moment `online` is seen is never lost. Then queue every retained
        // state, so they go out right behind `online`.
        client.subscribe(node.subscriptions)
        node.publisher.publishAll()
        logger.info(
            "starting",
            metadata: [
                "node": "\(configuration.node.id)", "broker": "\(configuration.mqtt.host):\(configuration.mqtt.port)",
                "state_dir": "\(configuration.stateDirectory)",
            ])
        let notifier = SystemdNotifier()
        if notifier.isActive { notifier.status("connecting to \(configuration.mqtt.host):\(configuration.mqtt.port)") }
        var services: [any Service] = [MQTTConnectionService(client: client, notifier: notifier), AudioService(engine: engine)]
        services += node.services(notifier: notifier)
        if configuration.face.enabled { services.append(try node.faceService()) }
        if let interval = notifier.watchdogInterval {
            services.append(
                WatchdogService(
                    notifier: notifier, interval: interval, heartbeat: { client.lastHeartbeat }, scheduler: node.alarms, logger: logger))
        }
        var configuration = ServiceGroupConfiguration(services: services.map { .init(service: $0) }, logger: logger)
        // A stop never hangs: after 5 s of graceful shutdown the services are cancelled.
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        let group = ServiceGroup(configuration: configuration)
        // SIGTERM and SIGINT (blocked by `main`) come through a thread of their own.
        ShutdownSignals.watch { signal in
            logger.info("signal received; stopping", metadata: ["signal": "\(signal)"])
            Task(executorPreference: NodeExecutor.shared) { await group.triggerGracefulShutdown() }
        }
        try await group.run()
        logger.info("stopped")
    }
}

extension Node {
    /// The clock face's server (SPEC §9): commands through this node's router, states from its hub,
    /// its status in `B/status`'s `"face"`.
    func faceService() throws -> FaceService {
        let router = router, publisher = publisher
        return FaceService(
            settings: configuration.face, token: try ConfigurationLoader.faceToken(for: configuration.face), hub: publisher.hub,
            logger: logger, sleep: NodeClock.live.sleep, respond: { verb, payload in await router.respond(verb: verb, payload: payload).json }
        ) { status in
            publisher.status.face.value = status.json
            Task(executorPreference: NodeExecutor.shared) { publisher.publishStatus() }
        }
    }
}

/// The sound catalog from the resources beside the binary and `sounds.custom_dir`; empty (and
/// logged) when they cannot be found, so the node still runs.
func loadSounds(_ configuration: Configuration, logger: Logger) -> SoundLibrary {
    guard let resources = SoundLibrary.locateResources() else {
        logger.error("sound catalog not found (Resources/sounds.json); noise commands will answer not_found")
        return .empty
    }
    do {
        return try SoundLibrary.load(resources: resources, customDirectory: configuration.soundsCustomDirectory)
    } catch {
        logger.error("sound catalog unusable", metadata: ["error": "\(error)"])
        return .empty
    }
}

/// Carries the audio engine's status changes to `B/status` and `audio_error` events. Set once,
/// right after the node exists (the engine is made before it).
final class AudioStatusRelay: @unchecked Sendable {
    // @unchecked Sendable: `publisher` is written once before the engine starts, then only read.
    var publisher: StatePublisher?

    func changed(_ status: AudioStatus) {
        guard let publisher else { return }
        publisher.publishStatus()
        if !status.ok, let error = status.error {
            publisher.publishEvent("audio_error", ["device": .string(status.device), "error": .string(error)])
        }
    }
}

/// The client options a configuration gives.
public enum MQTTSettings {
    public static func options(for configuration: Configuration, clientID: String? = nil, availability: Bool = true)
        throws(ConfigurationError) -> MQTTOptions
    {
        let mqtt = configuration.mqtt
        let password = try ConfigurationLoader.password(for: mqtt)
        let tls = mqtt.tls.enabled
            ? MQTTOptions.TLS(caFile: mqtt.tls.caFile, certFile: mqtt.tls.certFile, keyFile: mqtt.tls.keyFile, insecure: mqtt.tls.insecure)
            : nil
        return MQTTOptions(
            host: mqtt.host, port: mqtt.port, clientID: clientID ?? mqtt.clientID,
            username: mqtt.username.isEmpty ? nil : mqtt.username, password: password,
            protocolVersion: mqtt.protocolVersion == .v5 ? .v5 : .v311, keepaliveSeconds: mqtt.keepaliveSeconds,
            tls: tls, availability: availability ? .init(topic: configuration.topics.availability) : nil)
    }
}

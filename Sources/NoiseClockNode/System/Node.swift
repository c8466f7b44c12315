import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockHub
import NoiseClockDisplay
import NoiseClockFace
import NoiseClockMQTT
import NoiseClockPower
import NoiseClockSystem
import ServiceLifecycle
import Synchronization

/// The node: its state, its verbs, and the services that run it. `@main` only loads the
/// configuration and calls `Node.run`; tests build the same node with fakes.
public struct Node: Sendable {
    public let configuration: Configuration
    public let transport: any MQTTTransport
    /// Every retained state and event; the MQTT publisher is its first subscriber.
    public let hub: StateHub
    /// Writes the stored documents on a thread of its own (group commit, one failure policy).
    public let writer: StoreWriter
    public let time: NodeTime
    public let settings: SettingsModel
    public let status: StatusBoard
    public let router: CommandRouter
    public let battery: (any BatterySource)?
    /// One source at a time (SPEC §10); nil when the node runs without audio.
    public let arbiter: AudioArbiter?
    /// The noise player; nil when the node runs without audio.
    public let noise: NoisePlayer?
    /// The radio; nil when the node runs without audio.
    public let radio: RadioPlayer?
    /// The clock's voice (SPEC §16).
    public let speaker: Speaker
    /// The weather (SPEC §17); its service runs only with a `weather.source`.
    public let weather: WeatherService
    /// The calendars (SPEC §17); its service runs only with `calendar.feeds`.
    public let calendar: CalendarService
    public let alarms: AlarmScheduler
    /// The countdown timers (SPEC §10).
    public let timers: TimerScheduler
    /// Meditation sessions and their history (SPEC §10).
    public let meditation: MeditationSession
    /// The screen: night or day, brightness, `B/display` (SPEC §9).
    public let display: DisplayController
    /// Bedtime: the reminder and the wind-down (SPEC §13).
    public let bedtime: BedtimeScheduler
    /// The kids' OK-to-wake clock (SPEC §13).
    public let kids: KidsClockScheduler
    /// The night light: the screen as a lamp (SPEC §13).
    public let nightLight: NightLightController
    /// The node's own light sensor (SPEC §13), read while the night follows the light; not with `display.lux_topic`.
    public let lightSensor: LightSensor?
    /// The guided meditations of `meditations.dir`, `B/meditations` (SPEC §10).
    public let meditations: MeditationLibrary
    /// Home Assistant discovery; nil with `mqtt.discovery: false`.
    public let homeAssistant: HomeAssistantPublisher?
    /// The message catalogs and the language in force (SPEC §11).
    public let language: NodeLanguage
    let logger: Logger

    public init(
        configuration: Configuration, transport: any MQTTTransport, store: any Store, clock: NodeClock,
        battery: (any BatterySource)? = nil, audio: (any AudioOutput)? = nil, sounds: SoundLibrary = .empty,
        storeProblems: [String] = [], screen: ScreenHandle? = nil, lightSensor: LightSensor? = nil, catalogs: Catalogs? = nil,
        logger: Logger
    ) {
        self.configuration = configuration
        self.transport = transport
        self.battery = battery
        self.logger = logger
        let lightSensor = configuration.display.luxTopic.isEmpty ? lightSensor : nil
        self.lightSensor = lightSensor
        let hub = StateHub()
        hub.subscribe(MQTTStatePublisher(transport: transport, topics: configuration.topics).handle)
        self.hub = hub
        // The writer's health is `B/status`'s `storage`; the board is made below, after the settings.
        let storage = StatusSlot()
        let board = Mutex<StatusBoard?>(nil)
        let writer = StoreWriter(store: store) { problem in
            if let problem {
                logger.error("the state folder cannot be written", metadata: ["error": "\(problem)"])
            } else {
                logger.notice("the state folder can be written again")
            }
            storage.value = problem.map { ["ok": false, "error": .string($0)] } ?? ["ok": true, "error": nil]
            if let status = board.withLock({ $0 }) { NodeActor.onLoop { status.publish() } }
        }
        self.writer = writer
        let settings = SettingsModel(configured: configuration.clock, writer: writer, hub: hub, logger: logger)
        self.settings = settings
        let time = NodeTime(clock: clock, settings: settings)
        self.time = time
        let language = NodeLanguage(catalogs: catalogs ?? NodeLanguage.shipped(logger: logger)) { settings.current.language }
        self.language = language
        let stored = AlarmScheduler.load(from: store, logger: logger)
        let storedTimers = TimerScheduler.load(from: store, logger: logger)
        let storedBedtime = BedtimeScheduler.load(from: store, logger: logger)
        let storedKids = KidsClockScheduler.load(from: store, logger: logger)
        let storedNightLight = NightLightController.load(from: store, logger: logger)
        let storedWeather = WeatherService.load(from: store, logger: logger)
        status = StatusBoard(
            status: NodeStatus(
                startedAt: clock.now(), audioDevice: configuration.audio.device, audio: { audio?.status },
                batterySource: battery?.name ?? "none",
                problems: storeProblems + [settings.loadProblem, stored.problem, storedTimers.problem, storedBedtime.problem, storedKids.problem,
                    storedNightLight.problem, storedWeather.problem].compactMap { $0 },
                storage: storage),
            hub: hub, time: time)
        let madeStatus = status
        board.withLock { $0 = madeStatus }
        let arbiter = audio.map { AudioArbiter(output: $0, fadeFrames: AudioFormat.frames(milliseconds: configuration.audio.fadeMilliseconds)) }
        self.arbiter = arbiter
        noise = arbiter.map {
            NoisePlayer(
                library: sounds, arbiter: $0, writer: writer, hub: hub, time: time,
                fadeMilliseconds: configuration.audio.fadeMilliseconds, logger: logger)
        }
        let radio = arbiter.map { [noise] in
            RadioPlayer(
                configuration: configuration.radio, arbiter: $0, noise: noise, writer: writer, hub: hub, time: time,
                fadeMilliseconds: configuration.audio.fadeMilliseconds, logger: logger)
        }
        self.radio = radio
        // Names and options in the language in force, made again in the new one when the
        // settings' language changes (the settings signal).
        let drivesScreen = screen != nil, catalogs = language.catalogs
        let homeAssistant = configuration.mqtt.discovery
            ? HomeAssistantPublisher(language: language.language, transport: transport, logger: logger) { language in
                HomeAssistantDiscovery(
                    topics: configuration.topics, prefix: configuration.mqtt.discoveryPrefix, deviceName: configuration.node.name,
                    version: NodeStatus.version, noiseSounds: sounds.catalog.sounds(of: .noise), screen: drivesScreen,
                    lux: !configuration.display.luxTopic.isEmpty || lightSensor != nil, speech: configuration.speech.engine != .none,
                    alarmTimeEntity: configuration.homeAssistant.alarmTimeEntity, catalogs: catalogs, language: language)
            }
            : nil
        homeAssistant?.follow(hub.signals)
        self.homeAssistant = homeAssistant
        alarms = AlarmScheduler(
            state: stored.state, writer: writer, hub: hub, time: time, arbiter: arbiter, library: sounds,
            alarms: configuration.alarms, holidays: configuration.wake.holidays,
            lamps: WakeLamps(lamps: configuration.wake.lights, transport: transport),
            radio: radio.flatMap { radio in arbiter.map { AlarmRadio(player: radio, arbiter: $0, hub: hub, time: time, logger: logger) } },
            calendarFeeds: configuration.calendar.feeds.map(\.id), logger: logger)
        let timers = TimerScheduler(
            book: storedTimers.book, writer: writer, hub: hub, time: time, arbiter: arbiter, library: sounds,
            ringTimeoutSeconds: configuration.timers.ringTimeoutSeconds, graceMinutes: configuration.alarms.missedGraceMinutes,
            logger: logger)
        self.timers = timers
        let display = DisplayController(
            hub: hub, time: time, screen: screen, sun: Self.sun(configuration.display, time: time), logger: logger)
        self.display = display
        let bedtime = BedtimeScheduler(state: storedBedtime.state, writer: writer, hub: hub, time: time, noise: noise, logger: logger)
        bedtime.watchSignals()
        self.bedtime = bedtime
        let kids = KidsClockScheduler(announced: storedKids.announced, writer: writer, hub: hub, time: time, logger: logger)
        kids.watchSignals()
        self.kids = kids
        let nightLight = NightLightController(light: storedNightLight.light, writer: writer, hub: hub, time: time, logger: logger)
        self.nightLight = nightLight
        let meditations = MeditationLibrary(directory: configuration.meditations.directory, writer: writer, hub: hub, logger: logger)
        self.meditations = meditations
        let meditation = MeditationSession(
            hub: hub, time: time, arbiter: arbiter, sounds: sounds, guided: meditations, writer: writer,
            fadeMilliseconds: configuration.audio.fadeMilliseconds, logger: logger)
        self.meditation = meditation
        let speaker = Speaker(
            configuration: configuration.speech, arbiter: arbiter, hub: hub, time: time, holidays: configuration.wake.holidays, logger: logger)
        self.speaker = speaker
        weather = WeatherService(
            configuration: configuration.weather, report: storedWeather.report, writer: writer, hub: hub, time: time, logger: logger)
        calendar = CalendarService(
            configuration: configuration.calendar, stateDirectory: configuration.stateDirectory, hub: hub, time: time, logger: logger)
        // Every verb the node answers (SPEC §2), by feature: a new verb is an `add` in its group,
        // a new group one line here.
        router = CommandRouter(groups: [
            SystemCommands(status: status, catalog: sounds.catalog, language: language),
            SettingsCommands(
                settings: settings, time: time, hub: hub, catalog: sounds.catalog, stations: { radio?.stations ?? RadioStations() }),
            WakeCommands(settings: settings, time: time),
            AlarmCommands(scheduler: alarms, language: language),
            TimerCommands(timers: timers, language: language),
            DismissCommands(alarms: alarms, timers: timers),
            DisplayCommands(display: display),
            BedtimeCommands(bedtime: bedtime),
            NightLightCommands(light: nightLight),
            MeditationLibraryCommands(library: meditations),
            MeditationCommands(session: meditation),
            SpeechCommands(speaker: speaker, alarms: alarms, time: time),
        ] + (noise.map { [NoiseCommands(player: $0)] } ?? []) + (radio.map { [RadioCommands(player: $0)] } ?? []))
    }

    /// Sunrise and sunset from `display.latitude`/`longitude`, in the zone in force; none without them.
    static func sun(_ display: Configuration.Display, time: NodeTime) -> NightSchedule.SunEvent {
        guard let latitude = display.latitude, let longitude = display.longitude else { return { _, _ in nil } }
        return { edge, day in
            let sun = SunTimes.day(day, latitude: latitude, longitude: longitude, zone: time.zone())
            return edge == .sunset ? sun.sunset : sun.sunrise
        }
    }


    /// Emits the states the node has from its start (status, settings, clock); the services emit
    /// theirs as they start.
    @NodeActor
    public func publishStartStates() {
        status.publish()
        settings.publish()
        hub.publish(StateTopic.clock, time.face().state(at: time.now()).json)
    }

    /// The services that answer commands and publish state; the MQTT connection itself is added by `run`.
    public func services(notifier: SystemdNotifier = SystemdNotifier(environment: [:])) -> [any Service] {
        var services: [any Service] = [
            CommandService(
                transport: transport, topics: configuration.topics, router: router, logger: logger, otherTopics: otherTopics,
                buttons: configuration.buttons, status: status),
            ClockService(hub: hub, time: time),
            ClockworkService("AlarmService", alarms),
            ClockworkService("TimerService", timers),
            ClockworkService("MeditationService", meditation),
            ClockworkService("BedtimeService", bedtime),
            ClockworkService("KidsClockService", kids),
            ClockworkService("NightLightService", nightLight),
            DisplayService(display: display, clock: time.clock),
            MeditationLibraryService(library: meditations),
        ]
        if let battery {
            services.append(BatteryService(source: battery, hub: hub, time: time, lowThreshold: configuration.battery.lowThreshold))
        }
        if let noise { services.append(NoiseService(player: noise, clock: time.clock)) }
        if let radio { services.append(ClockworkService("RadioService", radio)) }
        services.append(ClockworkService("SpeechService", speaker))
        if configuration.weather.source != .none { services.append(ClockworkService("WeatherService", weather)) }
        if !configuration.calendar.feeds.isEmpty { services.append(ClockworkService("CalendarService", calendar)) }
        if let lightSensor { services.append(LightSensorService(sensor: lightSensor, display: display, hub: hub, logger: logger)) }
        // Last: it tells systemd READY=1 once the services above have started.
        services.append(
            ConnectionEventsService(
                transport: transport, status: status, logger: logger, notifier: notifier,
                broker: "\(configuration.mqtt.host):\(configuration.mqtt.port)"))
        return services
    }

    /// Runs a node against the configured broker until SIGTERM or SIGINT.
    public static func run(configuration: Configuration, logger: Logger) async throws {
        let store = try FileStore(directory: configuration.stateDirectory)
        let client = try MQTTClient(options: try MQTTSettings.options(for: configuration), logger: logger, sleep: NodeClock.live.sleep)
        let battery = BatterySources.make(configuration.battery, sleep: NodeClock.live.sleep, logger: logger)
        let sounds = loadSounds(configuration, logger: logger)
        let (screen, screenProblem) = loadScreen(configuration.display, logger: logger)
        let (lightSensor, sensorProblem) = loadLightSensor(configuration.display, logger: logger)
        // The engine reports status changes on its own thread; the audio service carries them on.
        let (audioChanges, audioContinuation) = AsyncStream.makeStream(of: AudioStatus.self, bufferingPolicy: .bufferingNewest(8))
        let engine = AudioEngine(device: configuration.audio.device, logger: logger) { audioContinuation.yield($0) }
        let node = Node(
            configuration: configuration, transport: client, store: store, clock: .live, battery: battery, audio: engine,
            sounds: sounds, storeProblems: [screenProblem, sensorProblem].compactMap { $0 }, screen: screen, lightSensor: lightSensor,
            logger: logger)
        try node.checkButtons(source: "the configuration file")
        // Subscribe before connecting: the client then sends the subscriptions ahead of `online`,
        // so a command sent the moment `online` is seen is never lost. Then queue every retained
        // state, so they go out right behind `online`.
        client.subscribe(node.subscriptions)
        await node.publishStartStates()
        logger.info(
            "starting",
            metadata: [
                "node": "\(configuration.node.id)", "broker": "\(configuration.mqtt.host):\(configuration.mqtt.port)",
                "state_dir": "\(configuration.stateDirectory)",
            ])
        let notifier = SystemdNotifier()
        if notifier.isActive { notifier.status("connecting to \(configuration.mqtt.host):\(configuration.mqtt.port)") }
        var services: [any Service] = [MQTTConnectionService(client: client, notifier: notifier), AudioService(engine: engine, changes: audioChanges, status: node.status)]
        services += node.services(notifier: notifier)
        if configuration.face.enabled { services.append(try node.faceService()) }
        if let interval = notifier.watchdogInterval {
            services.append(
                WatchdogService(
                    notifier: notifier, interval: interval, heartbeat: { client.lastHeartbeat }, scheduler: node.alarms,
                    sleep: NodeClock.live.sleep, logger: logger))
        }
        var configuration = ServiceGroupConfiguration(services: services.map { .init(service: $0) }, logger: logger)
        // A stop never hangs: after 5 s of graceful shutdown the services are cancelled.
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        let group = ServiceGroup(configuration: configuration)
        // SIGTERM and SIGINT (blocked by `main`) come through a thread of their own.
        ShutdownSignals.watch { signal in
            logger.info("signal received; stopping", metadata: ["signal": "\(signal)"])
            NodeActor.task { await group.triggerGracefulShutdown() }
        }
        try await group.run()
        // What the clock changed last (a ring, a timer's end) is stored without waiting: on disk before the exit.
        await node.writer.flush()
        logger.info("stopped")
    }
}

extension Node {
    /// The clock face's server (SPEC §9): commands through this node's router, states from its hub,
    /// its status in `B/status`'s `"face"`.
    func faceService() throws -> FaceService {
        let router = router, status = status, language = language
        return FaceService(
            settings: configuration.face, token: try ConfigurationLoader.faceToken(for: configuration.face), hub: hub,
            logger: logger, sleep: NodeClock.live.sleep, respond: { verb, payload in await router.respond(verb: verb, payload: payload).json },
            strings: { code in Language(rawValue: code).map(language.faceStrings) }
        ) { face in
            status.status.face.value = face.json
            NodeActor.onLoop { status.publish() }
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

/// The screen `display.*` names (a backlight found or named, or on/off commands), as the display
/// controller drives it: each change on a thread of its own, since a command may take seconds. A
/// screen that cannot be used is logged and reported (`B/status` problems); the node runs without.
func loadScreen(_ display: Configuration.Display, logger: Logger) -> (ScreenHandle?, String?) {
    do {
        guard let control = try ScreenControls.make(
            backlight: display.backlight, onCommand: display.onCommand, offCommand: display.offCommand)
        else {
            logger.info("no screen to drive (no backlight device, no display.on_command)")
            return (nil, nil)
        }
        logger.info("screen", metadata: ["screen": "\(control.name)"])
        let changes = ScreenChanges(control)
        let handle = ScreenHandle(name: control.name) { level in
            let change = changes.change(to: level)
            return {
                try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                    Threads.start(name: "screen") {
                        do {
                            try change()
                            done.resume()
                        } catch {
                            done.resume(throwing: error)
                        }
                    }
                }
            }
        }
        return (handle, nil)
    } catch {
        logger.error("the screen cannot be used", metadata: ["error": "\(error)"])
        return (nil, "\(error.key): \(error.reason)")
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

import FoundationEssentials
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization

/// Emits the node's retained states and its events into the `StateHub`, whose subscribers (the
/// MQTT publisher first) carry them to their transports.
public struct StatePublisher: Sendable {
    public let hub: StateHub
    public let topics: Topics
    public let settings: SettingsModel
    public let status: NodeStatus
    public let clock: NodeClock

    public init(hub: StateHub, topics: Topics, settings: SettingsModel, status: NodeStatus, clock: NodeClock) {
        self.hub = hub
        self.topics = topics
        self.settings = settings
        self.status = status
        self.clock = clock
    }

    /// A publisher whose hub has `transport` as its MQTT subscriber (what the node and the
    /// service tests use).
    public init(transport: any MQTTTransport, topics: Topics, settings: SettingsModel, status: NodeStatus, clock: NodeClock) {
        let hub = StateHub()
        hub.subscribe(MQTTStatePublisher(transport: transport, topics: topics).handle)
        self.init(hub: hub, topics: topics, settings: settings, status: status, clock: clock)
    }

    public func clockFace() -> ClockFace {
        ClockFace(settings: settings.current, systemZone: clock.systemTimeZone())
    }

    public func publishClock(at instant: Date, face: ClockFace) {
        publishRetained(topics.clock, face.state(at: instant).json)
    }

    /// The status as `ping` answers it, times in the clock's zone.
    public func statusJSON() -> JSONValue {
        status.json(at: clock.now(), in: timeZone())
    }

    /// The zone in force, without building a whole ClockFace.
    public func timeZone() -> Zone {
        settings.current.zone(system: clock.systemTimeZone())
    }

    public func publishSettings() {
        publishRetained(topics.settings, settings.current.json)
    }

    public func publishStatus() {
        publishRetained(topics.status, statusJSON())
    }

    /// Every retained state, as after a start or a reconnect.
    public func publishAll() {
        publishStatus()
        publishSettings()
        publishClock(at: clock.now(), face: clockFace())
    }

    public func publishNoise(_ mix: NoiseMix) {
        let zone = timeZone()
        publishRetained(topics.noise, mix.json { ISOTime.string(Date(timeIntervalSince1970: $0), in: zone) })
    }

    public func publishBattery(_ reading: BatteryReading) {
        publishRetained(topics.battery, reading.json)
    }

    /// `B/alarms`, `B/alarm/next` or `B/alarm/state`.
    public func publishAlarmState(_ topic: String, _ value: JSONValue) {
        publishRetained(topic, value)
    }

    public func publishEvent(_ name: String, _ details: [String: JSONValue] = [:]) {
        var members = details
        members["event"] = .string(name)
        members["at"] = .string(ISOTime.string(clock.now(), in: timeZone()))
        hub.emit(.object(members))
    }

    /// `topic` is the full MQTT topic (`B/clock`); the hub keys states by the part after `B/`.
    private func publishRetained(_ topic: String, _ value: JSONValue) {
        let prefix = topics.node + "/"
        hub.publish(topic.hasPrefix(prefix) ? String(topic.dropFirst(prefix.count)) : topic, value)
    }
}

/// What `B/status` and `ping` report.
public struct NodeStatus: Sendable {
    public static let version = "0.1.0"

    public let startedAt: Date
    public let audioDevice: String
    /// The audio engine's state now; nil when the node runs without one (tests).
    public let audio: @Sendable () -> AudioStatus?
    /// `upower`, `sysfs`, or `none` (no source found, or `battery.source: none`).
    public let batterySource: String
    /// Problems found at start (an unreadable stored file moved aside), reported until restart.
    public let problems: [String]
    /// The face's `{"url","ok","error","clients"}` once its service reports (absent when it is off).
    public let face = StatusSlot()

    public init(
        startedAt: Date, audioDevice: String, audio: @escaping @Sendable () -> AudioStatus? = { nil },
        batterySource: String = "none", problems: [String]
    ) {
        self.startedAt = startedAt
        self.audioDevice = audioDevice
        self.audio = audio
        self.batterySource = batterySource
        self.problems = problems
    }

    private var audioJSON: JSONValue {
        guard let status = audio() else {
            return ["device": .string(audioDevice), "ok": false, "error": "no audio engine", "xruns": 0]
        }
        return [
            "device": .string(status.device), "ok": .bool(status.ok), "error": status.error.map { .string($0) } ?? .null,
            "xruns": .number(Double(status.xruns)),
        ]
    }

    public func json(at now: Date, in zone: Zone) -> JSONValue {
        var members: [String: JSONValue] = [
            "version": .string(Self.version),
            "started_at": .string(ISOTime.string(startedAt, in: zone)),
            "uptime_s": .number(max(0, now.timeIntervalSince(startedAt).rounded(.down))),
            "audio": audioJSON,
            "battery_source": .string(batterySource),
            "problems": .array(problems.map { .string($0) }),
        ]
        if let face = face.value { members["face"] = face }
        return .object(members)
    }
}

/// A part of the status that a service reports as it changes (the face's).
public final class StatusSlot: Sendable {
    private let slot = Mutex<JSONValue?>(nil)

    public init() {}

    public var value: JSONValue? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
}

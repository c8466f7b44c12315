import FoundationEssentials
import NoiseClockAudio
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem
import Synchronization

/// `B/status`: what the node knows of itself, emitted into the hub on connect and on change, and
/// the answer to `ping`.
public struct StatusBoard: Sendable {
    public let status: NodeStatus
    let hub: StateHub
    let time: NodeTime

    public init(status: NodeStatus, hub: StateHub, time: NodeTime) {
        self.status = status
        self.hub = hub
        self.time = time
    }

    /// The status as `ping` answers it, times in the zone in force.
    public func json() -> JSONValue { status.json(at: time.now(), in: time.zone()) }

    public func publish() { hub.publish(StateTopic.status, json()) }

    /// The audio output changed: `B/status` again, and an `audio_error` event when it failed.
    public func audioChanged(_ audio: AudioStatus) {
        publish()
        let failure = audio.ok ? nil : audio.error ?? "the audio device failed"
        NodeActor.onLoop { [hub] in hub.signals.send(.audioFailed(failure)) }
        if !audio.ok, let error = audio.error {
            hub.emit(time.event("audio_error", ["device": .string(audio.device), "error": .string(error)]))
        }
    }
}

/// What `B/status` and `ping` report.
public struct NodeStatus: Sendable {
    public static let version = BuildVersion.text

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
    /// `{"refused","dropped"}`: commands that did not fit among those waiting (a flood), answered
    /// `unavailable` or dropped unanswered, since the start; absent until the first.
    public let commands = StatusSlot()
    /// `{"ok","error"}`: whether the last write of the state folder worked (SPEC §8), absent
    /// until the first write.
    public let storage: StatusSlot
    /// The last status made, with what it was made from: every `ping` in the same second with
    /// nothing changed answers it again instead of building it anew.
    private let made = StatusMemo<Made>()

    private struct Made: Sendable {
        var uptime: Double
        var zone: String
        var audio: AudioStatus?
        var face: JSONValue?
        var storage: JSONValue?
        var commands: JSONValue?
        var json: JSONValue
    }

    public init(
        startedAt: Date, audioDevice: String, audio: @escaping @Sendable () -> AudioStatus? = { nil },
        batterySource: String = "none", problems: [String], storage: StatusSlot = StatusSlot()
    ) {
        self.storage = storage
        self.startedAt = startedAt
        self.audioDevice = audioDevice
        self.audio = audio
        self.batterySource = batterySource
        self.problems = problems
    }

    private func audioJSON(_ status: AudioStatus?) -> JSONValue {
        guard let status else {
            return ["device": .string(audioDevice), "ok": false, "error": "no audio engine", "xruns": 0]
        }
        return [
            "device": .string(status.device), "ok": .bool(status.ok), "error": status.error.map { .string($0) } ?? .null,
            "xruns": .number(Double(status.xruns)),
        ]
    }

    public func json(at now: Date, in zone: Zone) -> JSONValue {
        let uptime = max(0, now.timeIntervalSince(startedAt).rounded(.down))
        let audio = audio(), face = face.value, storage = storage.value, commands = commands.value
        let kept: JSONValue? = made.read { last in
            // Not `nil` in a conditional: JSONValue takes a nil literal as JSON's null.
            guard let last, last.uptime == uptime, last.zone == zone.identifier, last.audio == audio, last.face == face,
                  last.storage == storage, last.commands == commands else { return .none }
            return last.json
        }
        if let kept { return kept }
        var members: [String: JSONValue] = [
            "version": .string(Self.version),
            "started_at": .string(ISOTime.string(startedAt, in: zone)),
            "uptime_s": .number(uptime),
            "audio": audioJSON(audio),
            "battery_source": .string(batterySource),
            "problems": .array(problems.map { .string($0) }),
        ]
        if let face { members["face"] = face }
        if let storage { members["storage"] = storage }
        if let commands { members["commands"] = commands }
        let json = JSONValue.object(members)
        made.value = Made(uptime: uptime, zone: zone.identifier, audio: audio, face: face, storage: storage, commands: commands, json: json)
        return json
    }
}

/// A part of the status that a service reports as it changes (the face's, the storage's).
public typealias StatusSlot = StatusMemo<JSONValue>

/// A value kept behind a lock until it is replaced: a part a service reports, or one the status
/// made once and keeps until it no longer fits.
public final class StatusMemo<Value: Sendable>: Sendable {
    private let slot = Mutex<Value?>(nil)

    public init() {}

    public var value: Value? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }

    /// What `body` takes from the value, read under the lock without copying the rest.
    public func read<Part: Sendable>(_ body: (Value?) -> Part) -> Part {
        slot.withLock { body($0) }
    }
}

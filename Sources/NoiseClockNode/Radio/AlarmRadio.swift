import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockHub
import NoiseClockStreams
import NoiseClockSystem

/// An alarm that wakes to a station, and is never silent (SPEC §15). The station is connected up
/// to a minute ahead, silently (its ring keeps the newest seconds), so its first second is heard
/// at the ring. A station that makes no sound within `radio.start_timeout_s`, or stops while
/// ringing, gives way to its fallback station, then to the built-in tone, each change an
/// `alarm_fallback` event; no network at all is the tone at once. The station sounds as the
/// alarm's tone (`AudioArbiter.startTone`), so its fade-in, the cover over everything else, snooze
/// and dismiss are a tone's.
@NodeActor
public final class AlarmRadio {
    let player: RadioPlayer
    let arbiter: AudioArbiter
    let hub: StateHub
    let time: NodeTime
    let logger: Logger
    let policy: StreamSession.Policy
    let startTimeout: Duration

    /// The session connected ahead, for an alarm and a station.
    private var prepared: (alarmID: String, station: String, session: StreamSession)?
    private var ring: Ring?

    /// One ring: its chain of stations, the one sounding now, and what it falls back to at the end.
    private struct Ring {
        var alarmID: String
        var chain: [RadioStation]
        var index: Int
        var gain: Float
        var rampFrames: Int
        var session: StreamSession
        var deadline: Task<Void, Never>?
        var tone: @NodeActor () -> Void
    }

    public nonisolated init(player: RadioPlayer, arbiter: AudioArbiter, hub: StateHub, time: NodeTime, caFile: String? = nil, logger: Logger) {
        self.player = player
        self.arbiter = arbiter
        self.hub = hub
        self.time = time
        self.logger = logger
        let configuration = player.configuration
        policy = .alarm(startTimeoutSeconds: configuration.startTimeoutSeconds, bufferSeconds: configuration.bufferSeconds, caFile: caFile)
        startTimeout = .seconds(configuration.startTimeoutSeconds)
    }

    /// The station of an alarm's sound `radio:<id>`, when it is one of the node's.
    func station(ofSound sound: String) -> RadioStation? {
        RadioPlayer.station(inSound: sound).flatMap { player.stations.station(named: $0) }
    }

    /// Whether an alarm's sound names a station (one that may have been deleted since).
    nonisolated static func isStation(_ sound: String) -> Bool { RadioPlayer.station(inSound: sound) != nil }

    // MARK: Ahead of the ring

    /// The alarms within the minute (`alarmID` and its sound): the first one with a station is
    /// connected now, silently; a session prepared for an alarm no longer due is ended.
    func prepare(_ soon: [(alarmID: String, sound: String)]) {
        let due = soon.first { station(ofSound: $0.sound) != nil }
        if let prepared, due?.alarmID != prepared.alarmID || station(ofSound: due?.sound ?? "")?.id != prepared.station {
            if ring?.session !== prepared.session { prepared.session.stop() }
            self.prepared = nil
        }
        guard prepared == nil, ring == nil, let due, let station = station(ofSound: due.sound) else { return }
        let session = makeSession(station)
        prepared = (due.alarmID, station.id, session)
        logger.info("alarm station connecting ahead", metadata: ["alarm": "\(due.alarmID)", "station": "\(station.id)"])
        session.start()
    }

    // MARK: The ring

    /// Rings `sound`'s station for `alarmID`; `tone` rings the built-in tone when every station
    /// failed. False when the sound names no station the node has (the caller rings its tone).
    func start(alarmID: String, sound: String, volume: Int, rampSeconds: Int, tone: @escaping @NodeActor () -> Void) -> Bool {
        guard let first = station(ofSound: sound) else { return false }
        stop()
        let chain = player.stations.chain(from: first.id)
        var session: StreamSession
        if let prepared, prepared.alarmID == alarmID, prepared.station == first.id, prepared.session.phase != .failed {
            session = prepared.session
        } else {
            prepared?.session.stop()
            session = makeSession(first)
            session.start()
        }
        prepared = nil
        ring = Ring(
            alarmID: alarmID, chain: chain, index: 0, gain: Volume.gain(volume),
            rampFrames: AudioFormat.frames(milliseconds: rampSeconds * 1000), session: session, tone: tone)
        play(session)
        return true
    }

    /// The ring is over (dismissed, snoozed, silenced) or the tone took over: the station stops.
    func stop() {
        guard let ring else { return }
        ring.deadline?.cancel()
        ring.session.stop()
        self.ring = nil
    }

    /// Puts the ring's session in the mix as the alarm's tone, and gives it `start_timeout_s` to
    /// sound (none when it sounds already: a station connected ahead).
    private func play(_ session: StreamSession) {
        guard var ring else { return }
        arbiter.startTone(.alarm, sample: session.source, gain: ring.gain, rampFrames: ring.rampFrames)
        ring.deadline?.cancel()
        ring.deadline = nil
        if session.soundings == 0 {
            let timeout = startTimeout, clock = time.clock
            ring.deadline = NodeActor.task { [weak self] in
                guard (try? await clock.sleep(timeout)) != nil else { return }
                self?.timedOut(session)
            }
        }
        self.ring = ring
        // A session connected ahead may have failed meanwhile.
        if session.phase == .failed { next(reason: session.error ?? "the stream failed") }
    }

    private func timedOut(_ session: StreamSession) {
        guard let ring, ring.session === session, session.soundings == 0 else { return }
        next(reason: "no sound within \(player.configuration.startTimeoutSeconds) s" + (session.error.map { " (\($0))" } ?? ""))
    }

    private func changed(_ session: StreamSession) {
        guard var ring, ring.session === session else { return }
        if session.phase == .playing, let deadline = ring.deadline {
            deadline.cancel()
            ring.deadline = nil
            self.ring = ring
        }
        if session.phase == .failed { next(reason: session.error ?? "the stream failed") }
    }

    /// The station sounding gave up: the next of the chain, else the tone; `alarm_fallback` says so.
    private func next(reason: String) {
        guard var ring else { return }
        ring.deadline?.cancel()
        ring.deadline = nil
        ring.session.stop()
        let from = ring.chain[ring.index].id
        ring.index += 1
        let to = ring.index < ring.chain.count ? ring.chain[ring.index] : nil
        logger.warning(
            "alarm station failed", metadata: ["alarm": "\(ring.alarmID)", "station": "\(from)", "to": "\(to?.id ?? "tone")", "reason": "\(reason)"])
        hub.emit(time.event("alarm_fallback", [
            "alarm_id": .string(ring.alarmID), "from": .string("radio:\(from)"), "to": .string(to.map { "radio:\($0.id)" } ?? "tone"),
            "reason": .string(reason),
        ]))
        guard let to else {
            self.ring = nil
            ring.tone()
            return
        }
        ring.session = makeSession(to)
        self.ring = ring
        ring.session.start()
        play(ring.session)
    }

    private func makeSession(_ station: RadioStation) -> StreamSession {
        StreamSession(
            target: StreamSession.Target(station: station.id, name: station.name, url: station.url),
            bufferSeconds: player.configuration.bufferSeconds, policy: policy, clock: time.clock
        ) { [weak self] session in self?.changed(session) }
    }
}

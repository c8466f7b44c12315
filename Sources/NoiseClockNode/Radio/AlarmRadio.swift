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
        /// The alarm's fade-in; a source that starts later rises over what is left of it.
        var rampSeconds: Int
        var startedAt: ContinuousClock.Instant
        var session: StreamSession
        /// The window of silence running (nil while a station sounds).
        var silence: Task<Void, Never>?
        var tone: @NodeActor (_ rampSeconds: Int) -> Void
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

    /// A station that failed while connected ahead is tried again every few seconds until the
    /// ring (a moment's trouble is mended before it is heard); the session that failed stays in
    /// place meanwhile, so a ring in between moves on to the fallback at once.
    private func retryAhead(_ alarmID: String, _ stationID: String, failed: StreamSession) {
        logger.info("alarm station failed ahead; trying again", metadata: ["station": "\(stationID)", "error": "\(failed.error ?? "")"])
        let clock = time.clock
        NodeActor.task { [weak self] in
            guard (try? await clock.sleep(Self.retryAheadDelay)) != nil, let self, let prepared = self.prepared,
                prepared.session === failed, self.ring == nil, let station = self.player.stations.station(named: stationID)
            else { return }
            let session = self.makeSession(station)
            self.prepared = (alarmID, stationID, session)
            session.start()
        }
    }

    nonisolated static let retryAheadDelay: Duration = .seconds(3)

    // MARK: The ring

    /// Rings `sound`'s station for `alarmID`; `tone` rings the built-in tone (given the seconds of
    /// fade-in left) when the chain is spent or nothing sounded within the timeout. False when the
    /// sound names no station the node has (the caller rings its tone and says why).
    func start(
        alarmID: String, sound: String, volume: Int, rampSeconds: Int, tone: @escaping @NodeActor (_ rampSeconds: Int) -> Void
    ) -> Bool {
        guard let first = station(ofSound: sound) else { return false }
        stop()
        let chain = player.stations.chain(from: first.id)
        let session: StreamSession
        if let prepared, prepared.alarmID == alarmID, prepared.station == first.id {
            // Even one that failed ahead: the chain moves on from it at once, not after a timeout.
            session = prepared.session
        } else {
            prepared?.session.stop()
            session = makeSession(first)
            session.start()
        }
        prepared = nil
        ring = Ring(
            alarmID: alarmID, chain: chain, index: 0, gain: Volume.gain(volume), rampSeconds: rampSeconds,
            startedAt: ContinuousClock.now, session: session, tone: tone)
        play(session)
        return true
    }

    /// The ring is over (dismissed, snoozed, silenced) or the tone took over: the station stops.
    func stop() {
        guard let ring else { return }
        ring.silence?.cancel()
        ring.session.stop()
        self.ring = nil
    }

    /// Puts the ring's session in the mix as the alarm's tone. While nothing sounds, one window of
    /// `start_timeout_s` runs (from the ring, or from the moment a sounding station stopped): the
    /// chain is tried within it, and when it closes in silence the tone rings. So no gap is longer
    /// than the timeout, however many stations fail slowly.
    private func play(_ session: StreamSession) {
        guard var ring else { return }
        let elapsed = ContinuousClock.now - ring.startedAt
        let left = max(0, ring.rampSeconds - Int(elapsed.components.seconds))
        arbiter.startTone(.alarm, sample: session.source, gain: ring.gain, rampFrames: AudioFormat.frames(milliseconds: left * 1000))
        if session.soundings > 0 {
            ring.silence?.cancel()
            ring.silence = nil
        } else if ring.silence == nil {
            let timeout = startTimeout, clock = time.clock
            ring.silence = NodeActor.task { [weak self] in
                guard (try? await clock.sleep(timeout)) != nil else { return }
                self?.silentTooLong()
            }
        }
        self.ring = ring
        // A session connected ahead may have failed already.
        if session.phase == .failed { next(reason: session.error ?? "the stream failed") }
    }

    private func silentTooLong() {
        guard let ring, ring.session.soundings == 0 || ring.session.phase != .playing else { return }
        let seconds = player.configuration.startTimeoutSeconds
        next(reason: "no sound within \(seconds) s" + (ring.session.error.map { " (\($0))" } ?? ""), toTone: true)
    }

    private func changed(_ session: StreamSession) {
        if let prepared, prepared.session === session, ring == nil {
            if session.phase == .failed { retryAhead(prepared.alarmID, prepared.station, failed: session) }
            if session.phase == .playing { logger.info("alarm station ready ahead", metadata: ["station": "\(prepared.station)"]) }
            return
        }
        guard var ring, ring.session === session else { return }
        if session.phase == .playing, let silence = ring.silence {
            silence.cancel()
            ring.silence = nil
            self.ring = ring
        }
        if session.phase == .failed { next(reason: session.error ?? "the stream failed") }
    }

    /// The station sounding gave up: the next of the chain (unless the silence window closed),
    /// else the tone; `alarm_fallback` says so.
    private func next(reason: String, toTone: Bool = false) {
        guard var ring else { return }
        ring.session.stop()
        let from = ring.chain[ring.index].id
        ring.index += 1
        let to = toTone || ring.index >= ring.chain.count ? nil : ring.chain[ring.index]
        logger.warning(
            "alarm station failed", metadata: ["alarm": "\(ring.alarmID)", "station": "\(from)", "to": "\(to?.id ?? "tone")", "reason": "\(reason)"])
        hub.emit(time.event("alarm_fallback", [
            "alarm_id": .string(ring.alarmID), "from": .string("radio:\(from)"), "to": .string(to.map { "radio:\($0.id)" } ?? "tone"),
            "reason": .string(reason),
        ]))
        guard let to else {
            ring.silence?.cancel()
            self.ring = nil
            let elapsed = ContinuousClock.now - ring.startedAt
            ring.tone(max(0, ring.rampSeconds - Int(elapsed.components.seconds)))
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

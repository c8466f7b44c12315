import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockHub
import NoiseClockStreams
import NoiseClockSystem

/// The radio (SPEC §15): the `radio/*` verbs, the stations, retained `B/radio`, its events and its
/// sleep timer. Radio and noise are one player: a station starting stops the noise and noise
/// starting stops the station (`NoisePlayer` calls `stop(reason:)`), `noise/stop`, `noise/toggle`
/// and `noise/sleep` reach the station too, and a station sounds as noise does under the §10
/// priorities (an alarm covers it, a preview ducks it; it plays on, unheard, and is heard again
/// after).
///
/// `radio.json` keeps the stations added at run time, the volume, and what plays (so a station
/// playing when the node stopped plays again when it starts), written through the `Ledger` like
/// every document: a verb's change is stored before it is heard.
@NodeActor
public final class RadioPlayer {
    public nonisolated static let documentName = "radio.json"
    /// Each station that starts gets a mixer input of its own, so one fades out while the next rises.
    nonisolated static let inputPrefix = "radio:"

    let configuration: Configuration.Radio
    let arbiter: AudioArbiter
    let hub: StateHub
    let time: NodeTime
    let fadeFrames: Int
    let logger: Logger
    /// The listening policy; tests give it their own CA.
    let policy: StreamSession.Policy
    /// The noise half of the one player.
    nonisolated let noise: NoisePlayer?

    private var ledger: Ledger<Document, Effect>
    private var session: StreamSession?
    private var sessionInput: String?
    private var inputCount = 0
    /// `B/radio` as last published, less the stations (which come from the document).
    private var state = RadioState()
    private var sleepFadeStarted = false
    private var resumed = false
    /// Wakes the radio's clockwork when its sleep timer changes.
    public nonisolated let wakeUp = WakeUp()

    typealias Event = (name: String, details: [String: JSONValue])

    /// What a change brings about once current: an event, and the station a station verb made.
    struct Effect: Sendable {
        var event: Event?
        var station: RadioStation?

        init(_ event: Event? = nil, station: RadioStation? = nil) {
            self.event = event
            self.station = station
        }
    }

    public nonisolated init(
        configuration: Configuration.Radio, arbiter: AudioArbiter, noise: NoisePlayer?, writer: StoreWriter, hub: StateHub,
        time: NodeTime, fadeMilliseconds: Int, caFile: String? = nil, logger: Logger
    ) {
        self.configuration = configuration
        self.noise = noise
        self.arbiter = arbiter
        self.hub = hub
        self.time = time
        self.fadeFrames = AudioFormat.frames(milliseconds: fadeMilliseconds)
        self.logger = logger
        policy = .listening(bufferSeconds: configuration.bufferSeconds, caFile: caFile)
        var stored = Document()
        if case .value(let value) = writer.store.load(Self.documentName), let document = Document(stored: value) {
            stored = document
        }
        ledger = Ledger(Self.documentName, stored, writer: writer) { $0.stored }
        noise?.join(self)
    }

    /// The file's stations and those added at run time.
    public var stations: RadioStations { RadioStations(file: configuration.stations, added: ledger.current.added) }

    /// Whether a station is meant to sound now.
    public var isPlaying: Bool { ledger.current.playing != nil }
    // MARK: Verbs

    /// `radio/play`: a station (id or name) or an address; the noise stops (one player).
    public func play(station reference: String?, url: String?, volume: Int?, sleepMinutes: Int?) async throws(CommandError) -> JSONValue {
        let target: StreamSession.Target
        if let url {
            try RadioStation.validateURL(url)
            target = stations.stations.first { $0.url == url }.map { StreamSession.Target(station: $0.id, name: $0.name, url: $0.url) }
                ?? StreamSession.Target(station: nil, name: Self.host(of: url), url: url)
        } else if let reference {
            guard let station = stations.station(named: reference) else {
                throw CommandError(.notFound, "no station \(reference)", field: "station")
            }
            target = StreamSession.Target(station: station.id, name: station.name, url: station.url)
        } else {
            throw CommandError.invalidField("station", "a station id or name, or a url, is required")
        }
        if let noise, noise.mix.playing { try await noise.stop(reason: "radio", radio: false) }
        let now = time.now()
        let answer = try await change { document throws(CommandError) in
            if let volume { document.volume = volume }
            if let sleepMinutes { document.sleepTimerEndsAt = sleepMinutes > 0 ? now.timeIntervalSince1970 + Double(sleepMinutes * 60) : nil }
            // The station that plays plays on (its volume and timer may change).
            guard document.playing != target else { return Effect() }
            if sleepMinutes == nil, document.playing == nil { document.sleepTimerEndsAt = nil }
            document.playing = target
            return Effect(Self.started(target))
        }
        // One player: noise that started while this change was stored stops now (the later wins).
        if let noise, noise.mix.playing, isPlaying { try await noise.stop(reason: "radio", radio: false) }
        return answer
    }

    private nonisolated static func started(_ target: StreamSession.Target) -> Event {
        ("radio_started", ["station": target.station.map { .string($0) } ?? .null, "name": .string(target.name)])
    }

    /// `radio/stop`, and the noise's stop, toggle and start (one player).
    @discardableResult
    public func stop(reason: String = "command") async throws(CommandError) -> JSONValue {
        try await change { document throws(CommandError) in Effect(Self.stop(reason: reason, in: &document)) }
    }

    public func setVolume(_ volume: Int) async throws(CommandError) -> JSONValue {
        try await change { document throws(CommandError) in
            document.volume = volume
            return Effect()
        }
    }

    /// The sleep timer (`radio/play`'s `sleep_min`, and `noise/sleep` while a station plays).
    public func setSleepTimer(minutes: Int) async throws(CommandError) -> JSONValue {
        let now = time.now()
        return try await change { document throws(CommandError) in
            if minutes > 0 && document.playing == nil {
                throw CommandError(.conflict, "no station is playing; start one with radio/play and sleep_min", field: "minutes")
            }
            document.sleepTimerEndsAt = minutes > 0 ? now.timeIntervalSince1970 + Double(minutes * 60) : nil
            return Effect()
        }
    }

    public func addStation(_ arguments: CommandArguments) async throws(CommandError) -> JSONValue {
        let fixed = configuration.stations
        let added = try await stationChange { document throws(CommandError) in
            var stations = RadioStations(file: fixed, added: document.added)
            let station = try stations.add(arguments)
            document.added = stations.added
            return station
        }
        return added.json
    }

    public func updateStation(_ arguments: CommandArguments) async throws(CommandError) -> JSONValue {
        let fixed = configuration.stations
        return try await stationChange { document throws(CommandError) in
            var stations = RadioStations(file: fixed, added: document.added)
            let station = try stations.update(arguments)
            document.added = stations.added
            return station
        }.json
    }

    public func deleteStation(id: String) async throws(CommandError) -> JSONValue {
        let fixed = configuration.stations
        return try await stationChange { document throws(CommandError) in
            var stations = RadioStations(file: fixed, added: document.added)
            let station = try stations.delete(id: id)
            document.added = stations.added
            return station
        }.json
    }

    // MARK: Time: the sleep timer

    /// The end of the sleep timer: its last minute fades the station out, its end stops it.
    func tick() {
        let document = ledger.current
        guard let endsAt = document.sleepTimerEndsAt.map(Date.init(timeIntervalSince1970:)), document.playing != nil else { return }
        let remaining = endsAt.timeIntervalSince(time.now())
        if remaining <= 0 {
            var next = document
            let event = Self.stop(reason: "sleep_timer", in: &next)
            ledger.adopt(next)
            apply(from: document)
            if let event { hub.emit(time.event(event.name, event.details)) }
            hub.emit(time.event("sleep_timer_finished"))
        } else if remaining <= 60, !sleepFadeStarted, let input = sessionInput {
            sleepFadeStarted = true
            let frames = AudioFormat.frames(milliseconds: Int(remaining * 1000))
            arbiter.update(.noise) { $0.setGain(input, to: 0, overFrames: frames) }
        }
    }

    /// When `tick` has something to do next: the start of the sleep timer's last minute, or its end.
    var nextTick: Date? {
        guard let endsAt = ledger.current.sleepTimerEndsAt.map(Date.init(timeIntervalSince1970:)), ledger.current.playing != nil else {
            return nil
        }
        return sleepFadeStarted ? endsAt : endsAt.addingTimeInterval(-60)
    }

    // MARK: Start-up

    /// Plays again the station that was playing when the node stopped (unless its sleep timer has
    /// run out); publishes `B/radio`.
    func resume() {
        guard !resumed else { return }
        resumed = true
        let stored = ledger.current
        var next = stored
        if let endsAt = stored.sleepTimerEndsAt, endsAt <= time.now().timeIntervalSince1970 {
            _ = Self.stop(reason: "resume", in: &next)
        }
        ledger.adopt(next)
        apply(from: Document())
        if let playing = next.playing {
            logger.info("radio resumed", metadata: ["station": "\(playing.station ?? playing.url)"])
            let event = Self.started(playing)
            hub.emit(time.event(event.name, event.details))
        }
        publishState()
    }

    public func publishState() {
        state.volume = ledger.current.volume
        state.sleepTimerEndsAt = ledger.current.sleepTimerEndsAt
        state.bufferedSeconds = session?.buffer.bufferedSeconds ?? 0
        hub.publish(StateTopic.radio, currentJSON)
        // Home Assistant's Radio select offers them (the hub sends a signal only when it changed).
        hub.signals.send(.radioStations(stations.stations))
    }

    // MARK: Helpers

    /// Stages a change of the document, waits for its write, then makes it heard.
    private func change(_ body: @escaping @Sendable (inout Document) throws(CommandError) -> Effect) async throws(CommandError) -> JSONValue {
        _ = try await commit(body)
        return currentJSON
    }

    private func commit(_ body: @escaping @Sendable (inout Document) throws(CommandError) -> Effect) async throws(CommandError) -> Effect {
        let effect = try await Ledger.commit(body, what: "the radio", in: { $0(&ledger) }) { made in
            apply(from: made.before)
            for case let event? in made.effects.map(\.event) { hub.emit(time.event(event.name, event.details)) }
        }
        publishState()
        return effect
    }

    /// A change of the stations; its answer is the station it made.
    private func stationChange(
        _ body: @escaping @Sendable (inout Document) throws(CommandError) -> RadioStation
    ) async throws(CommandError) -> RadioStation {
        let effect = try await commit { document throws(CommandError) in Effect(station: try body(&document)) }
        guard let station = effect.station else { throw CommandError(.internal, "the station was not changed") }
        return station
    }

    private var currentJSON: JSONValue {
        let stations = stations
        return state.json(stations: stations.stations, fixed: stations.fixed, directory: !configuration.directory.isEmpty) {
            time.iso(Date(timeIntervalSince1970: $0))
        }
    }

    /// Makes the mixer play the document, coming from `before`: a new station starts in a session
    /// of its own and fades in once it sounds, the one before fades out; the volume glides.
    private func apply(from before: Document) {
        let after = ledger.current
        if after.sleepTimerEndsAt != before.sleepTimerEndsAt { sleepFadeStarted = false }
        if after.playing != before.playing || (after.playing != nil && session == nil) {
            endSession()
            if let target = after.playing { startSession(target) } else if state.phase != .failed { state = RadioState() }
        } else if after.volume != before.volume, let input = sessionInput, !sleepFadeStarted {
            let gain = Volume.gain(after.volume)
            arbiter.update(.noise) { $0.setGain(input, to: gain, overFrames: AudioFormat.frames(milliseconds: 200)) }
        }
        wakeUp.wake()
    }

    private func startSession(_ target: StreamSession.Target) {
        inputCount += 1
        let input = "\(Self.inputPrefix)\(inputCount)"
        let session = StreamSession(
            target: target, bufferSeconds: configuration.bufferSeconds, policy: policy, clock: time.clock
        ) { [weak self] session in self?.sessionChanged(session) }
        self.session = session
        sessionInput = input
        state = RadioState()
        state.phase = .connecting
        state.station = target.station
        state.name = target.name
        state.url = target.url
        let gain = Volume.gain(ledger.current.volume), frames = fadeFrames
        // In the mix at once: silence until the stream sounds, then its audio, faded in.
        arbiter.update(.noise) { $0.add(input, source: session.source, gain: gain, fadeInFrames: frames) }
        session.start()
    }

    private func endSession() {
        guard let session else { return }
        session.stop()
        if let input = sessionInput {
            let frames = fadeFrames
            arbiter.update(.noise) { $0.fadeOut(input, overFrames: frames) }
        }
        self.session = nil
        sessionInput = nil
    }

    /// The session's news: `B/radio`, and when it failed, the stop it brings (stored, an event).
    private func sessionChanged(_ session: StreamSession) {
        guard session === self.session else { return }
        state.phase = session.phase
        state.codec = session.info?.codec
        state.bitrateKbps = session.info?.bitrateKbps
        state.nowPlaying = session.title
        state.error = session.error
        if session.phase == .failed {
            let reason = session.error ?? "the stream could not be played"
            logger.warning("radio failed", metadata: ["station": "\(session.target.station ?? session.target.url)", "reason": "\(reason)"])
            let before = ledger.current
            var next = before
            next.playing = nil
            next.sleepTimerEndsAt = nil
            ledger.adopt(next)
            apply(from: before)
            hub.emit(time.event("radio_failed", ["station": session.target.station.map { .string($0) } ?? .null, "reason": .string(reason)]))
        }
        publishState()
    }

    private nonisolated static func stop(reason: String, in document: inout Document) -> Event? {
        guard let playing = document.playing else { return nil }
        document.playing = nil
        document.sleepTimerEndsAt = nil
        return ("radio_stopped", ["station": playing.station.map { .string($0) } ?? .null, "reason": .string(reason)])
    }

    /// The station id of a sound reference `radio:<id>` (SPEC §15: alarms, bedtime, `noise/play`).
    public nonisolated static func station(inSound sound: String) -> String? {
        guard sound.hasPrefix("radio:") else { return nil }
        return String(sound.dropFirst("radio:".count))
    }

    /// A name for an address played as it is: its host.
    nonisolated static func host(of url: String) -> String {
        let rest = url.drop { $0 != ":" }.dropFirst(3)
        return String(rest.prefix { $0 != "/" && $0 != ":" && $0 != "?" })
    }
}

/// The radio's sleep timer: its last minute and its end; nothing timed, no deadline.
extension RadioPlayer: Clockwork {
    public func start() async { resume() }

    public func look() async -> Date? {
        tick()
        return nextTick
    }

    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }
}

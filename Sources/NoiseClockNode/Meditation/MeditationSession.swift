import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem

/// Meditation sessions (SPEC §10): the `meditation/*` verbs, `B/meditation`,
/// `B/meditation/stats`, the gongs and the background, and the history.
///
/// A session claims the output (`AudioArbiter`, source `.meditation`) from its start until its
/// completion gong has rung out, or until it is stopped: noise fades out meanwhile and comes back
/// after; an alarm or a ringing timer covers it. A timed session keeps time under cover and its
/// gongs that fall there are skipped (still reported, `"skipped":true`); a guided meditation pauses
/// under cover and plays on when uncovered. Gongs are sounded at the wake-up planned for their
/// instant, their event sent at the same moment.
@NodeActor
public final class MeditationSession {
    /// How often `B/meditation` is sent again while a guided meditation plays (its `position_s`).
    public nonisolated static let positionPeriod: TimeInterval = 15
    /// Who keeps the session's gong decoded (`SoundLibrary.keepReady`).
    nonisolated static let gongOwner = "meditation"
    /// The longest a completion gong keeps the output after the session ends.
    public nonisolated static let ringOutLimit: TimeInterval = 30
    nonisolated static let backgroundInput = "meditation:background"

    let hub: StateHub
    let time: NodeTime
    let arbiter: AudioArbiter?
    let sounds: SoundLibrary
    let guided: GuidedLibrary?
    let logger: Logger
    let fadeFrames: Int
    nonisolated let wakeUp = WakeUp()

    /// The session under way or completed; nil when idle.
    var session: Session?
    /// `meditation-history.json`: the sessions as stored, and those waiting for their write.
    var ledger: Ledger<MeditationHistory, Void>
    var history: MeditationHistory { ledger.current }
    var looks = Looks()
    /// While the completion gong rings out the output stays claimed, until this instant.
    var releaseAt: Date?
    var gongCount = 0
    /// The gong inputs that may still ring (a stop fades them out).
    var soundingGongs: [String] = []

    public nonisolated convenience init(
        hub: StateHub, time: NodeTime, arbiter: AudioArbiter?, sounds: SoundLibrary, guided: GuidedLibrary? = nil,
        store: any Store, fadeMilliseconds: Int, logger: Logger
    ) {
        self.init(
            hub: hub, time: time, arbiter: arbiter, sounds: sounds, guided: guided, writer: StoreWriter(store: store),
            fadeMilliseconds: fadeMilliseconds, logger: logger)
    }

    public nonisolated init(
        hub: StateHub, time: NodeTime, arbiter: AudioArbiter?, sounds: SoundLibrary, guided: GuidedLibrary? = nil,
        writer: StoreWriter, fadeMilliseconds: Int, logger: Logger
    ) {
        self.hub = hub
        self.time = time
        self.arbiter = arbiter
        self.sounds = sounds
        self.guided = guided
        self.logger = logger
        self.fadeFrames = AudioFormat.frames(milliseconds: fadeMilliseconds)
        ledger = Ledger(MeditationHistory.documentName, Self.loadHistory(from: writer.store, logger: logger), writer: writer) { $0.stored }
        // An alarm or a ringing timer starting or ending wakes the service: a guided meditation
        // pauses or plays on, and `B/meditation` says so.
        let wakeUp = self.wakeUp
        arbiter?.onTopChange { _ in wakeUp.wake() }
        // A settings change (a session's defaults, the language of its names) is looked at at once.
        hub.signals.subscribe { signal in if case .settings = signal { wakeUp.wake() } }
    }

    // MARK: Verbs

    /// `meditation/start`: a timed session with `draft`'s members over `settings.meditation`.
    public func start(_ draft: MeditationDraft) throws(CommandError) -> JSONValue {
        advance()
        try refuseIfActive()
        let plan = try draft.session(over: time.settings.current.meditation, catalog: sounds.catalog)
        let now = time.now()
        // The meditation begins on a whole second (the preparation takes the rest of this one), so
        // `next_gong_at` and the gong's event read exactly the instant the gong sounds.
        let preparation = plan.preparationSeconds > 0
            ? (now.timeIntervalSince1970 + Double(plan.preparationSeconds)).rounded(.up) - now.timeIntervalSince1970 : 0
        let timer = MeditationTimer(
            startedAt: now, preparation: preparation, duration: Double(plan.minutes * 60), interval: Double(plan.intervalMinutes * 60))
        begin(.timed(TimedSession(plan: plan, timer: timer)))
        logger.info("meditation started", metadata: ["minutes": "\(plan.minutes)", "preparation_s": "\(plan.preparationSeconds)"])
        advance()
        return state(at: time.now())
    }

    /// `meditation/pause`: a timed session (preparing or running) or a guided meditation that plays.
    public func pause() throws(CommandError) -> JSONValue {
        advance()
        let now = time.now()
        switch session {
        case .timed(var timed) where [.preparing, .running].contains(timed.timer.phase(at: now)):
            timed.timer.pause(at: now)
            session = .timed(timed)
            setBackground(audible: false)
        case .guided(var play) where play.phase == .running:
            play.userPaused = true
            session = .guided(play)
            applyPlayback(at: now)
        default:
            throw CommandError(.conflict, "no meditation is running (\(stateName(at: now)))")
        }
        changed(at: now)
        return state(at: now)
    }

    /// `meditation/resume`: a session paused by `meditation/pause`.
    public func resume() throws(CommandError) -> JSONValue {
        advance()
        let now = time.now()
        switch session {
        case .timed(var timed) where timed.timer.phase(at: now) == .paused:
            timed.timer.resume(at: now)
            session = .timed(timed)
            if timed.timer.handled > 0 { setBackground(audible: true) }
        case .guided(var play) where play.userPaused && play.phase != .completed:
            // Under an alarm or a ringing timer it stays paused, and plays on when that ends.
            play.userPaused = false
            session = .guided(play)
            applyPlayback(at: now)
        case .guided(let play) where play.covered && play.phase != .completed:
            throw CommandError(.conflict, "the meditation is paused while an alarm or a timer rings; it plays on after")
        default:
            throw CommandError(.conflict, "no meditation is paused (\(stateName(at: now)))")
        }
        changed(at: now)
        return state(at: now)
    }

    /// `meditation/stop`: ends the session (recorded when some of it was meditated), or clears a
    /// completed one.
    /// The session stops at once; the answer waits for its record's write (a failure is logged).
    public func stop() async throws(CommandError) -> JSONValue {
        advance()
        let now = time.now()
        guard let session else { throw CommandError(.conflict, "no meditation is under way") }
        var recording: StoreTicket?
        if stateName(at: now) != "completed" {
            let meditated = session.meditated(at: now)
            if meditated > 0 { recording = record(session, meditated: meditated, completed: false) }
            var details = session.eventDetails
            details["elapsed_s"] = .number(meditated.rounded(.down))
            details["minutes"] = .number(Double(MeditationRecord.minutes(meditated: meditated)))
            hub.emit(time.event("meditation_stopped", details))
            logger.info("meditation stopped", metadata: ["elapsed_s": "\(Int(meditated))"])
        }
        self.session = nil
        sounds.keepReady([], for: Self.gongOwner)
        silenceAll()
        changed(at: now)
        let answer = state(at: now)
        do {
            try await recording?.wait()
        } catch {
            logger.error("a stopped meditation could not be recorded", metadata: ["error": "\(error)"])
        }
        return answer
    }

    // MARK: Time

    /// Publishes `B/meditation` and `B/meditation/stats` (at start).
    public func start() {
        guard looks.start() else { return }
        changed(at: time.now())
    }

    /// Sounds and reports what is due, follows the cover of a higher source, and returns the
    /// next instant at which something is due (nil: nothing).
    @discardableResult
    public func advance() -> Date? {
        let now = time.now()
        defer { looks.record(now) }
        var wakes: [Date] = []
        switch session {
        case .timed(let timed):
            wakes += advanceTimed(timed, now: now)
        case .guided:
            wakes += advanceGuided(now: now)
        case nil:
            break
        }
        if let releaseAt {
            if let previous = looks.last, now < previous { self.releaseAt = releaseAt.addingTimeInterval(now.timeIntervalSince(previous)) }
            if let end = self.releaseAt, now >= end {
                self.releaseAt = nil
                arbiter?.claim(.meditation, false)
            } else if let end = self.releaseAt {
                wakes.append(end)
            }
        }
        changed(at: now)
        if let change = MeditationStats.nextChange(history, now: now, zone: time.zone()) { wakes.append(change) }
        return wakes.min()
    }

    /// Sleeps until `deadline`, or less when a verb, the arbiter or a change of the wall clock wakes it.
    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }

    private func advanceTimed(_ timed: TimedSession, now: Date) -> [Date] {
        let step = MeditationClockwork.step(timed.timer, now: now, previous: looks.last)
        var timed = timed
        timed.timer = step.timer
        session = .timed(timed)
        guard !step.due.isEmpty else { return step.wake.map { [$0] } ?? [] }
        let audible = arbiter?.isAudible(.meditation) ?? true
        // Several gongs due at one look (the wall clock jumped): each is reported, the last is heard.
        for (index, due) in step.due.enumerated() {
            let sounded = audible && index == step.due.count - 1
            var details = timed.eventDetails
            details["skipped"] = .bool(!sounded)
            switch due.gong {
            case .start:
                hub.emit(time.event("meditation_started", details))
                setBackground(audible: true)
            case .interval(let number):
                details["gong"] = .number(Double(number))
                hub.emit(time.event("meditation_interval", details))
            case .completion:
                details["minutes"] = .number(Double(timed.plan.minutes))
                hub.emit(time.event("meditation_completed", details))
                fadeOut(Self.backgroundInput)
                record(.timed(timed), meditated: timed.timer.duration, completed: true)
                logger.info("meditation completed", metadata: ["minutes": "\(timed.plan.minutes)"])
            }
            if sounded {
                strike(timed.plan.gong, volume: timed.plan.volume, ringOut: due.gong == .completion)
                logger.debug("gong", metadata: ["gong": "\(due.gong)", "late_ms": "\(Int((now.timeIntervalSince(due.at) * 1000).rounded()))"])
            }
        }
        // Complete: the output goes back at once, or once the completion gong has rung out.
        if step.phase == .completed {
            // The completion gong's source holds its loop while it rings out.
            sounds.keepReady([], for: Self.gongOwner)
            if releaseAt == nil { arbiter?.claim(.meditation, false) }
        }
        return step.wake.map { [$0] } ?? []
    }

    // MARK: Helpers

    func refuseIfActive() throws(CommandError) {
        let now = time.now()
        if session != nil, stateName(at: now) != "completed" {
            throw CommandError(.conflict, "a meditation is under way (\(stateName(at: now))); stop it first")
        }
    }

    /// Makes `next` the session: what a completed one still had sounding goes, the output is claimed.
    func begin(_ next: Session) {
        arbiter?.prepare()
        // The gong is decoded ahead, during the preparation, so each strike starts from memory.
        if arbiter != nil, case .timed(let timed) = next { sounds.keepReady([timed.plan.gong], for: Self.gongOwner) }
        silenceAll()
        session = next
        arbiter?.claim(.meditation)
        changed(at: time.now())
        wakeUp.wake()
    }

    /// Appends a session to the history: at once, like the clock's changes, and stored without
    /// waiting (the ticket says when it is durable). When it cannot be stored it is still counted
    /// until the node restarts; the failure is logged and `B/status` reports it.
    @discardableResult
    func record(_ session: Session, meditated: TimeInterval, completed: Bool) -> StoreTicket? {
        var next = history
        next.append(
            MeditationRecord(
                startedAt: session.startedAt, minutes: MeditationRecord.minutes(meditated: meditated), kind: session.kind,
                completed: completed))
        return ledger.adopt(next)
    }

    /// Publishes `B/meditation` and the stats (the hub passes on changes only).
    func changed(at now: Date) {
        hub.publish(StateTopic.meditation, state(at: now))
        hub.publish(StateTopic.meditationStats, MeditationStats(history, now: now, zone: time.zone()).json)
    }

    func stateName(at now: Date) -> String {
        switch session {
        case .timed(let timed): timed.timer.phase(at: now).rawValue
        case .guided(let play): play.phase.rawValue
        case nil: "idle"
        }
    }

    /// `B/meditation` (SPEC §10).
    func state(at now: Date) -> JSONValue {
        var members: [String: JSONValue] = Dictionary(
            uniqueKeysWithValues: [
                "kind", "started_at", "ends_at", "elapsed_s", "remaining_s", "duration_s", "interval_min", "next_gong_at", "background",
                "item", "position_s",
            ].map { ($0, JSONValue.null) })
        members["state"] = .string(stateName(at: now))
        guard let session else { return .object(members) }
        let iso = { (instant: Date) -> JSONValue in .string(self.time.iso(instant)) }
        members["kind"] = .string(session.kind.rawValue)
        members["started_at"] = iso(session.startedAt)
        switch session {
        case .timed(let timed):
            let timer = timed.timer
            let phase = timer.phase(at: now)
            members["ends_at"] = phase == .completed ? iso(timer.reached(timer.preparation + timer.duration)) : timer.endsAt.map(iso) ?? .null
            members["elapsed_s"] = .number(timer.elapsed(at: now).rounded(.down))
            members["remaining_s"] = .number(timer.remaining(at: now).rounded(.up))
            members["duration_s"] = .number(timer.duration)
            members["interval_min"] = .number(Double(timed.plan.intervalMinutes))
            members["next_gong_at"] = timer.nextGong?.at.map(iso) ?? .null
            members["background"] = .string(timed.plan.background)
        case .guided(let play):
            guidedState(play, at: now, into: &members)
        }
        return .object(members)
    }

    nonisolated static func loadHistory(from store: any Store, logger: Logger) -> MeditationHistory {
        let (history, problem) = store.load(MeditationHistory.documentName) { try MeditationHistory(stored: $0) }
        if let problem { logger.error("the meditation history was unreadable; starting a new one", metadata: ["problem": "\(problem)"]) }
        return history ?? MeditationHistory()
    }
}

import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem

/// The node's alarms: the `alarm/*`, `snooze` and `dismiss` verbs, the schedule that rings each
/// occurrence exactly once, the ringing itself (its tone through the audio arbiter, as the timers'),
/// `B/alarms`, `B/alarm/next`, `B/alarm/state` and the alarm events.
///
/// Everything it must not lose (the alarms, the last handled occurrence of each, the ring or
/// snooze in progress) is one document, `alarms.json`, stored before a change is answered `ok`
/// or acted on. A change that cannot be stored is refused and changes nothing.
@NodeActor
public final class AlarmScheduler {
    public nonisolated static let documentName = "alarms.json"

    /// What `alarms.json` holds.
    public typealias State = AlarmState

    /// Loads `alarms.json`. An unreadable or invalid file is moved aside (never overwritten) and
    /// reported; the node then starts with no alarms.
    public nonisolated static func load(from store: any Store, logger: Logger) -> (state: State, problem: String?) {
        let (state, problem) = store.load(documentName) { try State(stored: $0) }
        if let problem { logger.error("stored alarms were unreadable; starting without alarms", metadata: ["problem": "\(problem)"]) }
        return (state ?? State(), problem)
    }

    let hub: StateHub
    let time: NodeTime
    let arbiter: AudioArbiter?
    let library: SoundLibrary
    /// Says what is due, missed and next; the scheduler carries it out.
    let clockwork: AlarmClockwork
    /// `wake.holidays`: the public holidays alarms with `skip_holidays` keep quiet on.
    let holidays: HolidayCalendar?
    /// `wake.lights`: the lamps a sunrise of an alarm with `lights` drives; nil without any.
    let lamps: WakeLamps?
    /// The days off in force, made again when `settings.wake` or the year changes.
    var daysOffMade: (wake: WakeSettings, year: Int, daysOff: DaysOff)?
    /// The weather `earlier_if` reads, and the calendars' coming days (SPEC §17).
    var weather: WeatherReport?
    var agenda = Agenda()
    /// What `B/holidays` was last made from (the local date, the days off, the language).
    var publishedHolidays: (CivilDate, DaysOff, Language)?
    let logger: Logger

    /// `alarms.json`: what is durable and acted on, and the changes waiting for their write.
    var ledger: Ledger<State, Effect>
    /// The alarms, their handled occurrences and the ring in progress, as stored.
    var state: State { ledger.current }
    /// What a change brings about once it is current: the alarm it answers with, and the tones
    /// and events of a ring it cancelled.
    struct Effect {
        var id: String?
        var outcomes: [Ringing.Outcome] = []
    }
    /// The next fire of each enabled alarm, as the last look worked it out.
    var nextFires: [String: Date] = [:]
    var looks = Looks()
    /// What `B/alarm/next` last said, without `in_s`, and the minute it was said in.
    var publishedNext: (JSONValue, minute: Int64)?
    /// The wake phases' memory: the view last published, the last dismissal, the ring seen last.
    var wakeTracking = WakeTracking()
    nonisolated let wakeUp = WakeUp()
    /// Alarms that wake to a station (`sound: "radio:<id>"`); nil without audio.
    let radio: AlarmRadio?
    /// The ids of `calendar.feeds`: what an alarm's `calendar.feed` may name.
    nonisolated let calendarFeeds: [String]
    /// Why the audio output fails (the engine keeps trying it); nil while it works.
    var audioFailure: String?
    /// Whether this ring's `alarm_failed` was sent (again at the next ring, after a snooze).
    var failureReported = false

    public nonisolated convenience init(
        state: State, store: any Store, hub: StateHub, time: NodeTime, arbiter: AudioArbiter?, library: SoundLibrary,
        alarms: Configuration.Alarms, holidays: HolidayCalendar? = nil, lamps: WakeLamps? = nil, logger: Logger
    ) {
        self.init(
            state: state, writer: StoreWriter(store: store), hub: hub, time: time, arbiter: arbiter, library: library, alarms: alarms,
            holidays: holidays, lamps: lamps, logger: logger)
    }

    public nonisolated init(
        state: State, writer: StoreWriter, hub: StateHub, time: NodeTime, arbiter: AudioArbiter?, library: SoundLibrary,
        alarms: Configuration.Alarms, holidays: HolidayCalendar? = nil, lamps: WakeLamps? = nil, radio: AlarmRadio? = nil,
        calendarFeeds: [String] = [], logger: Logger
    ) {
        self.calendarFeeds = calendarFeeds
        self.ledger = Ledger(Self.documentName, state, writer: writer) { $0.stored }
        self.radio = radio
        self.holidays = holidays
        self.lamps = lamps
        self.hub = hub
        self.time = time
        self.arbiter = arbiter
        self.library = library
        self.clockwork = AlarmClockwork(
            grace: Double(alarms.missedGraceMinutes * 60), upcoming: Double(alarms.upcomingMinutes * 60))
        self.logger = logger
        // Days off and the vacation are settings: a change is looked at at once.
        hub.signals.subscribe { [wakeUp] signal in if case .settings = signal { wakeUp.wake() } }
        // The weather and the calendars move alarms (SPEC §17): looked at as soon as they change.
        hub.signals.subscribe { [weak self] signal in
            guard let self else { return }
            switch signal {
            case .weather(let report): weather = report
            case .agenda(let agenda): self.agenda = agenda
            default: return
            }
            wakeUp.wake()
        }
        hub.signals.subscribe { [weak self] signal in
            guard case .audioFailed(let failure) = signal, let self, failure != audioFailure else { return }
            audioFailure = failure
            publishRinging()
        }
    }

    // MARK: Verbs

    /// An alarm's `calendar` names a feed of `calendar.feeds`.
    func checkFeed(_ calendar: AlarmCalendar??) throws(CommandError) {
        guard case .some(.some(let rule)) = calendar, !calendarFeeds.contains(rule.feed) else { return }
        let known = calendarFeeds.isEmpty ? "there are none in calendar.feeds" : "calendar.feeds has \(calendarFeeds.joined(separator: ", "))"
        throw .invalidField("calendar.feed", "names no feed: \(rule.feed) (\(known))")
    }

    public func add(_ draft: AlarmDraft) async throws(CommandError) -> JSONValue {
        var draft = draft
        if let sound = draft.fields.sound { draft.fields.sound = try alarmSound(sound) }
        if let sound = draft.fields.escalateSound, !sound.isEmpty { draft.fields.escalateSound = try alarmSound(sound, field: "escalate_sound") }
        try checkFeed(draft.fields.calendar)
        if draft.fields.skipHolidays == nil { draft.fields.skipHolidays = time.settings.current.wake.skipHolidays }
        let wake = time.settings.current.wake
        if draft.fields.escalateAfterSeconds == nil { draft.fields.escalateAfterSeconds = wake.escalateAfterSeconds }
        if draft.fields.sunriseMinutes == nil { draft.fields.sunriseMinutes = wake.sunriseMinutes }
        if draft.fields.lights == nil { draft.fields.lights = wake.lights }
        // `settings.wake.sound` while it still names a tone or a station; else the built-in tone.
        let id = newID(in: ledger.staged.book), defaultSound = wake.sound.flatMap { try? alarmSound($0) } ?? defaultSound
        return try await change { [draft] state, now, _ throws(CommandError) in
            let alarm = try state.book.add(draft, id: id, defaultSound: defaultSound)
            // A new alarm has no past: only occurrences from now on count.
            state.book.handled(alarm.id, at: now)
            return alarm.id
        }
    }

    public func update(_ patch: AlarmPatch) async throws(CommandError) -> JSONValue {
        var patch = patch
        if let sound = patch.fields.sound { patch.fields.sound = try alarmSound(sound) }
        if let sound = patch.fields.escalateSound, !sound.isEmpty { patch.fields.escalateSound = try alarmSound(sound, field: "escalate_sound") }
        try checkFeed(patch.fields.calendar)
        return try await change { [patch] state, now, outcomes throws(CommandError) in
            let before = try state.book.alarm(patch.id)
            let alarm = try state.book.update(patch)
            state.edited(before, alarm)
            state.book.handled(alarm.id, at: now)
            if !alarm.enabled { outcomes += Self.cancelSession(of: alarm.id, in: &state, now: now) }
            return alarm.id
        }
    }

    public func delete(_ id: String) async throws(CommandError) -> JSONValue {
        let deleted = try ledger.staged.book.alarm(id)
        _ = try await change { state, now, outcomes throws(CommandError) in
            _ = try state.book.delete(id)
            state.announced[id] = nil
            outcomes += Self.cancelSession(of: id, in: &state, now: now)
            return nil
        }
        return deleted.json(nextFire: nil)
    }

    public func duplicate(_ id: String) async throws(CommandError) -> JSONValue {
        let newID = newID(in: ledger.staged.book)
        return try await change { state, now, _ throws(CommandError) in
            let copy = try state.book.duplicate(id, newID: newID)
            state.book.handled(copy.id, at: now)
            return copy.id
        }
    }

    public func setEnabled(_ id: String, _ enabled: Bool) async throws(CommandError) -> JSONValue {
        try await change { state, now, outcomes throws(CommandError) in
            _ = try state.book.setEnabled(id, enabled)
            // Switched on again, it starts from now: what passed while it was off is not missed.
            state.book.handled(id, at: now)
            if !enabled { outcomes += Self.cancelSession(of: id, in: &state, now: now) }
            return id
        }
    }

    public func skipNext(_ id: String) async throws(CommandError) -> JSONValue {
        let zone = time.zone()
        let daysOff = self.daysOff(now: time.now(), zone: zone)
        return try await change { state, now, _ throws(CommandError) in
            _ = try state.book.skipNext(id, now: max(now, state.book.lastHandled[id] ?? now), in: zone, daysOff: daysOff)
            return id
        }
    }

    public func unskip(_ id: String) async throws(CommandError) -> JSONValue {
        try await change { state, _, _ throws(CommandError) in
            _ = try state.book.unskip(id)
            return id
        }
    }

    public func snooze(minutes: Int?) async throws(CommandError) -> JSONValue {
        try await act { ringing, now in ringing.snooze(minutes: minutes, at: now) }
    }

    public func dismiss() async throws(CommandError) -> JSONValue {
        try await act { ringing, now in ringing.dismiss(at: now) }
    }

    /// Whether an alarm rings, is snoozed, or neither.
    public var ringingPhase: Ringing.Phase { state.ringing.phase }

    /// Returns at once: the watchdog's proof that the node's loop gets to run.
    public func responsive() -> Bool { true }

    // MARK: Time

    /// Called by its `ClockworkService` before it starts looking: publishes the alarm topics and goes on
    /// with what was stored (a ring that had not timed out rings again, a snooze ends on time).
    public func start() async {
        guard looks.start() else { return }
        let resumed = clockwork.resume(state, now: time.now())
        adopt(resumed.state, performing: resumed.outcomes)
        advance()
        publishAll()
    }

    /// Rings, reports and announces whatever has come due (as the clockwork says), and returns the
    /// wall-clock instant at which to look again: the next fire, snooze end, ring timeout or
    /// announcement, or the next minute (`B/alarm/next`'s `in_s`). A change of the wall clock
    /// wakes the loop earlier.
    @discardableResult
    public func advance() -> Date {
        let now = time.now()
        let zone = time.zone()
        let daysOff = self.daysOff(now: now, zone: zone)
        let step = clockwork.step(state, now: now, previous: looks.last, zone: zone, daysOff: daysOff)
        looks.record(now)
        adopt(step.state, performing: step.outcomes) {
            for missed in step.missed {
                logger.warning("alarm missed", metadata: ["alarm": "\(missed.alarmID)", "fires_at": "\(missed.firesAt)"])
                emit("alarm_missed", eventDetails(missed.alarmID, missed.label, ["fires_at": iso(missed.firesAt, zone)]))
            }
            let language = time.settings.current.language
            for skipped in step.skipped {
                logger.info("alarm skipped", metadata: ["alarm": "\(skipped.alarmID)", "reason": "\(skipped.skip.reason.rawValue)"])
                emit(
                    "alarm_skipped",
                    eventDetails(skipped.alarmID, skipped.label, [
                        "fires_at": iso(skipped.firesAt, zone), "reason": .string(skipped.skip.reason.rawValue),
                        "name": skipped.skip.name(language).map { .string($0) } ?? .null,
                    ]))
            }
        }
        for announcement in step.announcements {
            emit(
                "alarm_upcoming",
                eventDetails(announcement.alarmID, announcement.label, [
                    "fires_at": iso(announcement.firesAt, zone),
                    "in_s": .number(max(0, announcement.firesAt.timeIntervalSince(now).rounded(.down))),
                ]))
        }
        nextFires = step.nextFires
        prepareOutputIfDue(now: now)
        publishAlarms(zone: zone)
        publishNext(now: now, zone: zone)
        publishHolidays(now: now, zone: zone)
        let wakeNext = updateWake(now: now, zone: zone)
        return wakeNext.map { min($0, step.wake) } ?? step.wake
    }


    // MARK: Changes

    /// Stages an alarm change (`Ledger`), waits for its write without holding the node's thread,
    /// then carries out what it brought about and publishes. The schedule first catches up, so
    /// nothing due under the old alarms is lost by the change. The change is a pure function of
    /// the state and the instant it was asked at: it runs again on what is current when its write
    /// is durable, after any ring that came in between.
    func change(
        _ body: @escaping @Sendable (inout State, Date, inout [Ringing.Outcome]) throws(CommandError) -> String?
    ) async throws(CommandError) -> JSONValue {
        advance()
        let now = time.now(), zone = time.zone()
        let daysOff = self.daysOff(now: now, zone: zone)
        let change: Ledger<State, Effect>.Change = { state throws(CommandError) in
            var outcomes: [Ringing.Outcome] = []
            let id = try body(&state, now, &outcomes)
            // An alarm added or edited within 8 hours of its time is decided now, so the answer says it.
            var context = state.context(daysOff)
            _ = state.decideEarlier(now: now, zone: zone, daysOff: &context)
            return Effect(id: id, outcomes: outcomes)
        }
        let effect = try await Ledger.commit(change, what: "alarms", in: { $0(&ledger) }) { made in
            for effect in made.effects { perform(effect.outcomes) }
            refreshNextFires(now: time.now())
            wake()
        }
        guard let id = effect.id, let alarm = state.book.alarms.first(where: { $0.id == id }) else { return .null }
        let answeredAt = time.now()
        return json(
            of: alarm, now: answeredAt, zone: zone, daysOff: self.daysOff(now: answeredAt, zone: zone),
            language: time.settings.current.language)
    }

    /// Snooze or dismiss: a change of the ringing state. Unlike other changes, these take effect
    /// at once, like the clock's, and even when they cannot be stored: a ringing alarm must always
    /// be stoppable. The answer waits for the write; a failure is logged, and after a restart the
    /// stored ring goes on.
    func act(_ body: (inout Ringing, Date) -> [Ringing.Outcome]?) async throws(CommandError) -> JSONValue {
        advance()
        let now = time.now()
        var next = state
        guard let outcomes = body(&next.ringing, now) else {
            throw CommandError(.conflict, "no alarm is ringing or snoozed")
        }
        AlarmClockwork.settle(outcomes, in: &next)
        let ticket = ledger.adopt(next)
        perform(outcomes)
        refreshNextFires(now: now)
        wake()
        let answer = ringingJSON
        do {
            try await ticket?.wait()
        } catch {
            logger.error("snooze or dismiss could not be stored; acting on it anyway", metadata: ["error": "\(error)"])
        }
        return answer
    }

    /// Ends the ring or snooze of alarm `id` within a change; returns what that brings about.
    nonisolated static func cancelSession(of id: String, in state: inout State, now: Date) -> [Ringing.Outcome] {
        let outcomes = state.ringing.cancel(alarmID: id, at: now)
        AlarmClockwork.settle(outcomes, in: &state)
        return outcomes
    }

    /// For changes the clock brings. They are heard at once and stored without waiting: the
    /// store's fsync can take hundreds of milliseconds on an SD card, and an alarm is timed by its
    /// `alarm_ringing`. A crash in between is safe: the occurrence is then still due at the
    /// restart, and a ring interrupted by a restart rings again anyway. When the change cannot be
    /// stored it still happens (an alarm rings whether or not the disk is writable); the writer
    /// logs the failure and `B/status` reports it.
    func adopt(_ next: State, performing outcomes: [Ringing.Outcome] = [], then report: () -> Void = {}) {
        ledger.adopt(next)
        report()
        perform(outcomes)
    }

}

import FoundationEssentials
import Logging
import NoiseClockCore

/// The node's alarms: the `alarm/*`, `snooze` and `dismiss` verbs, the schedule that rings each
/// occurrence exactly once, the ringing itself (through the noise player's alarm tones),
/// `B/alarms`, `B/alarm/next`, `B/alarm/state` and the alarm events.
///
/// Everything it must not lose (the alarms, the last handled occurrence of each, the ring or
/// snooze in progress) is one document, `alarms.json`, stored before a change is answered `ok`
/// or acted on. A change that cannot be stored is refused and changes nothing.
public actor AlarmScheduler {
    public static let documentName = "alarms.json"

    /// What `alarms.json` holds.
    public struct State: Sendable, Hashable {
        public var book = AlarmBook()
        public var ringing = Ringing()
        /// The occurrence each alarm last announced with `alarm_upcoming`.
        public var announced: [String: Date] = [:]

        public init(book: AlarmBook = AlarmBook(), ringing: Ringing = Ringing(), announced: [String: Date] = [:]) {
            self.book = book
            self.ringing = ringing
            self.announced = announced
        }

        var stored: JSONValue {
            var members = book.stored.objectValue ?? [:]
            members["version"] = 1
            members["ringing"] = ringing.stored
            members["announced"] = .object(announced.mapValues { .number($0.timeIntervalSince1970) })
            return .object(members)
        }

        init(stored value: JSONValue) throws(CommandError) {
            book = try AlarmBook(stored: value)
            if let ringing = value.objectValue?["ringing"] { self.ringing = try Ringing(stored: ringing) }
            for (id, instant) in value.objectValue?["announced"]?.objectValue ?? [:] {
                if case .number(let seconds) = instant { announced[id] = Date(timeIntervalSince1970: seconds) }
            }
        }
    }

    /// Loads `alarms.json`. An unreadable or invalid file is moved aside (never overwritten) and
    /// reported; the node then starts with no alarms.
    public static func load(from store: any Store, logger: Logger) -> (state: State, problem: String?) {
        var problem: String?
        switch store.load(documentName) {
        case .missing:
            return (State(), nil)
        case .value(let value):
            do {
                return (try State(stored: value), nil)
            } catch {
                if case .movedAside(let target, let reason) = store.moveAside(documentName, reason: "\(error)") {
                    problem = "\(documentName) moved to \(target): \(reason)"
                }
            }
        case .movedAside(let target, let reason):
            problem = "\(documentName) moved to \(target): \(reason)"
        }
        logger.error("stored alarms were unreadable; starting without alarms", metadata: ["problem": "\(problem ?? "")"])
        return (State(), problem)
    }

    let store: any Store
    let hub: StateHub
    let time: NodeTime
    let noise: NoisePlayer?
    let library: SoundLibrary
    let grace: TimeInterval
    let upcoming: TimeInterval
    let logger: Logger
    /// Told the alarms each time `B/alarms` is published (Home Assistant's per-alarm switches).
    let alarmsPublished: (@Sendable ([Alarm]) -> Void)?

    private(set) var state: State
    /// The client keeps the latest retained value of each topic and sends it again after every
    /// reconnect, so a value equal to the last one need not be published again.
    var published: [String: JSONValue] = [:]
    /// The next fire of each enabled alarm, worked out for `cacheKey`; recomputed when that changes.
    var nextFires: [String: Date] = [:]
    var cacheKey: CacheKey?
    /// The wall clock at the last look: earlier now, or more than 5 s later, is a jump.
    var lastTick: Date?
    var skipsCheckedMinute: Int64?
    var publishedNext: (JSONValue, minute: Int64)?
    /// Bumped whenever the next fires are worked out again; with the minute, what `B/alarm/next`
    /// was last looked at for.
    var nextFiresGeneration = 0
    var nextLooked: (generation: Int, minute: Int64)?
    nonisolated let wakeUp = WakeUp()
    var started = false

    struct CacheKey: Hashable {
        var book: AlarmBook
        var zone: Zone
    }

    public init(
        state: State, store: any Store, hub: StateHub, time: NodeTime, noise: NoisePlayer?, library: SoundLibrary,
        alarms: Configuration.Alarms, logger: Logger, alarmsPublished: (@Sendable ([Alarm]) -> Void)? = nil
    ) {
        self.alarmsPublished = alarmsPublished
        self.state = state
        self.store = store
        self.hub = hub
        self.time = time
        self.noise = noise
        self.library = library
        self.grace = Double(alarms.missedGraceMinutes * 60)
        self.upcoming = Double(alarms.upcomingMinutes * 60)
        self.logger = logger
    }

    // MARK: Verbs

    public func add(_ draft: AlarmDraft) async throws(CommandError) -> JSONValue {
        try await change { state, now throws(CommandError) in
            var draft = draft
            if let sound = draft.fields.sound { draft.fields.sound = try alarmSound(sound) }
            let alarm = try state.book.add(draft, id: newID(in: state.book), defaultSound: defaultSound)
            // A new alarm has no past: only occurrences from now on count.
            state.book.handled(alarm.id, at: now)
            return alarm.id
        }
    }

    public func update(_ patch: AlarmPatch) async throws(CommandError) -> JSONValue {
        try await change { state, now throws(CommandError) in
            var patch = patch
            if let sound = patch.fields.sound { patch.fields.sound = try alarmSound(sound) }
            let alarm = try state.book.update(patch)
            state.book.handled(alarm.id, at: now)
            if !alarm.enabled { cancelSession(of: alarm.id, in: &state, now: now) }
            return alarm.id
        }
    }

    public func delete(_ id: String) async throws(CommandError) -> JSONValue {
        var deleted: Alarm?
        _ = try await change { state, now throws(CommandError) in
            deleted = try state.book.delete(id)
            state.announced[id] = nil
            cancelSession(of: id, in: &state, now: now)
            return nil
        }
        return deleted.map { $0.json(nextFire: nil) } ?? .null
    }

    public func duplicate(_ id: String) async throws(CommandError) -> JSONValue {
        try await change { state, now throws(CommandError) in
            let copy = try state.book.duplicate(id, newID: newID(in: state.book))
            state.book.handled(copy.id, at: now)
            return copy.id
        }
    }

    public func setEnabled(_ id: String, _ enabled: Bool) async throws(CommandError) -> JSONValue {
        try await change { state, now throws(CommandError) in
            _ = try state.book.setEnabled(id, enabled)
            // Switched on again, it starts from now: what passed while it was off is not missed.
            state.book.handled(id, at: now)
            if !enabled { cancelSession(of: id, in: &state, now: now) }
            return id
        }
    }

    public func skipNext(_ id: String) async throws(CommandError) -> JSONValue {
        try await change { state, now throws(CommandError) in
            _ = try state.book.skipNext(id, now: max(now, state.book.lastHandled[id] ?? now), in: time.zone())
            return id
        }
    }

    public func unskip(_ id: String) async throws(CommandError) -> JSONValue {
        try await change { state, _ throws(CommandError) in
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

    /// Returns at once: the watchdog's proof that the actor gets to run.
    public func responsive() -> Bool { true }

    // MARK: Time

    /// Called by `AlarmService` before it starts ticking: publishes the alarm topics and goes on
    /// with what was stored (a ring that had not timed out rings again, a snooze ends on time).
    public func start() async {
        guard !started else { return }
        started = true
        let now = time.now()
        var next = state
        let outcomes = next.ringing.resume(at: now, grace: grace)
        settle(outcomes, in: &next, now: now)
        await adopt(next, performing: outcomes)
        await advance()
        publishAll()
    }

    /// Rings, reports and announces whatever has come due, and returns the wall-clock instant at
    /// which to look again: the next fire, snooze end, ring timeout or announcement, or the next
    /// minute (`B/alarm/next`'s `in_s`). A change of the wall clock wakes the loop earlier.
    @discardableResult
    public func advance() async -> Date {
        let now = time.now()
        let zone = time.zone()
        let jumped = lastTick.map { now < $0 || now.timeIntervalSince($0) > 5 } ?? true
        if let last = lastTick, now < last, state.ringing.current != nil || !state.ringing.waiting.isEmpty {
            // The wall clock was set back (it never runs backwards): a ring's timeout and a snooze
            // move back with it, so they keep what they had left, not stretched by the change.
            var next = state
            next.ringing.shift(by: now.timeIntervalSince(last))
            await adopt(next)
        }
        lastTick = now
        await clearPassedSkips(now: now, zone: zone)
        let key = CacheKey(book: state.book, zone: zone)
        if jumped || key != cacheKey || nextFires.values.contains(where: { $0 <= now }) {
            var next = state
            var outcomes: [Ringing.Outcome] = []
            var missed: [(Alarm, Date)] = []
            let due = next.book.alarms.flatMap { alarm in
                AlarmSchedule.due(alarm, lastHandled: next.book.lastHandled[alarm.id], now: now, grace: grace, in: zone)
                    .map { (alarm, $0) }
            }.sorted { ($0.1.instant, $0.0.id) < ($1.1.instant, $1.0.id) }
            for (alarm, occurrence) in due {
                next.book.handled(alarm.id, at: occurrence.instant)
                switch occurrence {
                case .ring(let instant):
                    outcomes += next.ringing.due(
                        Ringing.Due(
                            alarmID: alarm.id, label: alarm.label, firesAt: instant, snoozeMinutes: alarm.snoozeMinutes,
                            ringTimeoutMinutes: alarm.ringTimeoutMinutes), at: now)
                case .missed(let instant):
                    missed.append((alarm, instant))
                    if alarm.isOneShot { _ = try? next.book.setEnabled(alarm.id, false) }
                }
            }
            settle(outcomes, in: &next, now: now)
            await adopt(next, performing: outcomes) {
                for (alarm, instant) in missed {
                    logger.warning("alarm missed", metadata: ["alarm": "\(alarm.id)", "fires_at": "\(instant)"])
                    emit("alarm_missed", eventDetails(alarm.id, alarm.label, ["fires_at": iso(instant, zone)]))
                }
            }
            recomputeNextFires(now: now, zone: zone)
        }
        // Rings that time out, snoozes that end.
        var next = state
        let outcomes = next.ringing.tick(at: now, grace: grace)
        if !outcomes.isEmpty || next != state {
            settle(outcomes, in: &next, now: now)
            await adopt(next, performing: outcomes)
            recomputeNextFires(now: now, zone: zone)
        }
        await announceUpcoming(now: now, zone: zone)
        publishNext(now: now, zone: zone)
        let nextMinute = Date(timeIntervalSince1970: ((now.timeIntervalSince1970 / 60).rounded(.down) + 1) * 60)
        return ([state.ringing.nextChange] + nextFires.values.map { Optional($0) } + upcomingInstants)
            .compactMap { $0 }.filter { $0 > now }.reduce(nextMinute, min)
    }

    /// Sleeps until `deadline`, or less when a command changes the alarms or the wall clock is set.
    public nonisolated func sleep(until deadline: Date) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }

    // MARK: Changes

    /// Runs an alarm change on a copy, stores it, then makes it current and publishes it. The
    /// schedule first catches up, so nothing due under the old alarms is lost by the change.
    func change(_ body: (inout State, Date) throws(CommandError) -> String?) async throws(CommandError) -> JSONValue {
        await advance()
        let now = time.now()
        var next = state
        pendingOutcomes = []
        let id = try body(&next, now)
        let outcomes = pendingOutcomes
        pendingOutcomes = []
        try commit(next)
        await perform(outcomes)
        recomputeNextFires(now: now, zone: time.zone())
        publishAll()
        wake()
        guard let id, let alarm = state.book.alarms.first(where: { $0.id == id }) else { return .null }
        return alarm.json(nextFire: nextFires[id].map { ISOTime.string($0, in: time.zone()) })
    }

    /// Snooze or dismiss: a change of the ringing state, stored before it is answered. Unlike
    /// other changes, these take effect even when they cannot be stored: a ringing alarm must
    /// always be stoppable. The failure is logged; after a restart the stored ring goes on.
    func act(_ body: (inout Ringing, Date) -> [Ringing.Outcome]?) async throws(CommandError) -> JSONValue {
        await advance()
        let now = time.now()
        var next = state
        guard let outcomes = body(&next.ringing, now) else {
            throw CommandError(.conflict, "no alarm is ringing or snoozed")
        }
        settle(outcomes, in: &next, now: now)
        do {
            try commit(next)
        } catch {
            logger.error("snooze or dismiss could not be stored; acting on it anyway", metadata: ["error": "\(error)"])
            state = next
        }
        await perform(outcomes)
        recomputeNextFires(now: now, zone: time.zone())
        publishAll()
        wake()
        return state.ringing.json { ISOTime.string($0, in: time.zone()) }
    }

    /// Outcomes of cancelling a session inside a change, carried out once the change is stored.
    var pendingOutcomes: [Ringing.Outcome] = []

    func cancelSession(of id: String, in state: inout State, now: Date) {
        let outcomes = state.ringing.cancel(alarmID: id, at: now)
        settle(outcomes, in: &state, now: now)
        pendingOutcomes += outcomes
    }

    /// The changes to the alarms that outcomes bring: a one-shot alarm that has finished ringing
    /// disables itself.
    func settle(_ outcomes: [Ringing.Outcome], in state: inout State, now: Date) {
        for outcome in outcomes {
            switch outcome {
            case .dismissed(let due), .autoSilenced(let due), .missed(let due, _):
                if let alarm = try? state.book.alarm(due.alarmID), alarm.isOneShot, alarm.enabled {
                    _ = try? state.book.setEnabled(alarm.id, false)
                }
            case .ring, .snoozed, .waiting:
                break
            }
        }
    }

    func commit(_ next: State) throws(CommandError) {
        guard next != state else { return }
        do {
            try store.save(Self.documentName, next.stored)
        } catch {
            throw CommandError(.unavailable, "alarms could not be stored: \(error)")
        }
        state = next
    }

    /// For changes the clock brings. They are heard first and stored right after: the store's
    /// fsync can take tens of milliseconds on an SD card, and an alarm is timed by its `alarm_ringing`.
    /// A crash in between is safe: the occurrence is then still due at the restart, and a ring
    /// interrupted by a restart rings again anyway. When the change cannot be stored it still
    /// happens (an alarm rings whether or not the disk is writable), and the failure is logged.
    func adopt(_ next: State, performing outcomes: [Ringing.Outcome] = [], then report: () -> Void = {}) async {
        let changed = next != state
        state = next
        report()
        await perform(outcomes)
        guard changed else { return }
        do {
            // `state`, not `next`: a change made while the tone started is stored too.
            try store.save(Self.documentName, state.stored)
        } catch {
            logger.error("alarms could not be stored", metadata: ["error": "\(error)"])
        }
    }

}

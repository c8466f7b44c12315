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
    let publisher: StatePublisher
    let noise: NoisePlayer?
    let library: SoundLibrary
    let grace: TimeInterval
    let upcoming: TimeInterval
    let logger: Logger
    /// Told the alarms each time `B/alarms` is published (Home Assistant's per-alarm switches).
    let alarmsPublished: (@Sendable ([Alarm]) -> Void)?

    private(set) var state: State
    /// The next fire of each enabled alarm, worked out for `cacheKey`; recomputed when that changes.
    private var nextFires: [String: Date] = [:]
    private var cacheKey: CacheKey?
    /// The wall clock at the last look: earlier now, or more than 5 s later, is a jump.
    private var lastTick: Date?
    private var skipsCheckedMinute: Int64?
    private var publishedNext: (JSONValue, minute: Int64)?
    /// Bumped whenever the next fires are worked out again; with the minute, what `B/alarm/next`
    /// was last looked at for.
    private var nextFiresGeneration = 0
    private var nextLooked: (generation: Int, minute: Int64)?
    private nonisolated let wakeUp = WakeUp()
    private var started = false

    private struct CacheKey: Hashable {
        var book: AlarmBook
        var zone: Zone
    }

    public init(
        state: State, store: any Store, publisher: StatePublisher, noise: NoisePlayer?, library: SoundLibrary,
        alarms: Configuration.Alarms, logger: Logger, alarmsPublished: (@Sendable ([Alarm]) -> Void)? = nil
    ) {
        self.alarmsPublished = alarmsPublished
        self.state = state
        self.store = store
        self.publisher = publisher
        self.noise = noise
        self.library = library
        self.grace = Double(alarms.missedGraceMinutes * 60)
        self.upcoming = Double(alarms.upcomingMinutes * 60)
        self.logger = logger
    }

    // MARK: Verbs

    public func add(_ arguments: CommandArguments) async throws(CommandError) -> JSONValue {
        try await change { state, now throws(CommandError) in
            var args = arguments
            if let sound = try args.string("sound") { args.values["sound"] = .string(try alarmSound(sound)) }
            let alarm = try state.book.add(args, id: newID(in: state.book), defaultSound: defaultSound)
            // A new alarm has no past: only occurrences from now on count.
            state.book.handled(alarm.id, at: now)
            return alarm.id
        }
    }

    public func update(_ arguments: CommandArguments) async throws(CommandError) -> JSONValue {
        try await change { state, now throws(CommandError) in
            var args = arguments
            if let sound = try args.string("sound") { args.values["sound"] = .string(try alarmSound(sound)) }
            let alarm = try state.book.update(args)
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
            _ = try state.book.skipNext(id, now: max(now, state.book.lastHandled[id] ?? now), in: publisher.timeZone())
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
        let now = publisher.clock.now()
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
        let now = publisher.clock.now()
        let zone = publisher.timeZone()
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
                    publisher.publishEvent("alarm_missed", eventDetails(alarm.id, alarm.label, ["fires_at": iso(instant, zone)]))
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
        await wakeUp.sleep(until: deadline, on: publisher.clock)
    }

    // MARK: Changes

    /// Runs an alarm change on a copy, stores it, then makes it current and publishes it. The
    /// schedule first catches up, so nothing due under the old alarms is lost by the change.
    private func change(_ body: (inout State, Date) throws(CommandError) -> String?) async throws(CommandError) -> JSONValue {
        await advance()
        let now = publisher.clock.now()
        var next = state
        pendingOutcomes = []
        let id = try body(&next, now)
        let outcomes = pendingOutcomes
        pendingOutcomes = []
        try commit(next)
        await perform(outcomes)
        recomputeNextFires(now: now, zone: publisher.timeZone())
        publishAll()
        wake()
        guard let id, let alarm = state.book.alarms.first(where: { $0.id == id }) else { return .null }
        return alarm.json(nextFire: nextFires[id].map { ISOTime.string($0, in: publisher.timeZone()) })
    }

    /// Snooze or dismiss: a change of the ringing state, stored before it is answered. Unlike
    /// other changes, these take effect even when they cannot be stored: a ringing alarm must
    /// always be stoppable. The failure is logged; after a restart the stored ring goes on.
    private func act(_ body: (inout Ringing, Date) -> [Ringing.Outcome]?) async throws(CommandError) -> JSONValue {
        await advance()
        let now = publisher.clock.now()
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
        recomputeNextFires(now: now, zone: publisher.timeZone())
        publishAll()
        wake()
        return state.ringing.json { ISOTime.string($0, in: publisher.timeZone()) }
    }

    /// Outcomes of cancelling a session inside a change, carried out once the change is stored.
    private var pendingOutcomes: [Ringing.Outcome] = []

    private func cancelSession(of id: String, in state: inout State, now: Date) {
        let outcomes = state.ringing.cancel(alarmID: id, at: now)
        settle(outcomes, in: &state, now: now)
        pendingOutcomes += outcomes
    }

    /// The changes to the alarms that outcomes bring: a one-shot alarm that has finished ringing
    /// disables itself.
    private func settle(_ outcomes: [Ringing.Outcome], in state: inout State, now: Date) {
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

    private func commit(_ next: State) throws(CommandError) {
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
    private func adopt(_ next: State, performing outcomes: [Ringing.Outcome] = [], then report: () -> Void = {}) async {
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

    /// Sound and events for what happened, in order.
    private func perform(_ outcomes: [Ringing.Outcome]) async {
        guard !outcomes.isEmpty else { return }
        let zone = publisher.timeZone()
        for outcome in outcomes {
            switch outcome {
            case .ring(let due):
                // The event first: it is what a subscriber times the alarm by.
                let snoozes = state.ringing.current?.due == due ? state.ringing.current?.snoozeCount ?? 0 : 0
                publisher.publishEvent(
                    "alarm_ringing",
                    eventDetails(due.alarmID, due.label, ["fires_at": iso(due.firesAt, zone), "snooze_count": .number(Double(snoozes))]))
                logger.info("alarm ringing", metadata: ["alarm": "\(due.alarmID)", "label": "\(due.label)"])
                await startTone(for: due.alarmID)
            case .snoozed(let due, let until):
                publisher.publishEvent("alarm_snoozed", eventDetails(due.alarmID, due.label, ["until": iso(until, zone)]))
                await stopToneUnlessRinging()
            case .dismissed(let due):
                publisher.publishEvent("alarm_dismissed", eventDetails(due.alarmID, due.label, [:]))
                await stopToneUnlessRinging()
            case .autoSilenced(let due):
                await stopToneUnlessRinging()
                publisher.publishEvent(
                    "alarm_auto_silenced", eventDetails(due.alarmID, due.label, ["after_min": .number(Double(due.ringTimeoutMinutes))]))
            case .missed(let due, let instant):
                await stopToneUnlessRinging()
                logger.warning("snoozed alarm missed", metadata: ["alarm": "\(due.alarmID)", "was_due": "\(instant)"])
                publisher.publishEvent("alarm_missed", eventDetails(due.alarmID, due.label, ["fires_at": iso(instant, zone)]))
            case .waiting(let due):
                logger.info("alarm due while another rings; it rings next", metadata: ["alarm": "\(due.alarmID)"])
            }
        }
        publishRinging()
    }

    private func startTone(for id: String) async {
        guard let noise else { return }
        let alarm = try? state.book.alarm(id)
        let sound = alarm?.sound ?? defaultSound
        let volume = alarm?.volume ?? 80
        let ramp = alarm?.fadeInSeconds ?? 30
        do {
            try await noise.startAlarmTone(sound, volume: volume, rampSeconds: ramp)
        } catch {
            // A tone that went missing must not keep the alarm silent.
            logger.error("alarm tone unavailable; using the default", metadata: ["sound": "\(sound)", "error": "\(error)"])
            do {
                try await noise.startAlarmTone(defaultSound, volume: volume, rampSeconds: ramp)
            } catch {
                logger.error("no alarm tone can be played", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Stops the tone when the alarm that rang is over. When another alarm rings now (it was
    /// waiting), its own ring outcome follows and its tone takes over from this one.
    private func stopToneUnlessRinging() async {
        guard let noise, state.ringing.phase != .ringing else { return }
        await noise.stopAlarmTone()
    }

    // MARK: Publishing

    private func publishAll() {
        let zone = publisher.timeZone()
        publishAlarms(zone: zone)
        publishRinging()
        publishNext(now: publisher.clock.now(), zone: zone)
    }

    /// `B/alarms`, when it differs from what was published last.
    private func publishAlarms(zone: Zone) {
        publishIfChanged(
            publisher.topics.alarms,
            .array(state.book.alarms.map { $0.json(nextFire: nextFires[$0.id].map { ISOTime.string($0, in: zone) }) }))
        alarmsPublished?(state.book.alarms)
    }

    private func publishRinging() {
        publishIfChanged(publisher.topics.alarmState, state.ringing.json { ISOTime.string($0, in: publisher.timeZone()) })
    }

    /// The client keeps the latest retained value of each topic and sends it again after every
    /// reconnect, so a value equal to the last one need not be published again.
    private var published: [String: JSONValue] = [:]

    private func publishIfChanged(_ topic: String, _ value: JSONValue) {
        guard published[topic] != value else { return }
        published[topic] = value
        publisher.publishAlarmState(topic, value)
    }

    /// `B/alarm/next` when the next alarm changes, and at each minute for `in_s`.
    private func publishNext(now: Date, zone: Zone) {
        // The idle second's fast path: same next fires, same minute, nothing to do.
        let minute = Int64((now.timeIntervalSince1970 / 60).rounded(.down))
        if let looked = nextLooked, looked.generation == nextFiresGeneration, looked.minute == minute { return }
        nextLooked = (nextFiresGeneration, minute)
        let soonest = nextFires.min { ($0.value, $0.key) < ($1.value, $1.key) }
        let value: JSONValue
        if let (id, instant) = soonest, let alarm = try? state.book.alarm(id) {
            value = [
                "id": .string(id), "label": .string(alarm.label), "fires_at": iso(instant, zone),
                "in_s": .number(max(0, instant.timeIntervalSince(now).rounded(.down))),
            ]
        } else {
            value = ["id": nil, "label": nil, "fires_at": nil, "in_s": nil]
        }
        var identity = value.objectValue ?? [:]
        identity["in_s"] = nil
        if let (published, publishedMinute) = publishedNext, published == .object(identity), publishedMinute == minute { return }
        publishedNext = (.object(identity), minute)
        publisher.publishAlarmState(publisher.topics.alarmNext, value)
    }

    private var upcomingInstants: [Date?] {
        guard upcoming > 0 else { return [] }
        return nextFires.map { id, instant in state.announced[id] == instant ? nil : instant.addingTimeInterval(-upcoming) }
    }

    /// `alarm_upcoming`, once per occurrence, `alarms.upcoming_min` before it.
    private func announceUpcoming(now: Date, zone: Zone) async {
        guard upcoming > 0 else { return }
        var next = state
        var announce: [(Alarm, Date)] = []
        for (id, instant) in nextFires.sorted(by: { $0.value < $1.value })
        where instant.timeIntervalSince(now) <= upcoming && next.announced[id] != instant {
            guard let alarm = try? next.book.alarm(id) else { continue }
            next.announced[id] = instant
            announce.append((alarm, instant))
        }
        guard !announce.isEmpty else { return }
        await adopt(next) {
            for (alarm, instant) in announce {
                publisher.publishEvent(
                    "alarm_upcoming",
                    eventDetails(alarm.id, alarm.label, [
                        "fires_at": iso(instant, zone), "in_s": .number(max(0, instant.timeIntervalSince(now).rounded(.down))),
                    ]))
            }
        }
    }

    // MARK: Helpers

    private func recomputeNextFires(now: Date, zone: Zone) {
        var fires: [String: Date] = [:]
        for alarm in state.book.alarms {
            // Never before the last handled occurrence: after the wall clock is set back, an
            // occurrence that already rang is not shown (or rung) again.
            let after = max(now, state.book.lastHandled[alarm.id] ?? now)
            // A one-shot alarm being dealt with (ringing, snoozed or waiting) has no next time:
            // it switches itself off when it is over.
            let inSession = ([state.ringing.current].compactMap { $0 } + state.ringing.waiting).contains { $0.due.alarmID == alarm.id }
            fires[alarm.id] = alarm.isOneShot && inSession ? nil : AlarmSchedule.nextFire(of: alarm, after: after, in: zone)
        }
        nextFires = fires
        nextFiresGeneration += 1
        cacheKey = CacheKey(book: state.book, zone: zone)
        publishAlarms(zone: zone)
    }

    /// Wakes the scheduler loop, so a change is seen at once rather than after its current sleep.
    private func wake() {
        wakeUp.wake()
    }

    private var defaultSound: String { library.catalog.defaultSound(of: .alarm)?.id ?? "" }

    private func alarmSound(_ reference: String) throws(CommandError) -> String {
        try library.sound(reference, field: "sound", kind: .alarm).id
    }

    /// Eight hex characters, the first a letter: an id sent as a bare payload must never read as
    /// a JSON number (`12345678`, `123e4567`).
    private func newID(in book: AlarmBook) -> String {
        while true {
            let hex = UUID().uuidString.lowercased().filter(\.isHexDigit)
            let id = String("abcdef".randomElement() ?? "a") + hex.prefix(7)
            if !book.alarms.contains(where: { $0.id == id }) { return id }
        }
    }

    /// Once a minute: a `skip_next` date that is over is cleared (the skipped occurrence is past).
    private func clearPassedSkips(now: Date, zone: Zone) async {
        let minute = Int64((now.timeIntervalSince1970 / 60).rounded(.down))
        guard skipsCheckedMinute != minute else { return }
        skipsCheckedMinute = minute
        guard state.book.alarms.contains(where: { $0.skipNext != nil }) else { return }
        var next = state
        next.book.clearSkips(before: AlarmSchedule.localDate(of: now, in: zone))
        await adopt(next)
    }

    private func iso(_ instant: Date, _ zone: Zone) -> JSONValue {
        .string(ISOTime.string(instant, in: zone))
    }

    private func eventDetails(_ id: String, _ label: String, _ extra: [String: JSONValue]) -> [String: JSONValue] {
        extra.merging(["alarm_id": .string(id), "label": .string(label)]) { a, _ in a }
    }
}

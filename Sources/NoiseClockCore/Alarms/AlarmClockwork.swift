import FoundationEssentials

/// What `alarms.json` holds: the alarms with what has been handled of them, the ring or snooze in
/// progress, and the occurrences already announced with `alarm_upcoming`.
public struct AlarmState: Sendable, Hashable {
    public var book = AlarmBook()
    public var ringing = Ringing()
    /// The occurrence each alarm last announced with `alarm_upcoming`.
    public var announced: [String: Date] = [:]
    /// What `earlier_if` decided for each alarm's next occurrence (SPEC §17).
    public var earlier: [String: EarlierDecision] = [:]

    public init(book: AlarmBook = AlarmBook(), ringing: Ringing = Ringing(), announced: [String: Date] = [:], earlier: [String: EarlierDecision] = [:]) {
        self.book = book
        self.ringing = ringing
        self.announced = announced
        self.earlier = earlier
    }

    /// `earlier_if`: decides the next occurrence of each alarm once it is 8 hours away or nearer
    /// (with the weather in `daysOff`, which gains the decisions), and returns when the others are
    /// to be decided. A decision stands for its day (a later forecast does not move it) unless the
    /// alarm's schedule is edited (`edited(_:_:)`).
    public mutating func decideEarlier(now: Date, zone: Zone, daysOff: inout DaysOff) -> [Date] {
        var decideAt: [Date] = []
        for alarm in book.alarms where alarm.earlierIf.map({ !$0.isOff }) ?? false {
            let after = max(now, book.lastHandled[alarm.id] ?? now)
            guard let planned = AlarmSchedule.nextPlan(of: alarm, after: after, in: zone, daysOff: daysOff) else { continue }
            let day = LocalTime(planned.own, in: zone).date
            guard earlier[alarm.id]?.day != day else { continue }
            let due = planned.own.addingTimeInterval(-EarlierDecision.lead)
            if now >= due, let decision = daysOff.decideEarlier(alarm, on: day, in: zone) {
                earlier[alarm.id] = decision
                daysOff.earlier[alarm.id] = decision
            } else if due > now {
                decideAt.append(due)
            }
        }
        earlier = earlier.filter { id, _ in book.alarms.contains { $0.id == id && $0.earlierIf != nil } }
        return decideAt
    }

    /// An alarm changed from `before` to `after`: a new time, days, `earlier_if` or calendar makes
    /// its weather decision anew (set to 0 minutes for snow, it must not ring 20 minutes early).
    public mutating func edited(_ before: Alarm, _ after: Alarm) {
        if before.time != after.time || before.days != after.days || before.earlierIf != after.earlierIf || before.calendar != after.calendar {
            earlier[after.id] = nil
        }
    }

    /// `daysOff` with this state's `earlier_if` decisions.
    public func context(_ daysOff: DaysOff) -> DaysOff {
        var context = daysOff
        context.earlier = earlier
        return context
    }

    public var stored: JSONValue {
        var members = book.stored.objectValue ?? [:]
        members["version"] = 1
        members["ringing"] = ringing.stored
        members["announced"] = .object(announced.mapValues { .number($0.timeIntervalSince1970) })
        members["earlier"] = .object(earlier.mapValues(\.stored))
        return .object(members)
    }

    public init(stored value: JSONValue) throws(CommandError) {
        book = try AlarmBook(stored: value)
        if let ringing = value.objectValue?["ringing"] { self.ringing = try Ringing(stored: ringing) }
        for (id, instant) in value.objectValue?["announced"]?.objectValue ?? [:] {
            if case .number(let seconds) = instant { announced[id] = Date(timeIntervalSince1970: seconds) }
        }
        for (id, decision) in value.objectValue?["earlier"]?.objectValue ?? [:] {
            earlier[id] = EarlierDecision(stored: decision)
        }
    }
}

/// The alarm clockwork of SPEC §3, pure: given the alarms, their ringing state, the time of the
/// previous look and "now", it says what is due, what was missed, what rings next and when to look
/// again. It reads no clock and has no effects; the node's alarm scheduler carries out what it says
/// (sound, store, state, events).
public struct AlarmClockwork: Sendable, Hashable {
    /// `alarms.missed_grace_min`: an occurrence at most this old rings; an older one is missed.
    public var grace: TimeInterval
    /// `alarms.upcoming_min`: announce an occurrence this long before it (0: never).
    public var upcoming: TimeInterval

    public init(grace: TimeInterval, upcoming: TimeInterval = 0) {
        self.grace = grace
        self.upcoming = upcoming
    }

    /// An occurrence that passed unrung: reported with `alarm_missed`, never rung.
    public struct Missed: Sendable, Hashable {
        public var alarmID: String
        public var label: String
        public var firesAt: Date
    }

    /// An occurrence to announce now with `alarm_upcoming`.
    public struct Announcement: Sendable, Hashable {
        public var alarmID: String
        public var label: String
        public var firesAt: Date
    }

    /// An occurrence kept quiet: reported with `alarm_skipped`.
    public struct Skipped: Sendable, Hashable {
        public var alarmID: String
        public var label: String
        public var firesAt: Date
        public var skip: Skip
    }

    /// The result of one look at the clock.
    public struct Step: Sendable, Hashable {
        /// The state after the look: occurrences handled, rings begun or ended, skips that are
        /// over cleared, announcements recorded.
        public var state: AlarmState
        /// Occurrences that passed beyond the grace (reported first).
        public var missed: [Missed]
        /// Occurrences kept quiet (a vacation, a holiday, a day off, `skip_next`).
        public var skipped: [Skipped]
        /// What happened to the ringing, in order: rings, snoozes over, rings timed out.
        public var outcomes: [Ringing.Outcome]
        public var announcements: [Announcement]
        /// The next fire of every alarm that has one.
        public var nextFires: [String: Date]
        /// When to look again: the earliest next fire, ring timeout, snooze end or announcement,
        /// and at the latest the next minute (`B/alarm/next` counts down in minutes).
        public var wake: Date
    }

    /// Catches the schedule up to `now`. `previous` is the time of the previous look: a `now`
    /// before it means the wall clock was set back, and a ring or snooze in progress moves back
    /// with it (it keeps what it had left).
    public func step(_ state: AlarmState, now: Date, previous: Date?, zone: Zone, daysOff given: DaysOff = .none) -> Step {
        var next = state
        var daysOff = next.context(given)
        if let previous, now < previous, next.ringing.current != nil || !next.ringing.waiting.isEmpty {
            next.ringing.shift(by: now.timeIntervalSince(previous))
        }
        next.book.clearSkips(before: AlarmSchedule.localDate(of: now, in: zone))

        // Occurrences that came due, oldest first (ties by id, so the order never depends on a dictionary).
        var missed: [Missed] = []
        var skipped: [Skipped] = []
        var outcomes: [Ringing.Outcome] = []
        let due = next.book.alarms.flatMap { alarm in
            AlarmSchedule.due(alarm, lastHandled: next.book.lastHandled[alarm.id], now: now, grace: grace, in: zone, daysOff: daysOff)
                .map { (alarm, $0) }
        }.sorted { ($0.1.instant, $0.0.id) < ($1.1.instant, $1.0.id) }
        for (alarm, occurrence) in due {
            next.book.handled(alarm.id, at: occurrence.instant)
            switch occurrence {
            case .ring(let instant):
                outcomes += next.ringing.due(
                    Ringing.Due(
                        alarmID: alarm.id, label: alarm.label, firesAt: instant, snoozeMinutes: alarm.snoozeMinutes,
                        ringTimeoutMinutes: alarm.ringTimeoutMinutes, escalateAfterSeconds: alarm.escalateAfterSeconds), at: now)
            case .missed(let instant):
                missed.append(Missed(alarmID: alarm.id, label: alarm.label, firesAt: instant))
                if alarm.isOneShot { _ = try? next.book.setEnabled(alarm.id, false) }
            case .skipped(let instant, let skip):
                skipped.append(Skipped(alarmID: alarm.id, label: alarm.label, firesAt: instant, skip: skip))
            }
        }
        // Rings that time out, snoozes that end.
        outcomes += next.ringing.tick(at: now, grace: grace)
        Self.settle(outcomes, in: &next)

        let decideAt = next.decideEarlier(now: now, zone: zone, daysOff: &daysOff)

        let fires = Self.nextFires(next, now: now, zone: zone, daysOff: daysOff)
        var announcements: [Announcement] = []
        if upcoming > 0 {
            for (id, instant) in fires.sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) })
            where instant.timeIntervalSince(now) <= upcoming && next.announced[id] != instant {
                guard let alarm = try? next.book.alarm(id) else { continue }
                next.announced[id] = instant
                announcements.append(Announcement(alarmID: id, label: alarm.label, firesAt: instant))
            }
        }
        let announceAt = upcoming > 0
            ? fires.compactMap { id, instant in next.announced[id] == instant ? nil : instant.addingTimeInterval(-upcoming) }
            : []
        let nextMinute = Date(timeIntervalSince1970: ((now.timeIntervalSince1970 / 60).rounded(.down) + 1) * 60)
        let wake = ([next.ringing.nextChange].compactMap { $0 } + fires.values + announceAt + decideAt)
            .filter { $0 > now }.reduce(nextMinute, min)
        return Step(state: next, missed: missed, skipped: skipped, outcomes: outcomes, announcements: announcements, nextFires: fires, wake: wake)
    }

    /// After a restart: what was stored goes on (a ring that had not timed out rings again, a
    /// snooze that ended meanwhile rings or, beyond the grace, is missed). A `step` follows.
    public func resume(_ state: AlarmState, now: Date) -> (state: AlarmState, outcomes: [Ringing.Outcome]) {
        var next = state
        let outcomes = next.ringing.resume(at: now, grace: grace)
        Self.settle(outcomes, in: &next)
        return (next, outcomes)
    }

    /// The next fire of each alarm that has one, never before its last handled occurrence (after
    /// the wall clock is set back, an occurrence that already rang is not shown or rung again). A
    /// one-shot alarm being dealt with (ringing, snoozed or waiting) has none: it switches itself
    /// off when it is over.
    public static func nextFires(_ state: AlarmState, now: Date, zone: Zone, daysOff given: DaysOff = .none) -> [String: Date] {
        let daysOff = state.context(given)
        let inSession = Set(([state.ringing.current].compactMap { $0 } + state.ringing.waiting).map(\.due.alarmID))
        var fires: [String: Date] = [:]
        for alarm in state.book.alarms where !(alarm.isOneShot && inSession.contains(alarm.id)) {
            let after = max(now, state.book.lastHandled[alarm.id] ?? now)
            fires[alarm.id] = AlarmSchedule.nextFire(of: alarm, after: after, in: zone, daysOff: daysOff)
        }
        return fires
    }

    /// The soonest of `fires` (ties by id), for `B/alarm/next`.
    public static func soonest(_ fires: [String: Date]) -> (id: String, firesAt: Date)? {
        fires.min { ($0.value, $0.key) < ($1.value, $1.key) }.map { ($0.key, $0.value) }
    }

    /// The changes to the alarms that outcomes bring: a one-shot alarm whose ring is over
    /// (dismissed, silenced or missed) switches itself off.
    public static func settle(_ outcomes: [Ringing.Outcome], in state: inout AlarmState) {
        for outcome in outcomes {
            switch outcome {
            case .dismissed(let due), .autoSilenced(let due), .missed(let due, _):
                if let alarm = try? state.book.alarm(due.alarmID), alarm.isOneShot, alarm.enabled {
                    _ = try? state.book.setEnabled(alarm.id, false)
                }
            case .ring, .snoozed, .waiting, .escalated:
                break
            }
        }
    }
}

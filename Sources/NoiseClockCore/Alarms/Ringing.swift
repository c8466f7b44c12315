import FoundationEssentials

/// The ringing state machine of SPEC §3: idle → ringing → snoozed → ringing … → dismissed or
/// auto-silenced. One alarm rings at a time; an alarm due while another rings waits and rings
/// after it. Pure: the scheduler feeds it instants and carries out what it returns.
public struct Ringing: Sendable, Hashable {
    /// An occurrence of an alarm that came due.
    public struct Due: Sendable, Hashable {
        public var alarmID: String
        public var label: String
        public var firesAt: Date
        public var snoozeMinutes: Int
        public var ringTimeoutMinutes: Int
        /// Still ringing this long, it escalates (SPEC §12); 0: never.
        public var escalateAfterSeconds: Int

        public init(alarmID: String, label: String, firesAt: Date, snoozeMinutes: Int, ringTimeoutMinutes: Int, escalateAfterSeconds: Int = 0) {
            self.alarmID = alarmID
            self.label = label
            self.firesAt = firesAt
            self.snoozeMinutes = snoozeMinutes
            self.ringTimeoutMinutes = ringTimeoutMinutes
            self.escalateAfterSeconds = escalateAfterSeconds
        }
    }

    public enum Phase: String, Sendable, Hashable { case idle, ringing, snoozed }

    /// An alarm being dealt with: ringing now, or snoozed until a time.
    public struct Session: Sendable, Hashable {
        public var due: Due
        public var phase: Phase
        /// When the current phase began.
        public var since: Date
        public var snoozedUntil: Date?
        public var snoozeCount: Int
        /// This ring has escalated (each ring after a snooze starts gentle again).
        public var escalated = false

        /// When this ring escalates, if it rings and has not yet.
        var escalatesAt: Date? {
            guard phase == .ringing, !escalated, due.escalateAfterSeconds > 0,
                  due.escalateAfterSeconds < due.ringTimeoutMinutes * 60
            else { return nil }
            return since.addingTimeInterval(Double(due.escalateAfterSeconds))
        }
    }

    /// What the scheduler must do (sound, events) after a change.
    public enum Outcome: Sendable, Hashable {
        case ring(Due)
        case snoozed(Due, until: Date)
        case dismissed(Due)
        case autoSilenced(Due)
        /// Due while another alarm rings; it rings after that one.
        case waiting(Due)
        /// Still ringing after its `escalateAfterSeconds`: it gets firm.
        case escalated(Due)
        /// A snooze that ended more than the grace period ago (the node was down, or the wall
        /// clock jumped over it): reported, not rung. `at` is when it should have rung.
        case missed(Due, at: Date)
    }

    public private(set) var current: Session?
    /// Alarms waiting their turn: newly due ones, and snoozed ones pushed back by another alarm.
    public private(set) var waiting: [Session] = []

    public init() {}

    public var phase: Phase { current?.phase ?? .idle }

    /// An occurrence came due at `now`.
    public mutating func due(_ due: Due, at now: Date) -> [Outcome] {
        switch current?.phase {
        case nil, .idle?:
            current = Session(due: due, phase: .ringing, since: now, snoozedUntil: nil, snoozeCount: 0)
            return [.ring(due)]
        case .ringing?:
            waiting.append(Session(due: due, phase: .ringing, since: now, snoozedUntil: nil, snoozeCount: 0))
            return [.waiting(due)]
        case .snoozed?:
            // Nothing sounds while snoozed: the new alarm rings now, the snoozed one waits.
            if let snoozed = current { waiting.insert(snoozed, at: 0) }
            current = Session(due: due, phase: .ringing, since: now, snoozedUntil: nil, snoozeCount: 0)
            return [.ring(due)]
        }
    }

    /// Snoozes the ringing alarm for `minutes` (its own `snooze_min` when nil). Nil when nothing rings.
    public mutating func snooze(minutes: Int?, at now: Date) -> [Outcome]? {
        guard var session = current, session.phase == .ringing else { return nil }
        let until = now.addingTimeInterval(Double((minutes ?? session.due.snoozeMinutes) * 60))
        session.phase = .snoozed
        session.since = now
        session.snoozedUntil = until
        session.snoozeCount += 1
        current = session
        var outcomes: [Outcome] = [.snoozed(session.due, until: until)]
        // A waiting alarm that is due rings now, ahead of the snoozed one.
        if let index = waiting.firstIndex(where: { $0.phase == .ringing }) {
            let next = waiting.remove(at: index)
            waiting.insert(session, at: 0)
            current = Session(due: next.due, phase: .ringing, since: now, snoozedUntil: nil, snoozeCount: next.snoozeCount)
            outcomes.append(.ring(next.due))
        }
        return outcomes
    }

    /// Stops the ringing alarm or cancels its pending snooze. Nil when there is nothing to dismiss.
    public mutating func dismiss(at now: Date) -> [Outcome]? {
        guard let session = current else { return nil }
        current = nil
        return [.dismissed(session.due)] + promote(at: now)
    }

    /// Advances time: ends a ring past its timeout, rings a snooze that is over — or, when it
    /// ended more than `grace` ago, reports it missed and ends it, as SPEC §3 treats an occurrence.
    public mutating func tick(at now: Date, grace: TimeInterval = .infinity) -> [Outcome] {
        keepInThePast(now)
        guard var session = current else { return promote(at: now) }
        switch session.phase {
        case .ringing where now.timeIntervalSince(session.since) >= Double(session.due.ringTimeoutMinutes * 60):
            current = nil
            return [.autoSilenced(session.due)] + promote(at: now)
        case .ringing where session.escalatesAt.map { now >= $0 } ?? false:
            session.escalated = true
            current = session
            return [.escalated(session.due)]
        case .snoozed where session.snoozedUntil.map { now.timeIntervalSince($0) > grace } ?? false:
            current = nil
            return [.missed(session.due, at: session.snoozedUntil ?? now)] + promote(at: now)
        case .snoozed where session.snoozedUntil.map { now >= $0 } ?? false:
            session.phase = .ringing
            session.since = now
            session.snoozedUntil = nil
            session.escalated = false
            current = session
            return [.ring(session.due)]
        default:
            return []
        }
    }

    /// An alarm was deleted or disabled: its ring or snooze ends (reported as dismissed), and it
    /// leaves the queue of waiting alarms.
    public mutating func cancel(alarmID: String, at now: Date) -> [Outcome] {
        waiting.removeAll { $0.due.alarmID == alarmID }
        guard let session = current, session.due.alarmID == alarmID else { return [] }
        current = nil
        return [.dismissed(session.due)] + promote(at: now)
    }

    /// After a restart: what was stored goes on. A ring whose timeout has not passed rings again
    /// (its timeout still counted from when it began); a snooze that ended meanwhile rings now.
    public mutating func resume(at now: Date, grace: TimeInterval = .infinity) -> [Outcome] {
        let outcomes = tick(at: now, grace: grace)
        if outcomes.contains(where: { if case .ring = $0 { true } else { false } }) { return outcomes }
        guard let session = current, session.phase == .ringing else { return outcomes }
        return outcomes + [.ring(session.due)]
    }

    /// The wall clock was set back by `-seconds`: rings and snoozes move with it, keeping what they
    /// had left (a ring must not go on for 70 minutes because the clock went back an hour). A clock
    /// set forward is taken as it is: a snooze it jumped over ends (rung, or missed beyond the
    /// grace), as an occurrence would.
    public mutating func shift(by seconds: TimeInterval) {
        func moved(_ session: Session) -> Session {
            var session = session
            session.since = session.since.addingTimeInterval(seconds)
            session.snoozedUntil = session.snoozedUntil?.addingTimeInterval(seconds)
            return session
        }
        current = current.map(moved)
        waiting = waiting.map(moved)
    }

    /// A session that began after `now` (the clock was set back while nobody looked, e.g. while
    /// the node was down) is moved back to begin now, so it is never stretched by the change.
    mutating func keepInThePast(_ now: Date) {
        func moved(_ session: Session) -> Session {
            guard session.since > now else { return session }
            let back = now.timeIntervalSince(session.since)
            var session = session
            session.since = now
            session.snoozedUntil = session.snoozedUntil?.addingTimeInterval(back)
            return session
        }
        current = current.map(moved)
        waiting = waiting.map(moved)
    }

    /// The next instant at which `tick` has something to do: a snooze ending or a ring timing out.
    public var nextChange: Date? {
        guard let session = current else { return nil }
        switch session.phase {
        case .ringing:
            let timeout = session.since.addingTimeInterval(Double(session.due.ringTimeoutMinutes * 60))
            return session.escalatesAt.map { min($0, timeout) } ?? timeout
        case .snoozed: return session.snoozedUntil
        case .idle: return nil
        }
    }

    /// The next waiting alarm takes the stage: a due one rings, a snoozed one stays snoozed (and
    /// rings at once if its snooze is already over).
    private mutating func promote(at now: Date) -> [Outcome] {
        guard current == nil, !waiting.isEmpty else { return [] }
        var next = waiting.removeFirst()
        if next.phase == .snoozed, let until = next.snoozedUntil, until > now {
            current = next
            return []
        }
        next.phase = .ringing
        next.since = now
        next.snoozedUntil = nil
        next.escalated = false
        current = next
        return [.ring(next.due)]
    }

    /// `B/alarm/state`: `{"state","alarm_id","label","since","snoozed_until","snooze_count","escalated"}`, and
    /// `waiting`: the alarms that came due while another rang, in the order they will ring.
    public func json(isoTime: (Date) -> String) -> JSONValue {
        let waitingJSON = JSONValue.array(waiting.map { session in
            [
                "alarm_id": .string(session.due.alarmID), "label": .string(session.due.label),
                "fires_at": .string(isoTime(session.due.firesAt)),
            ]
        })
        guard let session = current else {
            return [
                "state": "idle", "alarm_id": nil, "label": nil, "since": nil, "snoozed_until": nil, "snooze_count": 0,
                "escalated": false, "waiting": waitingJSON,
            ]
        }
        return [
            "state": .string(session.phase.rawValue), "alarm_id": .string(session.due.alarmID),
            "label": .string(session.due.label), "since": .string(isoTime(session.since)),
            "snoozed_until": session.snoozedUntil.map { .string(isoTime($0)) } ?? .null,
            "snooze_count": .number(Double(session.snoozeCount)), "escalated": .bool(session.escalated), "waiting": waitingJSON,
        ]
    }
}

// MARK: Stored form (in `alarms.json`; instants as seconds since 1970, exact)

extension Ringing {
    public var stored: JSONValue {
        ["current": current.map(\.stored) ?? .null, "waiting": .array(waiting.map(\.stored))]
    }

    /// Reads what `stored` wrote; throws naming the member that is wrong.
    public init(stored value: JSONValue) throws(CommandError) {
        let members = try StoredFields(value, "ringing")
        self.init()
        if let session = members.values["current"], session != .null {
            current = try Session(stored: session)
        }
        waiting = try members.array("waiting").map { item throws(CommandError) in try Session(stored: item) }
    }
}

extension Ringing.Session {
    var stored: JSONValue {
        [
            "alarm_id": .string(due.alarmID), "label": .string(due.label), "fires_at": .number(due.firesAt.timeIntervalSince1970),
            "snooze_min": .number(Double(due.snoozeMinutes)), "ring_timeout_min": .number(Double(due.ringTimeoutMinutes)),
            "phase": .string(phase.rawValue), "since": .number(since.timeIntervalSince1970),
            "snoozed_until": snoozedUntil.map { .number($0.timeIntervalSince1970) } ?? .null,
            "snooze_count": .number(Double(snoozeCount)),
            "escalate_after_s": .number(Double(due.escalateAfterSeconds)), "escalated": .bool(escalated),
        ]
    }

    init(stored value: JSONValue) throws(CommandError) {
        let members = try StoredFields(value, "ringing session")
        guard let phase = Ringing.Phase(rawValue: try members.string("phase")), phase != .idle else {
            throw .invalidField("phase", "must be ringing or snoozed")
        }
        if phase == .snoozed, members.values["snoozed_until"] ?? .null == .null {
            throw .invalidField("snoozed_until", "a snoozed alarm needs the time its snooze ends")
        }
        self.init(
            due: Ringing.Due(
                alarmID: try members.string("alarm_id"), label: try members.string("label"),
                firesAt: try members.instant("fires_at"), snoozeMinutes: try members.int("snooze_min"),
                ringTimeoutMinutes: try members.int("ring_timeout_min"),
                // A file from before escalation: none.
                escalateAfterSeconds: members.values["escalate_after_s"] == nil ? 0 : try members.int("escalate_after_s", in: AlarmFields.escalations)),
            phase: phase, since: try members.instant("since"),
            snoozedUntil: members.values["snoozed_until"] == .null ? nil : try members.instant("snoozed_until"),
            snoozeCount: try members.int("snooze_count"))
        if let value = members.values["escalated"] {
            guard let flag = value.boolValue else { throw .invalidField("escalated", "must be true or false") }
            escalated = flag
        }
    }
}

/// Typed reads of a stored JSON object, naming the member at fault.
struct StoredFields {
    let values: [String: JSONValue]

    init(_ value: JSONValue, _ what: String) throws(CommandError) {
        guard let members = value.objectValue else { throw .invalidField(what, "must be a JSON object") }
        values = members
    }

    func string(_ key: String) throws(CommandError) -> String {
        guard let s = values[key]?.stringValue else { throw .invalidField(key, "must be a string") }
        return s
    }

    func int(_ key: String) throws(CommandError) -> Int {
        guard let n = values[key]?.intValue else { throw .invalidField(key, "must be a whole number") }
        return n
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws(CommandError) -> Int {
        let n = try int(key)
        guard range.contains(n) else { throw .invalidField(key, "must be from \(range.lowerBound) to \(range.upperBound), not \(n)") }
        return n
    }

    func instant(_ key: String) throws(CommandError) -> Date {
        guard case .number(let seconds)? = values[key] else { throw .invalidField(key, "must be seconds since 1970") }
        return Date(timeIntervalSince1970: seconds)
    }

    func array(_ key: String) throws(CommandError) -> [JSONValue] {
        guard let value = values[key] else { return [] }
        guard case .array(let items) = value else { throw .invalidField(key, "must be a list") }
        return items
    }

    func object(_ key: String) throws(CommandError) -> [String: JSONValue] {
        guard let value = values[key] else { return [:] }
        guard let members = value.objectValue else { throw .invalidField(key, "must be a JSON object") }
        return members
    }
}

import FoundationEssentials

/// A countdown timer (SPEC §10): running towards a wall-clock instant, paused with what it has
/// left, or ringing since it finished.
public struct CountdownTimer: Sendable, Hashable, Identifiable {
    public enum State: Sendable, Hashable {
        case running(endsAt: Date)
        case paused(remaining: TimeInterval)
        case ringing(since: Date)
    }

    public static let maximumCount = 20
    public static let maximumLabelLength = 64
    /// At most a day, like a kitchen timer; longer is an alarm's job.
    public static let durations = 1...(24 * 3600)

    public var id: String
    public var label: String
    public var sound: String
    /// The whole length, extensions included.
    public var durationSeconds: Int
    public var state: State

    public init(id: String, label: String, sound: String, durationSeconds: Int, state: State) {
        self.id = id
        self.label = label
        self.sound = sound
        self.durationSeconds = durationSeconds
        self.state = state
    }

    public var stateName: String {
        switch state {
        case .running: "running"
        case .paused: "paused"
        case .ringing: "ringing"
        }
    }

    /// Seconds left at `now` (0 once it rings).
    public func remaining(at now: Date) -> TimeInterval {
        switch state {
        case .running(let endsAt): max(0, endsAt.timeIntervalSince(now))
        case .paused(let remaining): remaining
        case .ringing: 0
        }
    }

    /// The object of `B/timers` (SPEC §10).
    public func json(at now: Date, iso: (Date) -> String) -> JSONValue {
        var endsAt: JSONValue = .null
        if case .running(let instant) = state { endsAt = .string(iso(instant)) }
        return [
            "id": .string(id), "label": .string(label), "state": .string(stateName), "duration_s": .number(Double(durationSeconds)),
            "ends_at": endsAt, "remaining_s": .number(remaining(at: now).rounded(.up)), "sound": .string(sound),
        ]
    }
}

/// `timer/start`: `{"minutes"|"seconds","label","sound"}`, or a bare number of minutes.
public struct TimerDraft: Sendable, Hashable {
    public var seconds: Int
    public var label: String?
    public var sound: String?

    public init(seconds: Int, label: String? = nil, sound: String? = nil) {
        self.seconds = seconds
        self.label = label
        self.sound = sound
    }

    public init(_ arguments: CommandArguments) throws(CommandError) {
        try arguments.allowOnly(["minutes", "seconds", "label", "sound"])
        let minutes = try arguments.int("minutes", in: 1...(CountdownTimer.durations.upperBound / 60))
        let seconds = try arguments.int("seconds", in: CountdownTimer.durations)
        switch (minutes, seconds) {
        case (let minutes?, nil): self.seconds = minutes * 60
        case (nil, let seconds?): self.seconds = seconds
        case (_?, _?): throw .invalidField("seconds", "give minutes or seconds, not both")
        case (nil, nil): throw .invalidField("minutes", "a timer needs minutes (or seconds)")
        }
        if let label = try arguments.string("label") {
            guard !label.isEmpty, label.count <= CountdownTimer.maximumLabelLength else {
                throw .invalidField("label", "must be 1 to \(CountdownTimer.maximumLabelLength) characters")
            }
            self.label = label
        }
        if let sound = try arguments.string("sound") {
            guard !sound.isEmpty else { throw .invalidField("sound", "must name a sound") }
            self.sound = sound
        }
    }
}

/// The node's timers and what changes them; every change is checked and either applies or throws.
public struct TimerBook: Sendable, Hashable {
    public private(set) var timers: [CountdownTimer] = []

    public init(timers: [CountdownTimer] = []) {
        self.timers = timers
    }

    public func timer(_ id: String) throws(CommandError) -> CountdownTimer {
        guard let timer = timers.first(where: { $0.id == id }) else { throw CommandError(.notFound, "no timer \"\(id)\"", field: "id") }
        return timer
    }

    public var ringing: [CountdownTimer] { timers.filter { if case .ringing = $0.state { true } else { false } } }

    public mutating func start(_ draft: TimerDraft, id: String, label: String, sound: String, now: Date) throws(CommandError) -> CountdownTimer {
        guard timers.count < CountdownTimer.maximumCount else {
            throw CommandError(.conflict, "there are already \(CountdownTimer.maximumCount) timers", field: "id")
        }
        let timer = CountdownTimer(
            id: id, label: draft.label ?? label, sound: draft.sound ?? sound, durationSeconds: draft.seconds,
            state: .running(endsAt: Self.end(now, plus: Double(draft.seconds))))
        timers.append(timer)
        return timer
    }

    /// A timer ends on a whole second (rounded up, so never short): `ends_at` is then its exact
    /// end, and a face counting down from it turns its seconds over in step with the node.
    public static func end(_ now: Date, plus seconds: TimeInterval) -> Date {
        Date(timeIntervalSince1970: (now.timeIntervalSince1970 + seconds).rounded(.up))
    }

    public mutating func pause(_ id: String, now: Date) throws(CommandError) -> CountdownTimer {
        try change(id) { timer throws(CommandError) in
            guard case .running(let endsAt) = timer.state else { throw CommandError(.conflict, "timer \"\(id)\" is not running", field: "id") }
            timer.state = .paused(remaining: max(0, endsAt.timeIntervalSince(now)))
        }
    }

    public mutating func resume(_ id: String, now: Date) throws(CommandError) -> CountdownTimer {
        try change(id) { timer throws(CommandError) in
            guard case .paused(let remaining) = timer.state else { throw CommandError(.conflict, "timer \"\(id)\" is not paused", field: "id") }
            timer.state = .running(endsAt: Self.end(now, plus: remaining))
        }
    }

    /// Adds `seconds` (a ringing timer starts again with them).
    public mutating func extend(_ id: String, seconds: Int, now: Date) throws(CommandError) -> CountdownTimer {
        try change(id) { timer throws(CommandError) in
            guard timer.durationSeconds + seconds <= CountdownTimer.durations.upperBound else {
                throw .invalidField("seconds", "a timer runs at most \(CountdownTimer.durations.upperBound / 3600) hours")
            }
            timer.durationSeconds += seconds
            switch timer.state {
            case .running(let endsAt): timer.state = .running(endsAt: endsAt.addingTimeInterval(Double(seconds)))
            case .paused(let remaining): timer.state = .paused(remaining: remaining + Double(seconds))
            case .ringing: timer.state = .running(endsAt: Self.end(now, plus: Double(seconds)))
            }
        }
    }

    /// Cancels (a running or paused timer) or dismisses (a ringing one): it is gone either way.
    public mutating func remove(_ id: String) throws(CommandError) -> CountdownTimer {
        let timer = try timer(id)
        timers.removeAll { $0.id == id }
        return timer
    }

    private mutating func change(_ id: String, _ body: (inout CountdownTimer) throws(CommandError) -> Void) throws(CommandError) -> CountdownTimer {
        guard let index = timers.firstIndex(where: { $0.id == id }) else { throw CommandError(.notFound, "no timer \"\(id)\"", field: "id") }
        var timer = timers[index]
        try body(&timer)
        timers[index] = timer
        return timer
    }

    mutating func replace(_ timer: CountdownTimer) {
        if let index = timers.firstIndex(where: { $0.id == timer.id }) { timers[index] = timer }
    }

    mutating func drop(_ id: String) {
        timers.removeAll { $0.id == id }
    }
}

/// The timers' clockwork, pure like the alarms': at "now", which timers finish (and ring), which
/// finished too long ago to ring (missed: the node was down), which have rung long enough
/// (silenced), and when to look again.
public struct TimerClockwork: Sendable, Hashable {
    /// `timers.ring_timeout_s`.
    public var ringTimeout: TimeInterval
    /// `alarms.missed_grace_min`: a timer that ended at most this long ago (while the node was
    /// down) still rings.
    public var grace: TimeInterval

    public init(ringTimeout: TimeInterval, grace: TimeInterval) {
        self.ringTimeout = ringTimeout
        self.grace = grace
    }

    public struct Step: Sendable, Hashable {
        public var book: TimerBook
        public var finished: [CountdownTimer]
        public var missed: [CountdownTimer]
        public var silenced: [CountdownTimer]
        /// The next end or ring timeout; nil when nothing runs or rings.
        public var wake: Date?
    }

    /// `previous` is the time of the last look: a `now` before it means the wall clock was set
    /// back, and running and ringing timers move back with it (a timer keeps what it had left).
    public func step(_ book: TimerBook, now: Date, previous: Date?) -> Step {
        var next = book
        var finished: [CountdownTimer] = [], missed: [CountdownTimer] = [], silenced: [CountdownTimer] = []
        let shift = previous.map { now < $0 ? now.timeIntervalSince($0) : 0 } ?? 0
        for var timer in book.timers.sorted(by: { ($0.remaining(at: now), $0.id) < ($1.remaining(at: now), $1.id) }) {
            switch timer.state {
            case .running(let endsAt):
                let end = endsAt.addingTimeInterval(shift)
                if end > now {
                    timer.state = .running(endsAt: end)
                    next.replace(timer)
                } else if now.timeIntervalSince(end) <= grace {
                    timer.state = .ringing(since: now)
                    next.replace(timer)
                    finished.append(timer)
                } else {
                    next.drop(timer.id)
                    missed.append(timer)
                }
            case .ringing(let since):
                let start = since.addingTimeInterval(shift)
                if now.timeIntervalSince(start) >= ringTimeout {
                    next.drop(timer.id)
                    silenced.append(timer)
                } else {
                    timer.state = .ringing(since: start)
                    next.replace(timer)
                }
            case .paused:
                break
            }
        }
        let wake = next.timers.compactMap { timer -> Date? in
            switch timer.state {
            case .running(let endsAt): endsAt
            case .ringing(let since): since.addingTimeInterval(ringTimeout)
            case .paused: nil
            }
        }.min()
        return Step(book: next, finished: finished, missed: missed, silenced: silenced, wake: wake)
    }
}

// MARK: Stored form (`timers.json`; instants as seconds since 1970)

extension TimerBook {
    public var stored: JSONValue {
        [
            "version": 1,
            "timers": .array(timers.map { timer in
                var members: [String: JSONValue] = [
                    "id": .string(timer.id), "label": .string(timer.label), "sound": .string(timer.sound),
                    "duration_s": .number(Double(timer.durationSeconds)),
                ]
                switch timer.state {
                case .running(let endsAt): members["ends_at"] = .number(endsAt.timeIntervalSince1970)
                case .paused(let remaining): members["paused_remaining_s"] = .number(remaining)
                case .ringing(let since): members["ringing_since"] = .number(since.timeIntervalSince1970)
                }
                return .object(members)
            }),
        ]
    }

    public init(stored value: JSONValue) throws(CommandError) {
        let fields = try StoredFields(value, "timers document")
        var timers: [CountdownTimer] = []
        for item in try fields.array("timers") {
            let timer = try StoredFields(item, "timer")
            let state: CountdownTimer.State
            if timer.values["ends_at"] != nil {
                state = .running(endsAt: try timer.instant("ends_at"))
            } else if case .number(let remaining)? = timer.values["paused_remaining_s"], remaining >= 0 {
                state = .paused(remaining: remaining)
            } else if timer.values["ringing_since"] != nil {
                state = .ringing(since: try timer.instant("ringing_since"))
            } else {
                throw .invalidField("ends_at", "a stored timer needs ends_at, paused_remaining_s or ringing_since")
            }
            let id = try timer.string("id")
            guard !timers.contains(where: { $0.id == id }) else { throw .invalidField("id", "\(id) appears twice") }
            timers.append(
                CountdownTimer(
                    id: id, label: try timer.string("label"), sound: try timer.string("sound"),
                    durationSeconds: try timer.int("duration_s", in: CountdownTimer.durations), state: state))
        }
        self.init(timers: timers)
    }
}

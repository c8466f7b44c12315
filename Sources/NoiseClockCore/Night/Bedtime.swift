import FoundationEssentials

/// Where bedtime is (SPEC §13, retained `B/bedtime`).
public enum BedtimePhase: String, Sendable, Hashable, CaseIterable {
    case idle, reminder
    case windingDown = "winding_down"
}

/// A wind-down under way: from `startedAt` the screen's light falls to the night level by `endsAt`.
public struct WindDown: Sendable, Hashable {
    public var startedAt: Date
    public var endsAt: Date
    /// The scheduled bedtime it leads to; nil when started by hand with no bedtime near.
    public var bedtimeAt: Date?
    /// Started with `bedtime/start` rather than by the schedule.
    public var byHand: Bool

    public init(startedAt: Date, endsAt: Date, bedtimeAt: Date?, byHand: Bool) {
        self.startedAt = startedAt
        self.endsAt = endsAt
        self.bedtimeAt = bedtimeAt
        self.byHand = byHand
    }

    /// 0...1 through the wind-down at `now` (1 for one of no length).
    public func progress(at now: Date) -> Double {
        let total = endsAt.timeIntervalSince(startedAt)
        guard total > 0 else { return 1 }
        return min(1, max(0, now.timeIntervalSince(startedAt) / total))
    }
}

/// What `bedtime.json` holds: the wind-down under way (so a restart resumes it at the right
/// level) and which bedtimes were handled (so a clock set back reminds or winds down nothing twice).
public struct BedtimeState: Sendable, Hashable {
    public var windDown: WindDown?
    /// The bedtime whose reminder went out last.
    public var remindedFor: Date?
    /// The bedtime whose scheduled wind-down began last.
    public var woundFor: Date?
    /// A bedtime stopped with `bedtime/stop` before it came: no reminder, no wind-down for it.
    public var stoppedFor: Date?
    /// When the last wind-down reached its end: the room stays at night from then until the
    /// morning (the end of the face's night). Nil after `bedtime/stop`.
    public var nightFrom: Date?

    public init(windDown: WindDown? = nil, remindedFor: Date? = nil, woundFor: Date? = nil, stoppedFor: Date? = nil, nightFrom: Date? = nil) {
        self.windDown = windDown
        self.remindedFor = remindedFor
        self.woundFor = woundFor
        self.stoppedFor = stoppedFor
        self.nightFrom = nightFrom
    }

    public var stored: JSONValue {
        func seconds(_ date: Date?) -> JSONValue { date.map { .number($0.timeIntervalSince1970) } ?? .null }
        var members: [String: JSONValue] = [
            "version": 1, "reminded_for": seconds(remindedFor), "wound_for": seconds(woundFor), "stopped_for": seconds(stoppedFor),
            "night_from": seconds(nightFrom),
        ]
        if let windDown {
            members["wind_down"] = [
                "started_at": seconds(windDown.startedAt), "ends_at": seconds(windDown.endsAt),
                "bedtime_at": seconds(windDown.bedtimeAt), "by_hand": .bool(windDown.byHand),
            ]
        } else {
            members["wind_down"] = .null
        }
        return .object(members)
    }

    public init(stored value: JSONValue) throws(CommandError) {
        guard let members = value.objectValue else { throw .invalidField("bedtime", "the stored bedtime is not an object") }
        func date(_ value: JSONValue?, _ name: String) throws(CommandError) -> Date? {
            guard let value, value != .null else { return nil }
            guard case .number(let seconds) = value, seconds.isFinite else { throw .invalidField(name, "must be seconds since 1970") }
            return Date(timeIntervalSince1970: seconds)
        }
        remindedFor = try date(members["reminded_for"], "reminded_for")
        woundFor = try date(members["wound_for"], "wound_for")
        stoppedFor = try date(members["stopped_for"], "stopped_for")
        nightFrom = try date(members["night_from"], "night_from")
        if let run = members["wind_down"]?.objectValue {
            guard let start = try date(run["started_at"], "wind_down.started_at"), let end = try date(run["ends_at"], "wind_down.ends_at"),
                  start <= end
            else { throw .invalidField("wind_down", "needs started_at before ends_at") }
            windDown = WindDown(
                startedAt: start, endsAt: end, bedtimeAt: try date(run["bedtime_at"], "wind_down.bedtime_at"),
                byHand: run["by_hand"]?.boolValue ?? false)
        }
    }
}

/// `B/bedtime`: `{"phase","next_at","ends_at"}`.
public struct BedtimeView: Sendable, Hashable {
    public var phase: BedtimePhase
    /// The next bedtime: during a reminder or a scheduled wind-down, the one they lead to.
    public var nextAt: Date?
    /// The end of the wind-down under way.
    public var endsAt: Date?
    /// The wind-down under way, for the screen.
    public var windDown: WindDown?

    public init(phase: BedtimePhase, nextAt: Date?, endsAt: Date?, windDown: WindDown? = nil) {
        self.phase = phase
        self.nextAt = nextAt
        self.endsAt = endsAt
        self.windDown = windDown
    }

    public func json(iso: (Date) -> String) -> JSONValue {
        [
            "phase": .string(phase.rawValue), "next_at": nextAt.map { .string(iso($0)) } ?? .null,
            "ends_at": endsAt.map { .string(iso($0)) } ?? .null,
        ]
    }
}

/// The bedtime clockwork of SPEC §13, pure: from the settings, what was handled and "now", what is
/// due (a reminder, a wind-down beginning or ending), the phase, and when to look again. It reads
/// no clock and has no effects; the node's bedtime feature carries out what it says.
///
/// - A bedtime's reminder goes out once, from `time − reminder_min` until the bedtime (a node
///   started in that window reminds at once); a bedtime already passed is never reminded.
/// - A scheduled wind-down runs from `time − wind_down_min` to the bedtime; a node that starts in
///   it, or a clock that jumps into it, joins it at the level of that instant.
/// - A wind-down ends at its end, when the clock is set back to before it began, or by
///   `bedtime/stop`, which also keeps the coming bedtime quiet when it has not begun yet.
public enum BedtimeClockwork {
    /// What a look found to do.
    public enum Event: Sendable, Hashable {
        /// `bedtime_reminder`: the bedtime at `bedtimeAt` is `reminder_min` away.
        case reminder(bedtimeAt: Date)
        /// A wind-down began: the sunset, the sounds and their sleep timer.
        case windDownBegan(WindDown)
        /// A wind-down ended: at its end (the room stays at the night level), by its clock set
        /// back, or by `bedtime/stop` (`stopped`).
        case windDownEnded(WindDown, stopped: Bool)
    }

    public struct Step: Sendable, Hashable {
        public var state: BedtimeState
        public var events: [Event]
        public var view: BedtimeView
        /// The next instant at which the phase or a reminder is due; nil when bedtime is off and
        /// nothing runs.
        public var nextLook: Date?
    }

    /// A wind-down started by hand this long or less before a bedtime stands in for that
    /// bedtime's reminder and wind-down.
    public static let byHandCovers: TimeInterval = 6 * 3600

    /// A wind-down set back this far before its start by the wall clock ends.
    public static let setBackTolerance: TimeInterval = 60

    /// The first bedtime strictly after `instant`, by the daylight-saving policy of the alarms.
    public static func nextBedtime(after instant: Date, settings: BedtimeSettings, zone: Zone) -> Date? {
        bedtimes(after: instant, settings: settings, zone: zone).first
    }

    /// The bedtimes strictly after `instant` for about a week, in order. (Two can be closer than a
    /// reminder: Monday 23:50 and Tuesday 00:30.)
    public static func bedtimes(after instant: Date, settings: BedtimeSettings, zone: Zone) -> [Date] {
        guard settings.isOn else { return [] }
        let today = LocalTime(instant, in: zone).date.daysSinceEpoch
        var found: [Date] = []
        for offset in Int64(-1)...8 {
            let day = CivilDate(daysSinceEpoch: today + offset)
            guard let weekday = Weekday(calendarWeekday: day.weekday + 1), let time = settings.time(on: weekday) else { continue }
            let at = AlarmSchedule.occurrence(of: time, on: day, in: zone)
            if at > instant { found.append(at) }
        }
        return found.sorted()
    }

    static func reminderAt(_ bedtime: Date, _ settings: BedtimeSettings) -> Date {
        bedtime.addingTimeInterval(-Double(settings.reminderMinutes) * 60)
    }

    static func windDownAt(_ bedtime: Date, _ settings: BedtimeSettings) -> Date {
        bedtime.addingTimeInterval(-Double(settings.windDownMinutes) * 60)
    }

    /// One look at `now`.
    public static func step(_ state: BedtimeState, settings: BedtimeSettings, now: Date, zone: Zone) -> Step {
        var state = state
        var events: [Event] = []
        // A wind-down that is over, or whose clock was set back to before it, ends.
        if let run = state.windDown, now >= run.endsAt || now < run.startedAt.addingTimeInterval(-setBackTolerance) {
            state.windDown = nil
            if now >= run.endsAt { state.nightFrom = run.endsAt }
            events.append(.windDownEnded(run, stopped: false))
        }
        let coming = bedtimes(after: now, settings: settings, zone: zone)
        for bedtime in coming where state.stoppedFor != bedtime {
            if settings.reminderMinutes > 0, now >= reminderAt(bedtime, settings), (state.remindedFor ?? .distantPast) < bedtime {
                state.remindedFor = bedtime
                events.append(.reminder(bedtimeAt: bedtime))
            }
            if settings.windDownMinutes > 0, now >= windDownAt(bedtime, settings), (state.woundFor ?? .distantPast) < bedtime {
                state.woundFor = bedtime
                // One under way (begun by hand, or an earlier bedtime's) goes on as it is.
                if state.windDown == nil {
                    let run = WindDown(startedAt: windDownAt(bedtime, settings), endsAt: bedtime, bedtimeAt: bedtime, byHand: false)
                    state.windDown = run
                    events.append(.windDownBegan(run))
                }
            }
        }
        return Step(state: state, events: events, view: view(state, settings: settings, now: now, coming: coming),
                    nextLook: nextLook(state, settings: settings, now: now, coming: coming))
    }

    /// `bedtime/start`: a wind-down from now, `wind_down_min` long, unless one runs already.
    public static func start(_ state: BedtimeState, settings: BedtimeSettings, now: Date, zone: Zone) -> Step {
        var step = step(state, settings: settings, now: now, zone: zone)
        guard step.state.windDown == nil else { return step }
        // Going to bed early: a wind-down by hand stands in for the next bedtime's reminder and
        // wind-down when that bedtime is less than `byHandCovers` away.
        let end = now.addingTimeInterval(Double(settings.windDownMinutes) * 60)
        let coming = bedtimes(after: now, settings: settings, zone: zone)
        let leadsTo = coming.first.flatMap { $0.timeIntervalSince(now) < byHandCovers ? $0 : nil }
        let run = WindDown(startedAt: now, endsAt: end, bedtimeAt: leadsTo, byHand: true)
        step.state.windDown = run
        if let leadsTo {
            step.state.woundFor = max(step.state.woundFor ?? .distantPast, leadsTo)
            step.state.remindedFor = max(step.state.remindedFor ?? .distantPast, leadsTo)
        }
        step.events.append(.windDownBegan(run))
        if run.endsAt <= now {
            // No length: the room goes to night at once and the wind-down is over.
            step.state.windDown = nil
            step.state.nightFrom = now
            step.events.append(.windDownEnded(run, stopped: false))
        }
        step.view = view(step.state, settings: settings, now: now, coming: coming)
        step.nextLook = nextLook(step.state, settings: settings, now: now, coming: coming)
        return step
    }

    /// `bedtime/stop`: ends the wind-down under way; before a bedtime whose reminder or wind-down
    /// window has begun, keeps that bedtime quiet.
    public static func stop(_ state: BedtimeState, settings: BedtimeSettings, now: Date, zone: Zone) -> Step {
        var step = step(state, settings: settings, now: now, zone: zone)
        if let run = step.state.windDown {
            step.state.windDown = nil
            step.events.append(.windDownEnded(run, stopped: true))
        }
        step.state.nightFrom = nil
        let coming = bedtimes(after: now, settings: settings, zone: zone)
        let window = Double(max(settings.reminderMinutes, settings.windDownMinutes)) * 60
        for bedtime in coming where now >= bedtime.addingTimeInterval(-window) {
            step.state.stoppedFor = bedtime
            step.state.woundFor = max(step.state.woundFor ?? .distantPast, bedtime)
            step.state.remindedFor = max(step.state.remindedFor ?? .distantPast, bedtime)
        }
        step.view = view(step.state, settings: settings, now: now, coming: coming)
        step.nextLook = nextLook(step.state, settings: settings, now: now, coming: coming)
        return step
    }

    static func view(_ state: BedtimeState, settings: BedtimeSettings, now: Date, coming: [Date]) -> BedtimeView {
        if let run = state.windDown {
            return BedtimeView(phase: .windingDown, nextAt: run.bedtimeAt ?? coming.first, endsAt: run.endsAt, windDown: run)
        }
        // A reminder shows until its bedtime, unless that bedtime's wind-down has already been and
        // gone (begun by hand, for instance) or it was stopped.
        if settings.reminderMinutes > 0,
           let bedtime = coming.first(where: { state.stoppedFor != $0 && state.woundFor != $0 && now >= reminderAt($0, settings) })
        {
            return BedtimeView(phase: .reminder, nextAt: bedtime, endsAt: nil)
        }
        return BedtimeView(phase: .idle, nextAt: coming.first, endsAt: nil)
    }

    static func nextLook(_ state: BedtimeState, settings: BedtimeSettings, now: Date, coming: [Date]) -> Date? {
        var instants: [Date] = []
        if let run = state.windDown { instants.append(run.endsAt) }
        for bedtime in coming { instants += [reminderAt(bedtime, settings), windDownAt(bedtime, settings), bedtime] }
        return instants.filter { $0 > now }.min()
    }
}

/// What the screen needs of bedtime: the wind-down's span while one runs (the sunset), and since
/// when the room has been put to night by one that ran to its end.
public struct BedtimeLight: Sendable, Hashable {
    public var windDown: Range<Date>?
    public var nightFrom: Date?

    public static let none = BedtimeLight(windDown: nil, nightFrom: nil)

    public init(windDown: Range<Date>?, nightFrom: Date?) {
        self.windDown = windDown
        self.nightFrom = nightFrom
    }

    public init(_ state: BedtimeState) {
        windDown = state.windDown.map { $0.startedAt..<max($0.endsAt, $0.startedAt.addingTimeInterval(1)) }
        nightFrom = state.nightFrom
    }

    /// 0...1 through the sunset at `now`; nil outside one.
    public func progress(at now: Date) -> Double? {
        guard let windDown else { return nil }
        return min(1, max(0, now.timeIntervalSince(windDown.lowerBound) / windDown.upperBound.timeIntervalSince(windDown.lowerBound)))
    }
}

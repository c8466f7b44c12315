import FoundationEssentials

/// `settings.kids` (SPEC §13): the OK-to-wake clock for a child who cannot read the time.
public struct KidsSettings: Sendable, Hashable {
    public var enabled = false
    /// The wake time of each morning, by its weekday.
    public var wake: [Weekday: AlarmTime] = Dictionary(
        uniqueKeysWithValues: Weekday.allCases.map { day in
            (day, AlarmTime(hour: 7, minute: day == .sat || day == .sun ? 30 : 0) ?? .midnight)
        })
    /// "Almost" (amber) this long before the wake time.
    public var warnMinutes = 15
    /// "You can get up" (green) this long from the wake time; then the normal face.
    public var okMinutes = 60
    /// The time of day shown small on the child's screens.
    public var showTime = true
    /// "Stay in bed" from this time on the evening before (or, when it is earlier in the day than
    /// the wake time, that morning).
    public var sleepFrom = AlarmTime(hour: 19, minute: 0) ?? .midnight

    public init() {}

    public static let fields: Set<String> = ["enabled", "wake", "warn_min", "ok_min", "show_time", "sleep_from"]
    public static let warnings = 0...120
    public static let oks = 1...240

    public var json: JSONValue {
        [
            "enabled": .bool(enabled),
            "wake": .object(Dictionary(uniqueKeysWithValues: wake.map { ($0.key.rawValue, JSONValue.string($0.value.description)) })),
            "warn_min": .number(Double(warnMinutes)), "ok_min": .number(Double(okMinutes)), "show_time": .bool(showTime),
            "sleep_from": .string(sleepFrom.description),
        ]
    }

    /// These settings with the members of `patch` laid over them; each is checked and named by its
    /// path (`kids.wake.mon`); on error nothing applies. `wake` may name some days only, or give
    /// one time for all.
    public func applying(_ patch: [String: JSONValue], path: String = "kids") throws(CommandError) -> KidsSettings {
        var next = self
        let fields = PatchFields(patch, path: path)
        try fields.allowOnly(Self.fields)
        if let enabled = try fields.bool("enabled") { next.enabled = enabled }
        if let show = try fields.bool("show_time") { next.showTime = show }
        if let minutes = try fields.int("warn_min", Self.warnings) { next.warnMinutes = minutes }
        if let minutes = try fields.int("ok_min", Self.oks) { next.okMinutes = minutes }
        if let text = try fields.string("sleep_from") {
            guard let time = AlarmTime(text) else { throw .invalidField(fields.name("sleep_from"), "must be HH:MM (00:00 to 23:59), not \"\(text)\"") }
            next.sleepFrom = time
        }
        if let value = patch["wake"] {
            switch value {
            case .string(let text):
                guard let time = AlarmTime(text) else { throw .invalidField(fields.name("wake"), "must be HH:MM (00:00 to 23:59), not \"\(text)\"") }
                for day in Weekday.allCases { next.wake[day] = time }
            case .object(let days):
                for (key, item) in days {
                    let field = "\(fields.name("wake")).\(key)"
                    guard let day = Weekday(rawValue: key) else {
                        throw .invalidField(field, "unknown day; expected one of \(Weekday.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    guard let text = item.stringValue, let time = AlarmTime(text) else {
                        throw .invalidField(field, "must be HH:MM (00:00 to 23:59), not \(item.serialized)")
                    }
                    next.wake[day] = time
                }
            default:
                throw .invalidField(fields.name("wake"), "must be HH:MM or an object of days such as {\"mon\":\"07:00\"}; not \(value.serialized)")
            }
        }
        return next
    }
}

/// What the kids' clock shows (retained `B/kids`).
public enum KidsState: String, Sendable, Hashable, CaseIterable {
    /// The normal face.
    case off
    /// "Stay in bed": a moon on deep blue, dim.
    case sleep
    /// "Almost": amber.
    case almost
    /// "You can get up": a sun on green.
    case ok
}

/// The kids' clock, pure: the state at an instant and when it changes next, from the wake time of
/// each morning resolved by the alarms' daylight-saving policy (a wake time in a spring-forward
/// gap comes the gap later; one that occurs twice, at its first).
public enum KidsClock {
    /// One morning: "stay in bed" from `sleep`, "almost" from `almost`, "you can get up" from
    /// `wake` until `end`.
    public struct Morning: Sendable, Hashable {
        public var sleep: Date
        public var almost: Date
        public var wake: Date
        public var end: Date
    }

    public struct View: Sendable, Hashable {
        public var state: KidsState
        public var nextChangeAt: Date?
        /// The morning the state belongs to (sleep, almost, ok) or comes next (off).
        public var morning: Morning?

        public init(state: KidsState, nextChangeAt: Date?, morning: Morning?) {
            self.state = state
            self.nextChangeAt = nextChangeAt
            self.morning = morning
        }

        public func json(iso: (Date) -> String) -> JSONValue {
            [
                "state": .string(state.rawValue), "next_change_at": nextChangeAt.map { .string(iso($0)) } ?? .null,
                "wake_at": morning.map { .string(iso($0.wake)) } ?? .null,
            ]
        }
    }

    /// The mornings whose local day is within `days` of `instant`'s, in order. A morning's sleep
    /// never begins before the previous morning's "you can get up" is over.
    public static func mornings(around instant: Date, settings: KidsSettings, zone: Zone, days: ClosedRange<Int64> = -2...3) -> [Morning] {
        let today = LocalTime(instant, in: zone).date.daysSinceEpoch
        var mornings: [Morning] = []
        for offset in days {
            let day = CivilDate(daysSinceEpoch: today + offset)
            guard let weekday = Weekday(calendarWeekday: day.weekday + 1), let time = settings.wake[weekday] else { continue }
            let wake = AlarmSchedule.occurrence(of: time, on: day, in: zone)
            let evening = settings.sleepFrom.minutesOfDay > time.minutesOfDay ? CivilDate(daysSinceEpoch: day.daysSinceEpoch - 1) : day
            // Nothing of a morning begins before the previous one's "you can get up" is over; a
            // wake time within it (23:59 then 00:00) has no morning of its own.
            let floor = mornings.last?.end ?? .distantPast
            guard wake >= floor else { continue }
            let almost = min(max(wake.addingTimeInterval(-Double(settings.warnMinutes) * 60), floor), wake)
            let sleep = min(max(AlarmSchedule.occurrence(of: settings.sleepFrom, on: evening, in: zone), floor), almost)
            mornings.append(Morning(sleep: sleep, almost: almost, wake: wake, end: wake.addingTimeInterval(Double(settings.okMinutes) * 60)))
        }
        return mornings
    }

    /// The state at `now` and the next instant it changes.
    public static func view(at now: Date, settings: KidsSettings, zone: Zone) -> View {
        guard settings.enabled else { return View(state: .off, nextChangeAt: nil, morning: nil) }
        var edges: [(instant: Date, state: KidsState, morning: Morning)] = []
        for morning in mornings(around: now, settings: settings, zone: zone) {
            edges += [(morning.sleep, .sleep, morning), (morning.almost, .almost, morning), (morning.wake, .ok, morning), (morning.end, .off, morning)]
        }
        // Edges at one instant: the later state of the same morning wins (a warning of 0 minutes
        // goes from "stay in bed" straight to "you can get up").
        let order: [KidsState: Int] = [.off: 0, .sleep: 1, .almost: 2, .ok: 3]
        edges.sort { ($0.instant, order[$0.state] ?? 0) < ($1.instant, order[$1.state] ?? 0) }
        let current = edges.last { $0.instant <= now }
        let state = current?.state ?? .off
        let next = edges.first { $0.instant > now && $0.state != state }
        let morning = state == .off ? edges.first { $0.instant > now && $0.state != .off }?.morning : current?.morning
        return View(state: state, nextChangeAt: next?.instant, morning: morning)
    }

    /// `kids_ok`: the morning whose "you can get up" has begun at `now` and was not announced yet
    /// (after `announced`, the wake time announced last). One that is over is not announced; a
    /// clock set back announces nothing twice.
    public static func okDue(at now: Date, settings: KidsSettings, zone: Zone, announced: Date?) -> Morning? {
        guard settings.enabled else { return nil }
        return mornings(around: now, settings: settings, zone: zone).first {
            $0.wake <= now && now < $0.end && $0.wake > (announced ?? .distantPast)
        }
    }
}

extension AlarmTime {
    var minutesOfDay: Int { hour * 60 + minute }
}

import FoundationEssentials

/// A day of the week as alarms name it (`mon` … `sun`).
public enum Weekday: String, Sendable, Hashable, CaseIterable, Comparable {
    case mon, tue, wed, thu, fri, sat, sun

    /// Foundation's weekday number (Sunday 1 … Saturday 7).
    public var calendarWeekday: Int {
        switch self {
        case .sun: 1
        case .mon: 2
        case .tue: 3
        case .wed: 4
        case .thu: 5
        case .fri: 6
        case .sat: 7
        }
    }

    public init?(calendarWeekday: Int) {
        guard let day = Self.allCases.first(where: { $0.calendarWeekday == calendarWeekday }) else { return nil }
        self = day
    }

    public static func < (a: Weekday, b: Weekday) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }
}

/// A wall-clock time of day, `HH:MM`.
public struct AlarmTime: Sendable, Hashable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int

    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.init(checkedHour: hour, minute: minute)
    }

    private init(checkedHour hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    public static let midnight = AlarmTime(checkedHour: 0, minute: 0)

    /// `07:30` or `7:30`; nothing else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(parts[0]), let minute = Int(parts[1])
        else { return nil }
        self.init(hour: hour, minute: minute)
    }

    public var description: String { (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)" }
}

/// An alarm (SPEC §3). Times are local to `clock.timezone`.
public struct Alarm: Sendable, Hashable, Identifiable {
    public static let snoozeChoices: Set<Int> = [5, 7, 8, 9, 10, 15, 20]
    public static let maximumCount = 100
    public static let maximumLabelLength = 64

    public var id: String
    public var time: AlarmTime
    /// Empty: a one-shot alarm.
    public var days: Set<Weekday>
    public var label: String
    public var enabled: Bool
    public var sound: String
    public var volume: Int
    public var snoozeMinutes: Int
    public var fadeInSeconds: Int
    public var ringTimeoutMinutes: Int
    /// The local date (`YYYY-MM-DD`) of an occurrence to skip, or nil.
    public var skipNext: String?
    /// Keeps quiet on public holidays and days off (SPEC §12).
    public var skipHolidays: Bool
    /// Still ringing this long, the alarm gets firm: `escalateSound` at volume 100 (SPEC §12); 0: never.
    public var escalateAfterSeconds: Int
    /// The tone it escalates to; empty: its own `sound`, louder.
    public var escalateSound: String
    /// Minutes of sunrise before the ring (SPEC §12), 0-60; 0: none.
    public var sunriseMinutes: Int
    /// The sunrise also drives `wake.lights`.
    public var lights: Bool
    /// After its dismiss, the morning briefing is spoken (SPEC §16).
    public var briefing: Bool
    /// Rings earlier when snow, ice or rain is forecast for its morning (SPEC §17).
    public var earlierIf: EarlierIf?
    /// Follows a calendar feed's first event of the day (SPEC §17).
    public var calendar: AlarmCalendar?

    public init(
        id: String, time: AlarmTime, days: Set<Weekday> = [], label: String = "Alarm", enabled: Bool = true,
        sound: String, volume: Int = 80, snoozeMinutes: Int = 9, fadeInSeconds: Int = 30, ringTimeoutMinutes: Int = 10,
        skipNext: String? = nil, skipHolidays: Bool = false, escalateAfterSeconds: Int = 0, escalateSound: String = "",
        sunriseMinutes: Int = 0, lights: Bool = false, briefing: Bool = false, earlierIf: EarlierIf? = nil, calendar: AlarmCalendar? = nil
    ) {
        self.id = id
        self.time = time
        self.days = days
        self.label = label
        self.enabled = enabled
        self.sound = sound
        self.volume = volume
        self.snoozeMinutes = snoozeMinutes
        self.fadeInSeconds = fadeInSeconds
        self.ringTimeoutMinutes = ringTimeoutMinutes
        self.skipNext = skipNext
        self.skipHolidays = skipHolidays
        self.escalateAfterSeconds = escalateAfterSeconds
        self.escalateSound = escalateSound
        self.sunriseMinutes = sunriseMinutes
        self.lights = lights
        self.briefing = briefing
        self.earlierIf = earlierIf
        self.calendar = calendar
    }

    public var isOneShot: Bool { days.isEmpty }

    /// The alarm object of SPEC §3, with its next fire time (ISO with offset) when it has one.
    public func json(nextFire: String?) -> JSONValue {
        [
            "id": .string(id), "time": .string(time.description), "days": .array(days.sorted().map { .string($0.rawValue) }),
            "label": .string(label), "enabled": .bool(enabled), "sound": .string(sound),
            "volume": .number(Double(volume)), "snooze_min": .number(Double(snoozeMinutes)),
            "fade_in_s": .number(Double(fadeInSeconds)), "ring_timeout_min": .number(Double(ringTimeoutMinutes)),
            "skip_next": skipNext.map { .string($0) } ?? .null, "skip_holidays": .bool(skipHolidays), "next_fire": nextFire.map { .string($0) } ?? .null,
            "escalate_after_s": .number(Double(escalateAfterSeconds)), "escalate_sound": escalateSound.isEmpty ? .null : .string(escalateSound),
            "sunrise_min": .number(Double(sunriseMinutes)), "lights": .bool(lights), "briefing": .bool(briefing),
            "earlier_if": earlierIf?.json ?? .null, "calendar": calendar?.json ?? .null,
        ]
    }
}

/// When alarms fire: the next occurrence, with SPEC §3's daylight-saving policy.
public enum AlarmSchedule {
    /// The first occurrence of `alarm` strictly after `instant` that rings (not skipped by
    /// `skip_next` or `daysOff`), or nil when it is disabled.
    ///
    /// A time that does not exist that day (inside a spring-forward gap) fires that day shifted
    /// forward by the gap (02:30 → 03:30 in Europe/Berlin); a time that occurs twice fires once,
    /// at its first occurrence. Never more than 8 ringing days ahead (a vacation or a run of days
    /// off makes the look longer, by the days it skips, up to two years).
    public static func nextFire(of alarm: Alarm, after instant: Date, in zone: Zone, daysOff: DaysOff = .none) -> Date? {
        occurrences(of: alarm, after: instant, in: zone, daysOff: daysOff).first { $0.skip == nil }?.instant
    }

    /// The next ringing occurrence of `alarm` after `instant`, with why it is not at the alarm's
    /// own time (`B/alarm/next`, the face's alarm list).
    public static func nextPlan(of alarm: Alarm, after instant: Date, in zone: Zone, daysOff: DaysOff = .none) -> PlannedOccurrence? {
        guard let fire = nextFire(of: alarm, after: instant, in: zone, daysOff: daysOff) else { return nil }
        // The ring is on its own day, or on the day after when a calendar or the weather moved a
        // time just after midnight to before it.
        let day = LocalTime(fire, in: zone).date
        for offset: Int64 in [0, 1] {
            let planned = daysOff.plan(alarm, on: CivilDate(daysSinceEpoch: day.daysSinceEpoch + offset), in: zone)
            if planned.instant == fire && planned.skip == nil { return planned }
        }
        return nil
    }

    /// The next occurrence of `alarm` after `instant` that is skipped, and why (the face's alarm
    /// list: "skips Mon 25 Dec, Christmas Day"), looking at most `days` ahead.
    public static func nextSkip(of alarm: Alarm, after instant: Date, in zone: Zone, daysOff: DaysOff, days: Int = 366) -> (instant: Date, skip: Skip)? {
        guard let first = occurrences(of: alarm, after: instant, in: zone, daysOff: daysOff, days: days).first(where: { $0.skip != nil }),
              let skip = first.skip
        else { return nil }
        return (first.instant, skip)
    }

    /// The occurrences of `alarm` after `instant`, in order, each with why it is skipped (nil: it
    /// rings): up to the first that rings, looking 8 days past the last skipped one (two years at
    /// most); or, with `days`, every one in that many days, none later than `until`.
    static func occurrences(
        of alarm: Alarm, after instant: Date, in zone: Zone, daysOff: DaysOff, days: Int? = nil, until: Date? = nil
    ) -> [(instant: Date, skip: Skip?)] {
        guard alarm.enabled else { return [] }
        let today = LocalTime(instant, in: zone).date.daysSinceEpoch
        var found: [(instant: Date, skip: Skip?)] = []
        var horizon = Int64(days ?? 8)
        var offset = Int64(0)
        while offset <= horizon, offset <= 731 {
            defer { offset += 1 }
            let day = CivilDate(daysSinceEpoch: today + offset)
            if !alarm.days.isEmpty {
                guard let weekday = Weekday(calendarWeekday: day.weekday + 1), alarm.days.contains(weekday) else { continue }
            }
            let planned = daysOff.plan(alarm, on: day, in: zone)
            let fire = planned.instant, skip = planned.skip
            guard fire > instant else { continue }
            if let until, fire > until { break }
            found.append((fire, skip))
            if days == nil {
                if skip == nil { break }
                horizon = max(horizon, offset + 8)
            }
        }
        return found
    }

    /// What the scheduler does about an occurrence that has come.
    public enum Occurrence: Sendable, Hashable {
        case ring(Date)
        /// Passed more than the grace period ago (the node was down, or the clock jumped): an
        /// `alarm_missed` event, no sound.
        case missed(Date)
        /// Kept quiet (a vacation, a holiday, a day off, `skip_next`): an `alarm_skipped` event.
        case skipped(Date, Skip)

        public var instant: Date {
            switch self {
            case .ring(let date), .missed(let date), .skipped(let date, _): date
            }
        }
    }

    /// The occurrences of `alarm` that have come by `now` and were not handled yet (after
    /// `lastHandled`, the last one rung, skipped or reported; nil: look back at most 8 days from
    /// `now`). The newest ringing one rings if it is at most `grace` old; every other one is missed.
    /// A skipped one is reported when it is at most `grace` old (older ones pass quietly). An
    /// occurrence at or before `lastHandled` never comes again, so a wall clock set back rings
    /// nothing twice.
    public static func due(_ alarm: Alarm, lastHandled: Date?, now: Date, grace: TimeInterval, in zone: Zone, daysOff: DaysOff = .none) -> [Occurrence] {
        let horizon = now.addingTimeInterval(-8 * 86_400)
        let cursor = max(lastHandled ?? horizon, horizon)
        var passed: [Occurrence] = []
        for (instant, skip) in occurrences(of: alarm, after: cursor, in: zone, daysOff: daysOff, days: 9, until: now) {
            guard passed.count < 16 else { break }
            if let skip {
                if now.timeIntervalSince(instant) <= grace { passed.append(.skipped(instant, skip)) }
            } else {
                passed.append(.missed(instant))
            }
        }
        // The newest that would have rung rings when it is recent enough.
        if let last = passed.lastIndex(where: { if case .missed = $0 { true } else { false } }),
           now.timeIntervalSince(passed[last].instant) <= grace {
            passed[last] = .ring(passed[last].instant)
        }
        return passed
    }

    /// `YYYY-MM-DD` of the local date of `instant`.
    public static func localDate(of instant: Date, in zone: Zone) -> String {
        LocalTime(instant, in: zone).date.iso
    }

    /// HH:MM on a local day, resolved by the daylight-saving policy, from the zone's offsets
    /// around it (a time at the very start of a gap, Pacific/Chatham's 02:45, included).
    public static func occurrence(of time: AlarmTime, on day: CivilDate, in zone: Zone) -> Date {
        // The wall time read as if it were UTC; subtracting an offset gives a real instant.
        let wall = Date(timeIntervalSince1970: Double(day.daysSinceEpoch * 86_400 + Int64(time.hour * 3600 + time.minute * 60)))
        let before = zone.secondsFromGMT(for: wall.addingTimeInterval(-86_400))
        let after = zone.secondsFromGMT(for: wall.addingTimeInterval(86_400))
        // Each offset that really holds at the instant it gives is an occurrence; the earliest is
        // the first of a repeated time.
        let occurrences = Set([before, after]).map { wall.addingTimeInterval(-Double($0)) }
            .filter { zone.secondsFromGMT(for: $0) == Int(wall.timeIntervalSince($0)) }
        if let first = occurrences.min() { return first }
        // None: the time falls in a spring-forward gap. With the offset from before the change it
        // lands the length of the gap later on the new clock (02:30 → 03:30).
        return wall.addingTimeInterval(-Double(before))
    }
}

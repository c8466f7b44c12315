/// Why an occurrence of an alarm does not ring (SPEC §12): the `reason` of `alarm_skipped`.
public enum SkipReason: String, Sendable, Hashable {
    case holiday
    case dayOff = "day_off"
    case vacation
    case skipNext = "skip_next"
    /// A calendar alarm on a day without an event, with `no_event: skip` (SPEC §17).
    case noEvent = "no_event"
}

/// An occurrence kept quiet, and why; a public holiday brings its names.
public struct Skip: Sendable, Hashable {
    public var reason: SkipReason
    public var holiday: Holiday?
    /// A calendar's day off: the all-day event's title.
    public var title: String?

    public init(reason: SkipReason, holiday: Holiday? = nil, title: String? = nil) {
        self.reason = reason
        self.holiday = holiday
        self.title = title
    }

    /// The holiday's name in `language`, or the calendar event's title; nil for other reasons.
    public func name(_ language: Language) -> String? { holiday?.name(language) ?? title }
}

/// The days alarms keep quiet (SPEC §12): a vacation pauses every alarm through its last day; an
/// alarm with `skip_holidays` also keeps quiet on the public holidays of `wake.holidays` and on the
/// days off of `settings.wake.days_off`.
public struct DaysOff: Sendable, Hashable {
    /// At most this many days off (`settings.wake.days_off`).
    public static let maximumCount = 400

    public var calendar: HolidayCalendar?
    public var dates: Set<CivilDate>
    /// The vacation's last day (inclusive), nil when there is none.
    public var vacationUntil: CivilDate?
    /// The holidays of `years`, by day (looked up without rules; other years are worked out).
    private let known: [Int64: Holiday]
    private let years: ClosedRange<Int>?
    /// The calendars' coming days (SPEC §17): calendar alarms follow them; their all-day events
    /// named in `calendarDaysOff` are days off.
    public var agenda = Agenda()
    /// `settings.wake.calendar_days_off`: keywords of all-day events that are days off.
    public var calendarDaysOff: [String] = []
    /// The weather `earlier_if` reads (nil: none known; the alarms ring at their own time).
    public var weather: WeatherReport?
    /// What `earlier_if` decided for each alarm's next occurrence (from `AlarmState`).
    public var earlier: [String: EarlierDecision] = [:]

    /// No days off.
    public static let none = DaysOff()

    public init(calendar: HolidayCalendar? = nil, dates: Set<CivilDate> = [], vacationUntil: CivilDate? = nil, years: ClosedRange<Int>? = nil) {
        self.calendar = calendar
        self.dates = dates
        self.vacationUntil = vacationUntil
        self.years = years
        var known: [Int64: Holiday] = [:]
        if let calendar, let years {
            for year in years {
                for holiday in calendar.holidays(in: year) { known[holiday.date.daysSinceEpoch] = holiday }
            }
        }
        self.known = known
    }

    /// The public holiday on `day`, if any.
    public func holiday(on day: CivilDate) -> Holiday? {
        guard let calendar else { return nil }
        if years?.contains(day.year) == true { return known[day.daysSinceEpoch] }
        return calendar.holidays(in: day.year).first { $0.date == day }
    }

    /// Why `alarm` keeps quiet on `day`, nil when it rings. A skipped next occurrence comes first,
    /// then a vacation, a holiday, a day off.
    public func skip(_ alarm: Alarm, on day: CivilDate) -> Skip? {
        if alarm.skipNext == day.iso { return Skip(reason: .skipNext) }
        if let vacationUntil, day.daysSinceEpoch <= vacationUntil.daysSinceEpoch { return Skip(reason: .vacation) }
        guard alarm.skipHolidays else { return nil }
        if let holiday = holiday(on: day) { return Skip(reason: .holiday, holiday: holiday) }
        if dates.contains(day) { return Skip(reason: .dayOff) }
        return nil
    }

    /// `B/holidays`: the public holidays and days off from `today` for a year (through the day
    /// before its date next year; one entry a date, a holiday winning over a day off on the same
    /// date), names in `language`, and the vacation.
    public func json(from today: CivilDate, language: Language) -> JSONValue {
        let first = today.daysSinceEpoch
        let sameDay = min(today.day, CivilDate.daysIn(month: today.month, year: today.year + 1))
        let last = CivilDate(year: today.year + 1, month: today.month, day: sameDay).daysSinceEpoch - 1
        var days: [Int64: JSONValue] = [:]
        for date in dates where (first...last).contains(date.daysSinceEpoch) {
            days[date.daysSinceEpoch] = ["date": .string(date.iso), "kind": "day_off", "name": nil]
        }
        if let calendar {
            for year in today.year...(today.year + 1) {
                for holiday in (years?.contains(year) == true ? known.values.filter { $0.date.year == year } : calendar.holidays(in: year))
                where (first...last).contains(holiday.date.daysSinceEpoch) {
                    days[holiday.date.daysSinceEpoch] = ["date": .string(holiday.date.iso), "kind": "holiday", "name": .string(holiday.name(language))]
                }
            }
        }
        return [
            "country": calendar.map { .string($0.country) } ?? .null,
            "region": calendar.map { .string($0.region) } ?? .null,
            "vacation_until": vacationUntil.map { .string($0.iso) } ?? .null,
            "days": .array(days.keys.sorted().compactMap { days[$0] }),
        ]
    }

    public static func == (a: DaysOff, b: DaysOff) -> Bool {
        a.calendar == b.calendar && a.dates == b.dates && a.vacationUntil == b.vacationUntil && a.agenda == b.agenda
            && a.calendarDaysOff == b.calendarDaysOff && a.weather == b.weather && a.earlier == b.earlier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(calendar)
        hasher.combine(dates)
        hasher.combine(vacationUntil)
        hasher.combine(agenda)
        hasher.combine(calendarDaysOff)
    }
}

extension CivilDate {
    /// `YYYY-MM-DD`, a real date; nil for anything else.
    public init?(iso text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }
}

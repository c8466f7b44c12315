/// Public holidays from the node's own rules (SPEC §12): fixed dates, days counted from Easter,
/// the nth weekday of a month, the substitute days a country gives when a holiday falls on a
/// weekend, and one-off holidays. The reference is the Python `holidays` package (public
/// holidays only, its default category); the suite compares every country and region below with
/// it for every year 2000-2050, date by date.
public struct HolidayCalendar: Sendable, Hashable {
    /// ISO 3166 code, upper case (`DE`).
    public let country: String
    /// The region's code without the country (`BY`, `SCT`), empty for the national holidays.
    public let region: String

    /// The countries the node knows and their regions with holidays of their own.
    public static let supported: [(country: String, regions: [String])] = countries.map { ($0.code, $0.regions.keys.sorted()) }

    /// nil when the country or the region is not supported. `region` may carry the country's
    /// prefix (`DE-BY`, `GB-SCT`).
    public init?(country: String, region: String = "") {
        let code = country.uppercased()
        guard let rules = Self.countries.first(where: { $0.code == code }) else { return nil }
        var region = region.uppercased()
        if region.hasPrefix(code + "-") { region.removeFirst(code.count + 1) }
        guard region.isEmpty || rules.regions[region] != nil else { return nil }
        self.country = code
        self.region = region
    }

    /// The year's holidays in date order, one a date (two on one date share it, names joined).
    public func holidays(in year: Int) -> [Holiday] {
        guard let rules = Self.countries.first(where: { $0.code == country }) else { return [] }
        let list = rules.common + (region.isEmpty ? rules.national : rules.regions[region] ?? [])
        var byDay: [Int64: Holiday] = [:]
        func add(_ date: CivilDate, _ name: HolidayName) {
            guard date.year == year else { return }
            let key = date.daysSinceEpoch
            if let existing = byDay[key] {
                if !existing.names.contains(name) { byDay[key]?.names.append(name) }
            } else {
                byDay[key] = Holiday(date: date, names: [name])
            }
        }
        // A substitute day can fall in the year before its holiday (1 January on a Saturday,
        // observed on 31 December), so the neighbouring years' rules are looked at too.
        for ruleYear in (year - 1)...(year + 1) {
            for rule in list where rule.applies(in: ruleYear) {
                guard let date = rule.day.date(in: ruleYear) else { continue }
                switch rule.observed?.move(date) {
                case nil, .keep?:
                    add(date, rule.name)
                case .drop?:
                    continue
                case .by(let days)?:
                    add(date, rule.name)
                    add(CivilDate(daysSinceEpoch: date.daysSinceEpoch + Int64(days)), rule.name.observed)
                }
            }
        }
        return byDay.keys.sorted().compactMap { byDay[$0] }
    }
}

/// One day's holiday: its date and its names (two holidays can share a date).
public struct Holiday: Sendable, Hashable {
    public var date: CivilDate
    public var names: [HolidayName]

    /// The names in `language`, joined.
    public func name(_ language: Language) -> String {
        names.map { $0.text(language) }.joined(separator: ", ")
    }
}

/// A holiday's name in the node's two languages.
public struct HolidayName: Sendable, Hashable {
    public let en: String
    public let de: String

    public func text(_ language: Language) -> String {
        switch language {
        case .en: en
        case .de: de
        }
    }

    /// The substitute day's name.
    var observed: HolidayName { HolidayName(en: en + " (observed)", de: de + " (Ersatztag)") }
}

// MARK: - Rules

/// How a holiday's date is found in a year.
enum HolidayDay: Sendable, Hashable {
    /// month, day
    case fixed(Int, Int)
    /// days after Easter Sunday (Gregorian); negative before it
    case easter(Int)
    /// the nth `weekday` (0 = Sunday) of `month`, -1 for the last, then `plus` days
    case nth(Int, weekday: Int, month: Int, plus: Int)
    /// the `weekday` on or before a date (month, day)
    case onOrBefore(weekday: Int, month: Int, day: Int)
    /// a date that some years move: the usual rule, and the years it differs
    indirect case moved(HolidayDay, exceptions: [Int: CivilDate])
    /// the Netherlands' King's (Queen's) Day: the date, a day earlier when it is a Sunday
    case saturdayIfSunday(month: Int, day: Int)
    /// Glarus's Näfelser Fahrt: the first Thursday of April, a week later when that is Maundy Thursday
    case naefels

    func date(in year: Int) -> CivilDate? {
        switch self {
        case .fixed(let month, let day):
            return CivilDate(year: year, month: month, day: day)
        case .easter(let offset):
            return CivilDate(daysSinceEpoch: Self.easterSunday(year).daysSinceEpoch + Int64(offset))
        case .nth(let n, let weekday, let month, let plus):
            return CivilDate(daysSinceEpoch: Self.nthWeekday(n, weekday, month, year).daysSinceEpoch + Int64(plus))
        case .onOrBefore(let weekday, let month, let day):
            let date = CivilDate(year: year, month: month, day: day)
            let back = (date.weekday - weekday + 7) % 7
            return CivilDate(daysSinceEpoch: date.daysSinceEpoch - Int64(back))
        case .moved(let normal, let exceptions):
            return exceptions[year] ?? normal.date(in: year)
        case .saturdayIfSunday(let month, let day):
            let date = CivilDate(year: year, month: month, day: day)
            return date.weekday == 0 ? CivilDate(daysSinceEpoch: date.daysSinceEpoch - 1) : date
        case .naefels:
            let first = Self.nthWeekday(1, 4, 4, year)
            let maundy = Self.easterSunday(year).daysSinceEpoch - 3
            return first.daysSinceEpoch == maundy ? CivilDate(daysSinceEpoch: maundy + 7) : first
        }
    }

    /// Easter Sunday of the Gregorian calendar (the anonymous Gregorian algorithm).
    static func easterSunday(_ year: Int) -> CivilDate {
        let a = year % 19, b = year / 100, c = year % 100
        let d = b / 4, e = b % 4, f = (b + 8) / 25, g = (b - f + 1) / 3
        let h = (19 * a + b - d - g + 15) % 30
        let i = c / 4, k = c % 4
        let l = (32 + 2 * e + 2 * i - h - k) % 7
        let m = (a + 11 * h + 22 * l) / 451
        let month = (h + l - 7 * m + 114) / 31
        let day = (h + l - 7 * m + 114) % 31 + 1
        return CivilDate(year: year, month: month, day: day)
    }

    /// The nth `weekday` (0 = Sunday) of a month; n = -1 is the last.
    static func nthWeekday(_ n: Int, _ weekday: Int, _ month: Int, _ year: Int) -> CivilDate {
        if n > 0 {
            let first = CivilDate(year: year, month: month, day: 1)
            let forward = (weekday - first.weekday + 7) % 7 + (n - 1) * 7
            return CivilDate(daysSinceEpoch: first.daysSinceEpoch + Int64(forward))
        }
        let last = CivilDate(year: year, month: month, day: CivilDate.daysIn(month: month, year: year))
        let back = (last.weekday - weekday + 7) % 7 + (-n - 1) * 7
        return CivilDate(daysSinceEpoch: last.daysSinceEpoch - Int64(back))
    }
}

/// What a country does with a holiday on a given weekday.
struct Substitute: Sendable, Hashable {
    enum Move: Sendable, Hashable {
        /// no substitute
        case keep
        /// an extra day off this many days later (earlier when negative)
        case by(Int)
        /// the day is not a holiday that year
        case drop
    }

    /// Indexed by weekday, 0 = Sunday.
    let moves: [Move]

    func move(_ date: CivilDate) -> Move { moves[date.weekday] }

    init(sun: Move = .keep, mon: Move = .keep, tue: Move = .keep, wed: Move = .keep,
         thu: Move = .keep, fri: Move = .keep, sat: Move = .keep) {
        moves = [sun, mon, tue, wed, thu, fri, sat]
    }

    /// Saturday and Sunday to the next Monday.
    static let nextMonday = Substitute(sun: .by(1), sat: .by(2))
    /// Saturday to Monday, Sunday to Tuesday (for two holidays in a row).
    static let nextMondayTuesday = Substitute(sun: .by(2), sat: .by(2))
    /// Saturday to the Friday before, Sunday to the Monday after.
    static let nearestWeekday = Substitute(sun: .by(1), sat: .by(-1))
    /// Scotland's 2 January: after a weekend New Year or a Monday one.
    static let scottishSecond = Substitute(sun: .by(2), mon: .by(1), sat: .by(2))
    /// Kept only on a Monday.
    static let mondayOnly = Substitute(sun: .drop, tue: .drop, wed: .drop, thu: .drop, fri: .drop, sat: .drop)
    /// Not kept on a Tuesday or a Saturday.
    static let notTuesdayOrSaturday = Substitute(tue: .drop, sat: .drop)
}

struct HolidayRule: Sendable, Hashable {
    let name: HolidayName
    let day: HolidayDay
    var years: ClosedRange<Int> = Int.min...Int.max
    /// kept only in years divisible by this
    var every = 1
    var observed: Substitute?

    func applies(in year: Int) -> Bool { years.contains(year) && year % every == 0 }

    func from(_ year: Int) -> HolidayRule { var rule = self; rule.years = year...Int.max; return rule }
    func only(_ years: ClosedRange<Int>) -> HolidayRule { var rule = self; rule.years = years; return rule }
    func every(_ years: Int) -> HolidayRule { var rule = self; rule.every = years; return rule }
    func substitute(_ how: Substitute) -> HolidayRule { var rule = self; rule.observed = how; return rule }
}

/// A country's rules: `common` everywhere, `national` when no region is chosen, and each
/// region's own (added to `common`).
struct CountryRules: Sendable {
    let code: String
    let common: [HolidayRule]
    var national: [HolidayRule] = []
    var regions: [String: [HolidayRule]] = [:]
}

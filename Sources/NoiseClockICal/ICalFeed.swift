import CICal

/// Why a feed cannot be read at all (single events that cannot be read are skipped and counted).
public struct ICalError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What a feed holds in a window: its occurrences sorted by start (timed) or date (all-day, at
/// that day's midnight in the window's zone), the events skipped because they cannot be read, and
/// warnings (a TZID no zone was found for).
public struct CalendarExpansion: Sendable {
    public var occurrences: [CalendarOccurrence]
    public var skipped: Int
    public var warnings: [String]
}

/// An iCalendar feed (RFC 5545) parsed by libical and expanded into the occurrences of a window.
/// libical keeps global state (its built-in zones, its error state): one expansion at a time in a
/// process (the `noiseclock-calendar` helper runs one).
public enum ICalFeed {
    /// The most a feed may hold (SPEC §17: 20 MB for a feed).
    public static let maximumBytes = 20 * 1024 * 1024
    /// The longest window, in days.
    public static let maximumDays = 1100
    /// The most occurrences one event gives in a window, and the most steps its rules take to reach
    /// the window's end: a rule every minute from the year 2000 stops there instead of running on.
    public static let maximumOccurrencesPerEvent = 20_000
    public static let maximumStepsPerRule = 2_000_000

    /// True when `name` is a zone the system's zoneinfo has (libical's built-in zones read it).
    public static func knowsZone(_ name: String) -> Bool {
        prepare()
        return !name.isEmpty && icaltimezone_get_builtin_timezone(name) != nil
    }

    /// The occurrences of `bytes` (an iCalendar text) in the `days` days from `from` 00:00 in
    /// `zone` (an IANA name): timed ones starting in [from 00:00, from+days 00:00), all-day ones
    /// whose [date, end date) overlaps [from, from+days). Floating times are read in `zone`.
    public static func expand(_ bytes: [UInt8], from: CalendarDate, days: Int, zone: String) throws(ICalError)
        -> CalendarExpansion
    {
        guard bytes.count <= maximumBytes else { throw ICalError("the feed is larger than 20 MB (\(bytes.count) bytes)") }
        guard (1...maximumDays).contains(days) else { throw ICalError("days must be 1 to \(maximumDays), not \(days)") }
        guard isCalendar(bytes) else { throw ICalError("not an iCalendar feed (no BEGIN:VCALENDAR)") }
        prepare()
        guard let windowZone = icaltimezone_get_builtin_timezone(zone) else { throw ICalError("unknown time zone \(zone)") }
        let root = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text -> OpaquePointer? in
                // libical wants a C string: the feed's bytes up to its first NUL, then a NUL.
                var copy = Array(text.prefix { $0 != 0 })
                copy.append(0)
                return icalparser_parse_string(copy)
            }
        }
        guard let root else { throw ICalError("not an iCalendar feed (libical found no calendar in it)") }
        let feed = ParsedFeed(root: root, zoneName: zone, windowZone: windowZone)
        let calendars = feed.calendars
        guard !calendars.isEmpty else { throw ICalError("not an iCalendar feed (no VCALENDAR component)") }
        let window = Window(from: from, days: days, zone: windowZone)
        var expander = Expander(feed: feed, window: window)
        for calendar in calendars { expander.collect(calendar) }
        var occurrences = expander.expandAll()
        occurrences.sort { a, b in
            let (ka, kb) = (window.sortKey(a), window.sortKey(b))
            if ka != kb { return ka < kb }
            if a.uid != b.uid { return a.uid < b.uid }
            return a.summary < b.summary
        }
        return CalendarExpansion(occurrences: occurrences, skipped: expander.skipped, warnings: feed.warnings)
    }

    /// A feed begins (after a byte order mark and blank lines) with BEGIN:VCALENDAR, in any case.
    static func isCalendar(_ bytes: [UInt8]) -> Bool {
        var index = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[index]) { index += 1 }
        let head = bytes[index...].prefix(15).map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
        return head.elementsEqual("BEGIN:VCALENDAR".utf8)
    }

    /// libical's errors are reported, never fatal (a feed is input, not a programming error).
    private static func prepare() {
        icalerror_set_errors_are_fatal(0)
        icalerror_clear_errno()
    }
}

/// The window: its zone, its first and last instants and days.
struct Window {
    let zone: OpaquePointer
    let firstDay: Int, endDay: Int
    let start: Int64, end: Int64

    init(from: CalendarDate, days: Int, zone: OpaquePointer) {
        self.zone = zone
        firstDay = from.daysSinceEpoch
        endDay = firstDay + days
        start = Window.midnight(of: from, in: zone)
        end = Window.midnight(of: from.adding(days: days), in: zone)
    }

    func contains(_ timing: CalendarOccurrence.Timing) -> Bool {
        switch timing {
        case .timed(let first, _): return first >= start && first < end
        case .allDay(let date, let endDate): return date.daysSinceEpoch < endDay && endDate.daysSinceEpoch > firstDay
        }
    }

    func sortKey(_ occurrence: CalendarOccurrence) -> Int64 {
        switch occurrence.timing {
        case .timed(let first, _): return first
        case .allDay(let date, _): return Window.midnight(of: date, in: zone)
        }
    }

    static func midnight(of date: CalendarDate, in zone: OpaquePointer) -> Int64 {
        var time = icaltime_null_time()
        time.year = Int32(date.year)
        time.month = Int32(date.month)
        time.day = Int32(date.day)
        return ReadTime.instant(of: time, in: zone)
    }
}

/// The VCALENDAR libical built (freed with this) and its zones, each TZID resolved once: the feed's
/// VTIMEZONE, else an IANA name, else a Windows name, else the window's zone (with a warning).
final class ParsedFeed {
    let root: OpaquePointer
    let zoneName: String
    let windowZone: OpaquePointer
    let utc: OpaquePointer
    private(set) var warnings: [String] = []
    private var zones: [String: OpaquePointer] = [:]

    init(root: OpaquePointer, zoneName: String, windowZone: OpaquePointer) {
        self.root = root
        self.zoneName = zoneName
        self.windowZone = windowZone
        // libical's UTC zone is a static one; it is never nil.
        utc = icaltimezone_get_utc_timezone() ?? windowZone
    }

    deinit { icalcomponent_free(root) }

    /// The VCALENDAR components: the root, or each one of several calendars one after another.
    var calendars: [OpaquePointer] {
        if icalcomponent_isa(root) == ICAL_VCALENDAR_COMPONENT { return [root] }
        var found: [OpaquePointer] = []
        var child = icalcomponent_get_first_component(root, ICAL_VCALENDAR_COMPONENT)
        while let calendar = child {
            found.append(calendar)
            child = icalcomponent_get_next_component(root, ICAL_VCALENDAR_COMPONENT)
        }
        return found
    }

    func zone(named tzid: String) -> OpaquePointer {
        if let known = zones[tzid] { return known }
        var found: OpaquePointer?
        for calendar in calendars where found == nil { found = icalcomponent_get_timezone(calendar, tzid) }
        if found == nil { found = icaltimezone_get_builtin_timezone(tzid) }
        if found == nil, let iana = WindowsZones.iana(tzid) { found = icaltimezone_get_builtin_timezone(iana) }
        if found == nil { warnings.append("unknown TZID \"\(tzid)\": its times are read in \(zoneName)") }
        let zone = found ?? windowZone
        zones[tzid] = zone
        return zone
    }
}

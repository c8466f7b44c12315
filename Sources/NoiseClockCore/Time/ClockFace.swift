import FoundationEssentials

/// What `B/clock` carries at one instant.
public struct ClockState: Sendable, Hashable {
    public var time: String
    public var date: String
    public var iso: String
    public var timezone: String
    public var timeFormat: TimeFormat
    public var showSeconds: Bool

    public var json: JSONValue {
        [
            "time": .string(time), "date": .string(date), "iso": .string(iso), "timezone": .string(timezone),
            "time_format": .string(timeFormat.rawValue), "show_seconds": .bool(showSeconds),
        ]
    }
}

/// Formats instants for the clock display under one set of settings. A value type: build a new
/// one when the settings change.
public struct ClockFace: Sendable {
    public let settings: ClockSettings
    public let timeZone: Zone
    private let names: (months: [String], weekdays: [String])
    private let dayWithPeriod: Bool

    /// `systemZone` stands in for an empty `settings.timezone`.
    public init(settings: ClockSettings, systemZone: Zone = .system) {
        self.settings = settings
        timeZone = settings.zone(system: systemZone)
        // The locale was validated; an unknown one (impossible) falls back to English.
        let locale = settings.dateLocale
        names = DateNames.names(for: locale) ?? DateNames.names(for: "en") ?? ([], [])
        dayWithPeriod = DateNames.writesDayWithPeriod(locale)
    }

    public func state(at instant: Date) -> ClockState {
        ClockState(
            time: time(at: instant), date: date(at: instant), iso: ISOTime.string(instant, in: timeZone),
            timezone: timeZone.identifier, timeFormat: settings.timeFormat, showSeconds: settings.showSeconds)
    }

    /// "d MMMM EEE": `7 September Mon`, the names in `settings.dateLocale`, the day with its
    /// period where its readers write one (`7. September Mo.`).
    public func date(at instant: Date) -> String {
        let day = LocalTime(instant, in: timeZone).date
        let month = names.months.indices.contains(day.month - 1) ? names.months[day.month - 1] : "\(day.month)"
        let weekday = names.weekdays.indices.contains(day.weekday) ? names.weekdays[day.weekday] : ""
        return "\(day.day)\(dayWithPeriod ? "." : "") \(month) \(weekday)"
    }

    /// "07:05" or "7:05 AM"; with seconds "07:05:09" or "7:05:09 AM".
    public func time(at instant: Date) -> String {
        let local = LocalTime(instant, in: timeZone)
        let (hour, minute, second) = (local.hour, local.minute, local.second)
        let seconds = settings.showSeconds ? ":" + twoDigits(second) : ""
        switch settings.timeFormat {
        case .twentyFourHour:
            return "\(twoDigits(hour)):\(twoDigits(minute))\(seconds)"
        case .twelveHour:
            let h12 = hour % 12 == 0 ? 12 : hour % 12
            return "\(h12):\(twoDigits(minute))\(seconds) \(hour < 12 ? "AM" : "PM")"
        }
    }

    /// The period of `B/clock`: a minute, or a second with `publish_seconds`.
    public var period: TimeInterval { settings.publishSeconds ? 1 : 60 }

    /// Which period `instant` falls in; a new value means the display changed and is due again.
    ///
    /// Counted from the reference date (2001-01-01, itself on a minute boundary), the value `Date`
    /// stores, so the tick and the displayed time never disagree through rounding.
    public func tick(at instant: Date) -> Int64 {
        Int64((instant.timeIntervalSinceReferenceDate / period).rounded(.down))
    }

    /// The first instant of the next period: minutes are aligned to the wall clock, never drifting.
    public func nextTick(after instant: Date) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(tick(at: instant) + 1) * period)
    }
}

private func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

/// ISO 8601 with the zone's offset, always numeric (`+00:00`, never `Z`), as SPEC §2 asks.
public enum ISOTime {
    /// Whole seconds (fractions dropped). Plain arithmetic on the zone's offset: this runs for
    /// every status and event.
    public static func string(_ instant: Date, in zone: Zone) -> String {
        let local = LocalTime(instant, in: zone)
        let sign = local.offset < 0 ? "-" : "+"
        let hours = abs(local.offset) / 3600, minutes = abs(local.offset) % 3600 / 60
        return "\(local.date.iso)T\(twoDigits(local.hour)):\(twoDigits(local.minute)):\(twoDigits(local.second))"
            + "\(sign)\(twoDigits(hours)):\(twoDigits(minutes))"
    }

    /// `2026-12-07T06:00`, with seconds and a fraction or not, with `Z` or `±HH:MM` or without
    /// (then local to `zone`); nil for anything else.
    public static func parse(_ text: String, in zone: Zone) -> Date? {
        let parts = text.split(separator: "T", maxSplits: 1)
        guard parts.count == 2, let date = CivilDate(iso: String(parts[0])) else { return nil }
        var clock = Substring(parts[1]), offset: Int?
        if clock.hasSuffix("Z") {
            clock = clock.dropLast()
            offset = 0
        } else if let sign = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zoneText = clock[clock.index(after: sign)...].split(separator: ":")
            guard zoneText.count == 2, let hours = Int(zoneText[0]), let minutes = Int(zoneText[1]), hours < 24, minutes < 60 else { return nil }
            offset = (clock[sign] == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
            clock = clock[..<sign]
        }
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), let time = AlarmTime("\(fields[0]):\(fields[1])") else { return nil }
        var seconds = 0.0
        if fields.count == 3 {
            guard let value = Double(fields[2]), value >= 0, value < 61, fields[2].first?.isNumber == true else { return nil }
            seconds = value
        }
        guard let offset else { return AlarmSchedule.occurrence(of: time, on: date, in: zone).addingTimeInterval(seconds) }
        let wall = Double(date.daysSinceEpoch * 86_400 + Int64(time.hour * 3600 + time.minute * 60)) + seconds
        return Date(timeIntervalSince1970: wall - Double(offset))
    }
}

extension DateNames {
    /// The names for `identifier` (`de_DE` or `de-DE`, or a bare language such as `de`); nil
    /// when the node has none.
    public static func names(for identifier: String) -> (months: [String], weekdays: [String])? {
        let normalized = String(identifier.map { $0 == "-" ? "_" : $0 })
        guard let entry = locales[normalized] else { return nil }
        return (lists[entry.months], lists[entry.weekdays])
    }

    /// Whether readers of `identifier` write "23. November" rather than "23 November".
    public static func writesDayWithPeriod(_ identifier: String) -> Bool {
        dayWithPeriod.contains(String(identifier.map { $0 == "-" ? "_" : $0 }))
    }

    /// Every locale the node has names for, sorted.
    public static var identifiers: [String] { locales.keys.sorted() }
}

import Foundation

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
    public let timeZone: TimeZone
    private let calendar: Calendar
    private let dateStyle: Date.VerbatimFormatStyle

    /// `systemZone` stands in for an empty `settings.timezone`.
    public init(settings: ClockSettings, systemZone: TimeZone = .current) {
        self.settings = settings
        let zone = settings.zone(system: systemZone)
        timeZone = zone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
        let locale = Locale(identifier: settings.locale.replacingOccurrences(of: "-", with: "_"))
        // "d MMMM EEE": 7 September Mon; the month and weekday names come from the locale.
        dateStyle = Date.VerbatimFormatStyle(
            format: "\(day: .defaultDigits) \(month: .wide) \(weekday: .abbreviated)",
            locale: locale, timeZone: zone, calendar: calendar)
    }

    public func state(at instant: Date) -> ClockState {
        ClockState(
            time: time(at: instant), date: instant.formatted(dateStyle), iso: ISOTime.string(instant, in: timeZone),
            timezone: timeZone.identifier, timeFormat: settings.timeFormat, showSeconds: settings.showSeconds)
    }

    /// "07:05" or "7:05 AM"; with seconds "07:05:09" or "7:05:09 AM".
    public func time(at instant: Date) -> String {
        let c = calendar.dateComponents([.hour, .minute, .second], from: instant)
        let (hour, minute, second) = (c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
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
    /// Whole seconds (fractions dropped). Plain arithmetic on the zone's offset: this runs for every
    /// status and event, and building a Calendar each time costs more than the rest of a command.
    public static func string(_ instant: Date, in zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: instant)
        let local = Int64((instant.timeIntervalSince1970).rounded(.down)) + Int64(offset)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = Int(local - days * 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let sign = offset < 0 ? "-" : "+"
        let hours = abs(offset) / 3600, minutes = abs(offset) % 3600 / 60
        return "\(year)-\(twoDigits(month))-\(twoDigits(day))T\(twoDigits(secondOfDay / 3600)):"
            + "\(twoDigits(secondOfDay % 3600 / 60)):\(twoDigits(secondOfDay % 60))\(sign)\(twoDigits(hours)):\(twoDigits(minutes))"
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's civil_from_days).
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }
}

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
        let zone = settings.timezone.isEmpty ? systemZone : (TimeZone(identifier: settings.timezone) ?? systemZone)
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
    public static func string(_ instant: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
        let offset = zone.secondsFromGMT(for: instant)
        let sign = offset < 0 ? "-" : "+"
        let hours = abs(offset) / 3600, minutes = abs(offset) % 3600 / 60
        let year = String(c.year ?? 0)
        return "\(year)-\(twoDigits(c.month ?? 0))-\(twoDigits(c.day ?? 0))T\(twoDigits(c.hour ?? 0)):"
            + "\(twoDigits(c.minute ?? 0)):\(twoDigits(c.second ?? 0))\(sign)\(twoDigits(hours)):\(twoDigits(minutes))"
    }
}

/// A day of the civil calendar (proleptic Gregorian), as an iCalendar DATE names it.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int, month: Int, day: Int

    /// nil unless it is a real day (the 31st of April is not) of the years 1-9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= CalendarDate.length(ofMonth: month, in: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// `YYYY-MM-DD`, or nil.
    public init?(iso text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day `days` after 1970-01-01 (negative: before).
    public init(daysSinceEpoch days: Int) {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public func adding(days: Int) -> CalendarDate { CalendarDate(daysSinceEpoch: daysSinceEpoch + days) }

    public var description: String {
        func pad(_ n: Int, _ width: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (a: CalendarDate, b: CalendarDate) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    static func length(ofMonth month: Int, in year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// One occurrence of an event in the window: a timed one (Unix seconds, `end` at or after `start`)
/// or an all-day one (`endDate` exclusive, as DTEND of a VALUE=DATE event).
public struct CalendarOccurrence: Sendable, Hashable {
    public enum Timing: Sendable, Hashable {
        case timed(start: Int64, end: Int64)
        case allDay(date: CalendarDate, endDate: CalendarDate)
    }

    public let uid: String
    public let summary: String
    public let timing: Timing

    public init(uid: String, summary: String, timing: Timing) {
        self.uid = uid
        self.summary = summary
        self.timing = timing
    }

    /// The line `noiseclock-calendar` prints (no newline):
    /// `{"uid":"a@x","summary":"Dentist","start":1796884200,"end":1796886000,"all_day":false}` or
    /// `{"uid":"b@x","summary":"Urlaub","date":"2026-12-08","end_date":"2026-12-10","all_day":true}`.
    public var jsonLine: String {
        let head = "{\"uid\":\(JSON.string(uid)),\"summary\":\(JSON.string(summary)),"
        switch timing {
        case .timed(let start, let end): return head + "\"start\":\(start),\"end\":\(end),\"all_day\":false}"
        case .allDay(let date, let endDate): return head + "\"date\":\"\(date)\",\"end_date\":\"\(endDate)\",\"all_day\":true}"
        }
    }
}

/// JSON text written by hand (the helper has no Foundation).
public enum JSON {
    /// `text` as a JSON string: quotes, backslash and control characters escaped; everything else,
    /// non-ASCII included, as it is (UTF-8).
    public static func string(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

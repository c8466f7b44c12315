import FoundationEssentials

/// The offsets of one zone: transitions from a TZif file, then its POSIX rule.
final class ZoneRules: Sendable {
    /// UTC seconds at which `offsets[i]` begins, ascending.
    private let transitions: [Int64]
    private let offsets: [Int]
    /// Before the first transition (RFC 8536: the first local time type).
    private let initial: Int
    /// After the last transition; nil: the last offset stays.
    private let rule: PosixRule?

    init(fixed offset: Int) {
        transitions = []
        offsets = []
        initial = offset
        rule = nil
    }

    init?(posix text: String) {
        guard let rule = PosixRule(text) else { return nil }
        transitions = []
        offsets = []
        initial = rule.standardOffset
        self.rule = rule
    }

    /// RFC 8536: the version 2+ block (64-bit times) when there is one, and its footer.
    init?(tzif bytes: [UInt8]) {
        var reader = TZifReader(bytes: bytes)
        guard let first = reader.header() else { return nil }
        var header = first
        if first.version >= 2 {
            // Skip the version 1 block; the second header and its 64-bit data follow.
            guard reader.skip(first.blockLength(timeSize: 4)), let second = reader.header() else { return nil }
            header = second
        }
        let timeSize = first.version >= 2 ? 8 : 4
        var times: [Int64] = []
        for _ in 0..<header.timecnt {
            guard let t = timeSize == 8 ? reader.int64() : reader.int32().map(Int64.init) else { return nil }
            times.append(t)
        }
        var indices: [Int] = []
        for _ in 0..<header.timecnt {
            guard let i = reader.uint8() else { return nil }
            indices.append(Int(i))
        }
        var types: [Int] = []
        for _ in 0..<header.typecnt {
            guard let utoff = reader.int32(), reader.skip(2) else { return nil }
            types.append(Int(utoff))
        }
        guard !types.isEmpty, indices.allSatisfy({ $0 < types.count }),
              reader.skip(header.charcnt + header.leapcnt * (timeSize + 4) + header.isstdcnt + header.isutcnt)
        else { return nil }
        var footer: PosixRule?
        if first.version >= 2, let text = reader.footer(), !text.isEmpty {
            footer = PosixRule(text)
        }
        transitions = times
        offsets = indices.map { types[$0] }
        initial = types[0]
        rule = footer
    }

    func offset(at t: Int64) -> Int {
        guard let last = transitions.last else { return rule?.offset(at: t) ?? initial }
        guard t >= last else {
            // Binary search: the last transition at or before t.
            var low = 0, high = transitions.count
            while low < high {
                let mid = (low + high) / 2
                if transitions[mid] <= t { low = mid + 1 } else { high = mid }
            }
            return low == 0 ? initial : offsets[low - 1]
        }
        if let rule { return rule.offset(at: t) }
        return offsets[offsets.count - 1]
    }
}

private struct TZifHeader {
    var version: Int
    var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int

    func blockLength(timeSize: Int) -> Int {
        timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
    }
}

private struct TZifReader {
    let bytes: [UInt8]
    var index = 0

    mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, index + n <= bytes.count else { return false }
        index += n
        return true
    }

    mutating func uint8() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    /// The next `count` bytes as a big-endian unsigned number.
    private mutating func bigEndian(_ count: Int) -> UInt64? {
        guard index + count <= bytes.count else { return nil }
        var value: UInt64 = 0
        for byte in bytes[index..<index + count] { value = value << 8 | UInt64(byte) }
        index += count
        return value
    }

    mutating func int32() -> Int32? { bigEndian(4).map { Int32(bitPattern: UInt32($0)) } }

    mutating func int64() -> Int64? { bigEndian(8).map { Int64(bitPattern: $0) } }

    mutating func header() -> TZifHeader? {
        guard index + 44 <= bytes.count, Array(bytes[index..<index + 4]) == Array("TZif".utf8) else { return nil }
        let versionByte = bytes[index + 4]
        let version = versionByte == 0 ? 1 : Int(versionByte) - Int(UInt8(ascii: "0"))
        index += 20
        var counts: [Int] = []
        for _ in 0..<6 {
            guard let n = int32(), n >= 0, n < 1_000_000 else { return nil }
            counts.append(Int(n))
        }
        return TZifHeader(
            version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2], timecnt: counts[3],
            typecnt: counts[4], charcnt: counts[5])
    }

    /// The text between the newlines after the last block.
    mutating func footer() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\n") else { return nil }
        let start = index + 1
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return String(validating: bytes[start..<end], as: UTF8.self)
    }
}

/// A POSIX `TZ` rule such as `CET-1CEST,M3.5.0,M10.5.0/3` (POSIX.1 8.3, with RFC 8536's
/// extensions: hours from -167 to 167 in transition times).
struct PosixRule: Sendable {
    /// Seconds east of Greenwich (POSIX writes them west, so signs are flipped here).
    let standardOffset: Int
    let daylight: (offset: Int, start: DateRule, startTime: Int, end: DateRule, endTime: Int)?

    enum DateRule: Sendable {
        /// Jn: day 1-365, February 29 never counted.
        case julian(Int)
        /// n: day 0-365, February 29 counted in leap years.
        case zeroBased(Int)
        /// Mm.w.d: weekday d (0 = Sunday) of week w (5 = last) of month m.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    init?(_ text: String) {
        var scanner = PosixScanner(Array(text.utf8))
        guard scanner.name(), let std = scanner.offset() else { return nil }
        standardOffset = -std
        if scanner.atEnd {
            daylight = nil
            return
        }
        guard scanner.name() else { return nil }
        var dst = std - 3600
        if !scanner.peek(UInt8(ascii: ",")) {
            guard let explicit = scanner.offset() else { return nil }
            dst = explicit
        }
        guard scanner.take(UInt8(ascii: ",")), let start = scanner.dateRule() else { return nil }
        var startTime = 7200, endTime = 7200
        if scanner.take(UInt8(ascii: "/")) {
            guard let time = scanner.offset() else { return nil }
            startTime = time
        }
        guard scanner.take(UInt8(ascii: ",")), let end = scanner.dateRule() else { return nil }
        if scanner.take(UInt8(ascii: "/")) {
            guard let time = scanner.offset() else { return nil }
            endTime = time
        }
        guard scanner.atEnd else { return nil }
        daylight = (-dst, start, startTime, end, endTime)
    }

    func offset(at t: Int64) -> Int {
        guard let daylight else { return standardOffset }
        // The transitions of the year on the standard-time clock and of the years around it, in
        // order; the last one at or before t says which offset holds. Start is written in
        // standard local time, end in daylight local time.
        let year = CivilDate(daysSinceEpoch: floorDiv(t + Int64(standardOffset), 86_400)).year
        var latest: (at: Int64, offset: Int)?
        for y in (year - 1)...(year + 1) {
            let start = Self.instant(daylight.start, year: y, seconds: daylight.startTime) - Int64(standardOffset)
            let end = Self.instant(daylight.end, year: y, seconds: daylight.endTime) - Int64(daylight.offset)
            // Daylight time the whole year round (RFC 8536's `EST5EDT,0/0,J365/25`).
            if end - start >= 365 * 86_400 { return daylight.offset }
            for (at, offset) in [(start, daylight.offset), (end, standardOffset)] where at <= t {
                if latest.map({ at > $0.at }) ?? true { latest = (at, offset) }
            }
        }
        return latest?.offset ?? standardOffset
    }

    /// Local seconds since the epoch of a rule's day in `year` plus `seconds`.
    static func instant(_ rule: DateRule, year: Int, seconds: Int) -> Int64 {
        let january1 = CivilDate.daysSinceEpoch(year: year, month: 1, day: 1)
        let leap = CivilDate.isLeap(year)
        let day: Int64
        switch rule {
        case .julian(let n):
            day = january1 + Int64(n - 1) + (leap && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            day = january1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let firstOfMonth = CivilDate(year: year, month: month, day: 1)
            let first = firstOfMonth.daysSinceEpoch
            let firstWeekday = firstOfMonth.weekday
            var dayOfMonth = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let length = CivilDate.daysIn(month: month, year: year)
            while dayOfMonth > length { dayOfMonth -= 7 }
            day = first + Int64(dayOfMonth - 1)
        }
        return day * 86_400 + Int64(seconds)
    }
}

private struct PosixScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek(byte) else { return false }
        index += 1
        return true
    }

    /// `<+03>` or three or more letters.
    mutating func name() -> Bool {
        if take(UInt8(ascii: "<")) {
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")), close > index else { return false }
            index = close + 1
            return true
        }
        let start = index
        while index < bytes.count, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[index] & 0xDF) { index += 1 }
        return index - start >= 3
    }

    /// `[+-]h[h][:mm[:ss]]` in seconds (hours up to 167).
    mutating func offset() -> Int? {
        var sign = 1
        if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
        guard let hours = number(maxDigits: 3), hours <= 167 else { return nil }
        var seconds = hours * 3600
        if take(UInt8(ascii: ":")) {
            guard let minutes = number(maxDigits: 2), minutes < 60 else { return nil }
            seconds += minutes * 60
            if take(UInt8(ascii: ":")) {
                guard let s = number(maxDigits: 2), s < 60 else { return nil }
                seconds += s
            }
        }
        return sign * seconds
    }

    mutating func dateRule() -> PosixRule.DateRule? {
        if take(UInt8(ascii: "J")) {
            guard let n = number(maxDigits: 3), (1...365).contains(n) else { return nil }
            return .julian(n)
        }
        if take(UInt8(ascii: "M")) {
            guard let m = number(maxDigits: 2), (1...12).contains(m), take(UInt8(ascii: ".")),
                  let w = number(maxDigits: 1), (1...5).contains(w), take(UInt8(ascii: ".")),
                  let d = number(maxDigits: 1), (0...6).contains(d)
            else { return nil }
            return .monthWeekDay(month: m, week: w, weekday: d)
        }
        guard let n = number(maxDigits: 3), (0...365).contains(n) else { return nil }
        return .zeroBased(n)
    }

    mutating func number(maxDigits: Int) -> Int? {
        let start = index
        var value = 0
        while index < bytes.count, index - start < maxDigits, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        return index > start ? value : nil
    }
}

/// Proleptic Gregorian dates as day counts from 1970-01-01 (H. Hinnant's algorithms).
public struct CivilDate: Sendable, Hashable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public init(daysSinceEpoch: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), month: Int(m), day: Int(d))
    }

    public var daysSinceEpoch: Int64 { Self.daysSinceEpoch(year: year, month: month, day: day) }

    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// 0 = Sunday … 6 = Saturday.
    public var weekday: Int { Int(floorMod(daysSinceEpoch + 4, 7)) }

    /// `YYYY-MM-DD`.
    public var iso: String {
        let m = month < 10 ? "0\(month)" : "\(month)", d = day < 10 ? "0\(day)" : "\(day)"
        return "\(year)-\(m)-\(d)"
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// The local date and time of an instant in a zone.
public struct LocalTime: Sendable, Hashable {
    public var date: CivilDate
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// The zone's offset at the instant.
    public var offset: Int

    public init(_ instant: Date, in zone: Zone) {
        let utc = Int64(instant.timeIntervalSince1970.rounded(.down))
        offset = zone.secondsFromGMT(for: instant)
        let local = utc + Int64(offset)
        let days = floorDiv(local, 86_400)
        let second = Int(local - days * 86_400)
        date = CivilDate(daysSinceEpoch: days)
        hour = second / 3600
        minute = second % 3600 / 60
        self.second = second % 60
    }
}

func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }
func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }

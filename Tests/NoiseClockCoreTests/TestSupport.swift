import Foundation
import NoiseClockCore

/// Instants built from a fixed UTC Gregorian calendar, independent of the code under test.
enum UTC {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
    }
}

/// A Gregorian calendar fixed to one zone, for reading wall-clock fields in assertions.
func calendar(in identifier: String) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: identifier)!
    return calendar
}

func decodePayload(_ text: String) -> (payload: Result<CommandPayload, CommandError>, transaction: JSONValue?) {
    CommandPayload.decode(Array(text.utf8))
}

extension Result {
    var successValue: Success? {
        if case .success(let value) = self { return value }
        return nil
    }

    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension JSONValue {
    subscript(member member: String) -> JSONValue? { objectValue?[member] }

    var items: [JSONValue] {
        if case .array(let values) = self { return values }
        return []
    }
}

/// SplitMix64: a small deterministic generator, so one seed replays a whole property walk.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }

    /// Seconds in `range`, to the millisecond.
    mutating func seconds(_ range: ClosedRange<Int>) -> Double {
        Double(int((range.lowerBound * 1000)...(range.upperBound * 1000))) / 1000
    }

    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
}

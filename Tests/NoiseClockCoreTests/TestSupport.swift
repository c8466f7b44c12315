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

import NoiseClockCore
import Testing

@Suite("Command arguments")
struct CommandArgumentsTests {
    static let shapes: [CommandShape] = [.none, .object(bareValue: "volume"), .object(bareValue: nil)]

    @Test("an empty payload gives no arguments, whatever the verb's shape", arguments: shapes)
    func emptyPayload(shape: CommandShape) throws {
        let arguments = try CommandArguments(payload: .empty, shape: shape, verb: "ping")
        #expect(arguments.values.isEmpty)
    }

    @Test("a no-argument verb accepts an empty object")
    func noArgumentEmptyObject() throws {
        let arguments = try CommandArguments(payload: .object([:]), shape: .none, verb: "dismiss")
        #expect(arguments.values.isEmpty)
    }

    @Test("a no-argument verb rejects an object member, naming it")
    func noArgumentRejectsMember() throws {
        let error = try #require(throws: CommandError.self) {
            try CommandArguments(payload: .object(["minutes": 5]), shape: .none, verb: "dismiss")
        }
        #expect(error.code == .invalidField)
        #expect(error.field == "minutes")
        #expect(error.message.contains("dismiss"))
    }

    @Test("a no-argument verb with several members names the first in key order")
    func noArgumentNamesFirst() throws {
        let error = try #require(throws: CommandError.self) {
            try CommandArguments(payload: .object(["zeta": 1, "alpha": 2, "mid": 3]), shape: .none, verb: "noise/stop")
        }
        #expect(error.field == "alpha")
    }

    @Test("a no-argument verb rejects a bare value, naming the payload", arguments: [JSONValue.number(5), "rain", "ON", true])
    func noArgumentRejectsBare(value: JSONValue) throws {
        let error = try #require(throws: CommandError.self) {
            try CommandArguments(payload: .bare(value), shape: .none, verb: "dismiss")
        }
        #expect(error.code == .invalidField)
        #expect(error.field == "payload")
    }

    @Test("a bare number becomes the verb's main field")
    func bareNumberBecomesMainField() throws {
        let arguments = try CommandArguments(payload: .bare(55), shape: .object(bareValue: "volume"), verb: "noise/volume")
        #expect(arguments.values == ["volume": 55])
        #expect(try arguments.int("volume", in: 0...100) == 55)
    }

    @Test("a bare sound name becomes the sound field")
    func bareNameBecomesSound() throws {
        let arguments = try CommandArguments(payload: .bare("rain"), shape: .object(bareValue: "sound"), verb: "noise/play")
        #expect(try arguments.string("sound") == "rain")
    }

    @Test("a bare ON becomes the switch's field and reads as true")
    func bareOnBecomesSwitch() throws {
        let arguments = try CommandArguments(payload: .bare("ON"), shape: .object(bareValue: "enabled"), verb: "noise/power")
        #expect(try arguments.bool("enabled") == true)
    }

    @Test("a verb without a main field rejects a bare value, naming the payload")
    func bareWithoutMainField() throws {
        let error = try #require(throws: CommandError.self) {
            try CommandArguments(payload: .bare(5), shape: .object(bareValue: nil), verb: "alarm/add")
        }
        #expect(error.code == .invalidJSON)
        #expect(error.field == "payload")
    }

    @Test("an object payload is passed through to an object verb as it is")
    func objectPassesThrough() throws {
        let members: [String: JSONValue] = ["sound": "rain", "volume": 60, "sleep_min": 30]
        let arguments = try CommandArguments(payload: .object(members), shape: .object(bareValue: "sound"), verb: "noise/play")
        #expect(arguments.values == members)
    }

    @Test("values taken from the topic are kept apart from the payload")
    func pathKept() throws {
        let arguments = try CommandArguments(
            payload: .bare("OFF"), shape: .object(bareValue: "enabled"), verb: "alarm/a1/enabled", path: ["id": "a1"])
        #expect(arguments.path == ["id": "a1"])
        #expect(arguments.values == ["enabled": "OFF"])
    }

    @Test("has tells whether a member was sent")
    func has() {
        let arguments = CommandArguments(["volume": 0])
        #expect(arguments.has("volume"))
        #expect(!arguments.has("sound"))
    }

    @Test("allowOnly accepts known members")
    func allowOnlyAccepts() throws {
        try CommandArguments(["volume": 1, "sound": "rain"]).allowOnly(["volume", "sound", "sleep_min"])
        try CommandArguments().allowOnly([])
    }

    @Test("allowOnly rejects an unknown member, naming it")
    func allowOnlyNamesUnknown() throws {
        let error = try #require(throws: CommandError.self) {
            try CommandArguments(["volume": 1, "sound": "rain", "colour": "red"]).allowOnly(["volume", "sound"])
        }
        #expect(error.code == .invalidField)
        #expect(error.field == "colour")
    }

    @Test("allowOnly names the first unknown member in key order")
    func allowOnlyFirstUnknown() throws {
        let error = try #require(throws: CommandError.self) {
            try CommandArguments(["zz": 1, "volume": 1, "bb": 2]).allowOnly(["volume"])
        }
        #expect(error.field == "bb")
    }

    @Test("absent members read as nil")
    func absentIsNil() throws {
        let arguments = CommandArguments(["other": 1])
        #expect(try arguments.int("volume", in: 0...100) == nil)
        #expect(try arguments.bool("enabled") == nil)
        #expect(try arguments.string("sound") == nil)
    }

    @Test("an integer within the range is returned, bounds included", arguments: [0, 1, 55, 100])
    func intInRange(number: Int) throws {
        #expect(try CommandArguments(["volume": .number(Double(number))]).int("volume", in: 0...100) == number)
    }

    @Test("an integer outside the range is rejected, naming the field", arguments: [-1, 101, 1000])
    func intOutOfRange(number: Int) throws {
        let error = try #require(throws: CommandError.self) {
            try CommandArguments(["volume": .number(Double(number))]).int("volume", in: 0...100)
        }
        #expect(error.code == .invalidField)
        #expect(error.field == "volume")
        #expect(error.message.contains("\(number)"))
    }

    @Test("a fractional, boolean, null, object or non-numeric text value is not an integer", arguments: [
        JSONValue.number(55.5), .bool(true), .null, .object([:]), .array([55]), .string("loud"),
    ])
    func intWrongType(value: JSONValue) throws {
        let error = try #require(throws: CommandError.self) {
            try CommandArguments(["volume": value]).int("volume", in: 0...100)
        }
        #expect(error.code == .invalidField)
        #expect(error.field == "volume")
    }

    @Test("a whole number sent as text is read as that number")
    func intFromText() throws {
        #expect(try CommandArguments(["minutes": "15"]).int("minutes", in: 0...600) == 15)
    }

    @Test("a number sent as text is still range-checked")
    func intFromTextRange() throws {
        let error = try #require(throws: CommandError.self) {
            try CommandArguments(["minutes": "601"]).int("minutes", in: 0...600)
        }
        #expect(error.field == "minutes")
    }

    @Test("booleans accept true and false, as JSON or as text, and ON and OFF in any case", arguments: [
        (JSONValue.bool(true), true), (.bool(false), false), ("true", true), ("false", false),
        ("ON", true), ("OFF", false), ("on", true), ("off", false), ("On", true),
    ])
    func boolAccepts(value: JSONValue, expected: Bool) throws {
        #expect(try CommandArguments(["enabled": value]).bool("enabled") == expected)
    }

    @Test("booleans reject anything else, naming the field", arguments: [
        JSONValue.string("yes"), "maybe", "", .number(1), .number(0), .null, .array([true]),
    ])
    func boolRejects(value: JSONValue) throws {
        let error = try #require(throws: CommandError.self) { try CommandArguments(["enabled": value]).bool("enabled") }
        #expect(error.code == .invalidField)
        #expect(error.field == "enabled")
    }

    @Test("strings reject other types, naming the field and the type sent")
    func stringRejects() throws {
        #expect(try CommandArguments(["sound": "rain"]).string("sound") == "rain")
        let error = try #require(throws: CommandError.self) { try CommandArguments(["sound": 5]).string("sound") }
        #expect(error.code == .invalidField)
        #expect(error.field == "sound")
        #expect(error.message.contains("number"))
    }
}

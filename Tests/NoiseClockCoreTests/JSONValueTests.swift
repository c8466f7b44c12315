import Foundation
import NoiseClockCore
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    @Test("object members serialize compactly in sorted key order, at every depth")
    func sortedKeys() {
        let value: JSONValue = ["volume": 55, "sound": "rain", "alarm": ["label": "work", "enabled": true, "days": ["mon", "tue"]], "next": nil]
        #expect(value.serialized == #"{"alarm":{"days":["mon","tue"],"enabled":true,"label":"work"},"next":null,"sound":"rain","volume":55}"#)
    }

    @Test("equal objects serialize to equal bytes whatever order they were built in")
    func equalValuesEqualBytes() {
        var forward: [String: JSONValue] = [:]
        var backward: [String: JSONValue] = [:]
        let keys = (0..<50).map { "key\($0)" }
        for (index, key) in keys.enumerated() { forward[key] = .number(Double(index)) }
        for (index, key) in keys.enumerated().reversed() { backward[key] = .number(Double(index)) }
        #expect(JSONValue.object(forward).serializedBytes == JSONValue.object(backward).serializedBytes)
    }

    @Test("serializedBytes is the UTF-8 of serialized")
    func bytesAreUTF8() {
        let value: JSONValue = ["name": "Grüße ☕"]
        #expect(value.serializedBytes == Array(value.serialized.utf8))
    }

    @Test("quotes and backslashes in strings are escaped")
    func escapesQuotesAndBackslashes() {
        #expect(JSONValue.string(#"say "hi" \ bye"#).serialized == #""say \"hi\" \\ bye""#)
    }

    @Test("newline, carriage return and tab use their short escapes")
    func escapesCommonControls() {
        #expect(JSONValue.string("a\nb\rc\td").serialized == #""a\nb\rc\td""#)
    }

    @Test("other control characters become \\u escapes, never raw bytes")
    func escapesOtherControls() throws {
        let text = "x\u{01}y\u{1F}z\u{00}"
        let serialized = JSONValue.string(text).serialized
        #expect(!serialized.unicodeScalars.contains { $0.value < 0x20 })
        let lowered = serialized.lowercased()
        #expect(lowered.contains(#"\u0001"#))
        #expect(lowered.contains(#"\u001f"#))
        #expect(lowered.contains(#"\u0000"#))
        #expect(try JSONValue.parse(Array(serialized.utf8)) == .string(text))
    }

    @Test("keys are escaped like strings")
    func escapesKeys() throws {
        let value: JSONValue = ["a\"b": 1]
        #expect(value.serialized == #"{"a\"b":1}"#)
        #expect(try JSONValue.parse(value.serializedBytes) == value)
    }

    @Test("non-ASCII text passes through as UTF-8")
    func unicodePassesThrough() throws {
        let value: JSONValue = .string("Grüße ☕ 目覚まし")
        #expect(value.serialized == "\"Grüße ☕ 目覚まし\"")
        #expect(try JSONValue.parse(value.serializedBytes) == value)
    }

    @Test("whole numbers serialize without a fraction", arguments: [
        (55.0, "55"), (0.0, "0"), (-3.0, "-3"), (100.0, "100"), (1_788_739_200.0, "1788739200"),
    ])
    func wholeNumbers(number: Double, expected: String) {
        #expect(JSONValue.number(number).serialized == expected)
    }

    @Test("every whole number below 10^15 is written as its decimal digits, at each length and sign")
    func wholeNumberDigits() {
        var generator = SystemRandomNumberGenerator()
        var numbers: [Int64] = [0, 9, 10, 99, 100, 999_999_999_999_999, -999_999_999_999_999]
        for digits in 1...15 {
            let top = (0..<digits).reduce(Int64(1)) { power, _ in power * 10 }
            for _ in 0..<20 { numbers.append(Int64.random(in: -(top - 1)...(top - 1), using: &generator)) }
        }
        for number in numbers {
            #expect(JSONValue.number(Double(number)).serialized == String(number))
        }
        #expect(JSONValue.number(-0.0).serialized == "0")
    }

    @Test("fractional numbers keep their fraction", arguments: [(87.5, "87.5"), (0.25, "0.25"), (-2.75, "-2.75")])
    func fractionalNumbers(number: Double, expected: String) {
        #expect(JSONValue.number(number).serialized == expected)
    }

    @Test("every finite number serializes to JSON that parses back to the same number", arguments: [
        0.1, 1e-7, 1e15, 1e20, -1e21, 123_456_789.125, 9_007_199_254_740_992, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude,
    ])
    func numbersRoundTrip(number: Double) throws {
        let text = JSONValue.number(number).serialized
        #expect(try JSONValue.parse(Array(text.utf8)) == .number(number), "\(text)")
    }

    @Test("infinity and NaN, which JSON cannot carry, serialize as null")
    func nonFiniteIsNull() {
        #expect(JSONValue.number(.infinity).serialized == "null")
        #expect(JSONValue.number(-.infinity).serialized == "null")
        #expect(JSONValue.number(.nan).serialized == "null")
    }

    @Test("literals, booleans, null and arrays serialize as JSON")
    func scalarsAndArrays() {
        #expect(JSONValue.null.serialized == "null")
        #expect(JSONValue.bool(true).serialized == "true")
        #expect(JSONValue.bool(false).serialized == "false")
        #expect(JSONValue.array([]).serialized == "[]")
        #expect(JSONValue.object([:]).serialized == "{}")
        #expect(JSONValue.array([1, "a", nil, false, [:]]).serialized == #"[1,"a",null,false,{}]"#)
    }

    @Test("parsing keeps booleans, numbers, strings, null, arrays and objects apart")
    func parseTypes() throws {
        let parsed = try JSONValue.parse(Array(#"{"b":true,"n":1,"s":"1","z":null,"a":[0,false],"o":{}}"#.utf8))
        #expect(parsed == ["b": .bool(true), "n": .number(1), "s": .string("1"), "z": .null, "a": [.number(0), .bool(false)], "o": .object([:])])
    }

    @Test("a document round-trips through serialized and parse")
    func roundTrip() throws {
        let text = #"{ "alarms" : [ {"id":"a1", "time":"07:30", "days":["mon","fri"], "volume": 60, "snooze_min": 9.5, "label": "Tab\there \"quoted\""} ], "transaction": null }"#
        let parsed = try JSONValue.parse(Array(text.utf8))
        let reparsed = try JSONValue.parse(parsed.serializedBytes)
        #expect(reparsed == parsed)
        #expect(reparsed.serialized == parsed.serialized)
        #expect(parsed[member: "alarms"] != nil)
    }

    @Test("parse accepts a single scalar as a document")
    func parseScalar() throws {
        #expect(try JSONValue.parse(Array("55".utf8)) == .number(55))
        #expect(try JSONValue.parse(Array(#""rain""#.utf8)) == .string("rain"))
        #expect(try JSONValue.parse(Array("false".utf8)) == .bool(false))
        #expect(try JSONValue.parse(Array("null".utf8)) == .null)
    }

    @Test("malformed text is a ParseError with a reason", arguments: [#"{"a":"#, "{'a':1}", "{,}", "[1 2]", "tru", ""])
    func parseRejects(text: String) throws {
        let error = try #require(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array(text.utf8)) }
        #expect(!error.reason.isEmpty)
        #expect(error.description == error.reason)
    }

    @Test("a fault is named with its byte offset, and the first one in the text is the one reported", arguments: [
        (#"{"a":1,}"#, "unexpected '}' at offset 7"),
        (#"{"a" 1}"#, "unexpected '1' at offset 5 where ':'"),
        (#"[1 2]"#, "unexpected '2' at offset 3 where ',' or ']'"),
        ("{\"a\":\"x\u{01}\",\"b\":{\"c\u{01}\":1}}", "control character 0x01 at offset 7"),
        (#"{"a":tru}"#, "unexpected 't' at offset 5"),
        (#"{"a":01}"#, "unexpected '1' at offset 6"),
        (#"{"a":1.}"#, "unexpected '}' at offset 7 where a digit should follow '.'"),
        (#"{"a":-}"#, "unexpected '}' at offset 6 where a digit"),
        (#"{"a":"\x"}"#, "invalid escape sequence at offset 6"),
        (#"{"a":"\ud800"}"#, "surrogate pair"),
        (#"{"a":"\udc00\ud800"}"#, "surrogate pair"),
        (#"{"a":"\u12"}"#, "needs four hex digits"),
        (#"{"a":"open}"#, "the string that starts at offset 5 is never closed"),
        (#"{"a":1e999}"#, "number 1e999 at offset 5 is out of range"),
        (#"{"a":1,"a":2}"#, #"member "a" appears twice"#),
        (#"{"a":NaN}"#, "unexpected 'N' at offset 5"),
        (#"{} x"#, "unexpected 'x' at offset 3 after the value"),
        ("   ", "no JSON value"),
    ])
    func parseFaultReasons(text: String, expected: String) throws {
        let error = try #require(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array(text.utf8)) }
        #expect(error.reason.contains(expected), "\(error.reason)")
        // The same text gives the same reason every time (it once depended on Dictionary order).
        for _ in 0..<20 {
            #expect(throws: error) { try JSONValue.parse(Array(text.utf8)) }
        }
    }

    @Test("a string holding bytes that are not UTF-8 is refused")
    func parseRejectsInvalidUTF8() throws {
        let bytes: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let error = try #require(throws: JSONValue.ParseError.self) { try JSONValue.parse(bytes) }
        #expect(error.reason.contains("not valid UTF-8"))
    }

    @Test("escapes decode to the characters they stand for, surrogate pairs included")
    func parseEscapes() throws {
        let text = #""\"\\\/\b\f\n\r\t\u00e9\u00E9\ud83d\ude00x""#
        #expect(try JSONValue.parse(Array(text.utf8)) == .string("\"\\/\u{08}\u{0C}\n\r\té\u{E9}😀x"))
    }

    @Test("numbers follow JSON's grammar and read as the nearest Double", arguments: [
        ("0", 0.0), ("-0", -0.0), ("12", 12), ("-3.25", -3.25), ("1e3", 1000), ("1E+2", 100), ("25e-1", 2.5), ("0.1", 0.1),
    ])
    func parseNumbers(text: String, expected: Double) throws {
        #expect(try JSONValue.parse(Array(text.utf8)) == .number(expected))
    }

    @Test("nesting is limited so a hostile document cannot exhaust the stack")
    func parseDepthLimit() throws {
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(try JSONValue.parse(Array(fine.utf8)) != .null)
        let deep = String(repeating: "[", count: 100_000)
        let error = try #require(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array(deep.utf8)) }
        #expect(error.reason.contains("nested deeper than 128"))
    }

    @Test("the parser agrees with Foundation's JSONSerialization on documents both accept")
    func agreesWithFoundation() throws {
        let text = #"{"alarms":[{"id":"a1","days":["mon"],"volume":60.5,"on":true,"x":null,"label":"Grüße \u2615 \"q\""}],"n":-1.5e-3,"e":{}}"#
        let ours = try JSONValue.parse(Array(text.utf8))
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let reencoded = try JSONSerialization.data(withJSONObject: theirs, options: [.sortedKeys])
        #expect(try JSONValue.parse(Array(reencoded)) == ours)
        #expect(ours[member: "n"] == .number(-0.0015))
    }

    @Test("intValue is the Int of a whole number and nil otherwise")
    func intValue() {
        #expect(JSONValue.number(55).intValue == 55)
        #expect(JSONValue.number(-5).intValue == -5)
        #expect(JSONValue.number(55.5).intValue == nil)
        #expect(JSONValue.string("55").intValue == nil)
        #expect(JSONValue.bool(true).intValue == nil)
        #expect(JSONValue.number(.infinity).intValue == nil)
        #expect(JSONValue.number(1e300).intValue == nil)
    }

    @Test("typed accessors answer only for their own type")
    func accessors() {
        #expect(JSONValue.string("x").stringValue == "x")
        #expect(JSONValue.number(1).stringValue == nil)
        #expect(JSONValue.bool(false).boolValue == false)
        #expect(JSONValue.string("true").boolValue == nil)
        #expect(JSONValue.object(["a": 1]).objectValue == ["a": 1])
        #expect(JSONValue.array([]).objectValue == nil)
    }

    @Test("typeName reads as English for error messages")
    func typeNames() {
        #expect(JSONValue.null.typeName == "null")
        #expect(JSONValue.bool(true).typeName == "a boolean")
        #expect(JSONValue.number(1).typeName == "a number")
        #expect(JSONValue.string("").typeName == "a string")
        #expect(JSONValue.array([]).typeName == "an array")
        #expect(JSONValue.object([:]).typeName == "an object")
    }

    @Test("Codable encoding produces JSON that parses back to the same value")
    func codable() throws {
        let value: JSONValue = ["a": [1, 2.5, "x", nil, true], "b": ["c": "d"]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONValue.parse(Array(data)) == value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }
}

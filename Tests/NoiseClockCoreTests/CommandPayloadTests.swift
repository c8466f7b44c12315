import Foundation
import NoiseClockCore
import Testing

@Suite("Command payload decoding (SPEC §2, Commands)")
struct CommandPayloadTests {
    @Test("an empty payload is the no-argument form")
    func empty() {
        let (payload, transaction) = CommandPayload.decode([])
        #expect(payload == .success(.empty))
        #expect(transaction == nil)
    }

    @Test("a payload of only whitespace is the no-argument form", arguments: [" ", "\n", " \t\r\n "])
    func whitespace(text: String) {
        #expect(decodePayload(text).payload == .success(.empty))
    }

    @Test("a payload padded with white space to the 64 KiB limit decodes in one pass: it cost seconds when each trailing space counted the whole text")
    func paddedPayloadDecodesQuickly() {
        var bytes = Array(#"{"show_seconds":true}"#.utf8)
        bytes += [UInt8](repeating: UInt8(ascii: " "), count: CommandPayload.maxBytes - bytes.count - 1) + [UInt8(ascii: "\n")]
        let started = ContinuousClock.now
        let (payload, _) = CommandPayload.decode(bytes)
        let took = ContinuousClock.now - started
        #expect(payload == .success(.object(["show_seconds": true])))
        // Linear, even in a debug build, is a few milliseconds; quadratic was seconds in a release build.
        #expect(took < .seconds(1), "decoding took \(took)")
        let padded = String(repeating: " ", count: 30_000) + "rain" + String(repeating: "\t", count: 30_000)
        #expect(padded.trimmingWhitespace() == "rain")
    }

    @Test("PRESS, what a Home Assistant button sends, is the no-argument form", arguments: ["PRESS", " PRESS\n"])
    func press(text: String) {
        let (payload, transaction) = decodePayload(text)
        #expect(payload == .success(.empty))
        #expect(transaction == nil)
    }

    @Test("a JSON object is decoded member by member")
    func object() {
        let (payload, transaction) = decodePayload(#"{"sound":"rain","volume":60,"sleep_min":30}"#)
        #expect(payload == .success(.object(["sound": "rain", "volume": 60, "sleep_min": 30])))
        #expect(transaction == nil)
    }

    @Test("an empty JSON object is an object with no members")
    func emptyObject() {
        #expect(decodePayload("{}").payload == .success(.object([:])))
    }

    @Test("whitespace around a JSON object is ignored")
    func objectWithWhitespace() {
        #expect(decodePayload("\n  {\"volume\": 55}  \n").payload == .success(.object(["volume": 55])))
    }

    @Test("the transaction is taken out of the object and returned apart")
    func transactionExtracted() throws {
        let (payload, transaction) = decodePayload(#"{"id":"a1","transaction":"t-42"}"#)
        let members = try #require(payload.successValue)
        #expect(members == .object(["id": "a1"]))
        #expect(transaction == .string("t-42"))
    }

    @Test("any JSON value can be a transaction", arguments: [
        (#"{"transaction":7}"#, JSONValue.number(7)),
        (#"{"transaction":{"n":1}}"#, JSONValue.object(["n": 1])),
        (#"{"transaction":null}"#, JSONValue.null),
    ])
    func transactionValues(text: String, expected: JSONValue) {
        let (payload, transaction) = decodePayload(text)
        #expect(payload == .success(.object([:])))
        #expect(transaction == expected)
    }

    @Test("only the top-level transaction is taken out")
    func nestedTransactionStays() {
        let (payload, transaction) = decodePayload(#"{"alarm":{"transaction":"inner"}}"#)
        #expect(payload == .success(.object(["alarm": ["transaction": "inner"]])))
        #expect(transaction == nil)
    }

    @Test("a bare number becomes a bare numeric value", arguments: ["55", " 55\n"])
    func bareNumber(text: String) {
        #expect(decodePayload(text).payload == .success(.bare(.number(55))))
    }

    @Test("a bare fractional number keeps its fraction")
    func bareFraction() {
        #expect(decodePayload("2.5").payload == .success(.bare(.number(2.5))))
    }

    @Test("a bare word is a bare string")
    func bareWord() {
        #expect(decodePayload("rain").payload == .success(.bare(.string("rain"))))
    }

    @Test("a bare catalog name with spaces is kept whole")
    func bareName() {
        #expect(decodePayload("  Brown Noise ").payload == .success(.bare(.string("Brown Noise"))))
    }

    @Test("ON and OFF are bare strings", arguments: ["ON", "OFF"])
    func onOff(text: String) {
        #expect(decodePayload(text).payload == .success(.bare(.string(text))))
    }

    @Test("a quoted JSON string is a bare string without its quotes")
    func quotedString() {
        #expect(decodePayload(#""white noise""#).payload == .success(.bare(.string("white noise"))))
    }

    @Test("a quoted PRESS is a string, not the no-argument form")
    func quotedPress() {
        #expect(decodePayload(#""PRESS""#).payload == .success(.bare(.string("PRESS"))))
    }

    @Test("a bare JSON boolean is a boolean")
    func bareBool() {
        #expect(decodePayload("true").payload == .success(.bare(.bool(true))))
        #expect(decodePayload("false").payload == .success(.bare(.bool(false))))
    }

    @Test("a bare value never carries a transaction")
    func bareHasNoTransaction() {
        #expect(decodePayload("55").transaction == nil)
    }

    @Test("a JSON array is rejected as invalid_json naming the payload", arguments: ["[1,2]", "[]", #"  [{"transaction":"t"}]"#])
    func arrayRejected(text: String) throws {
        let (payload, transaction) = decodePayload(text)
        let error = try #require(payload.failureValue)
        #expect(error.code == .invalidJSON)
        #expect(error.field == "payload")
        #expect(transaction == nil)
    }

    @Test("malformed JSON is rejected as invalid_json naming the payload", arguments: [
        "{", "{\u{301}\"sound\":\"rain\"}", "\u{FEFF}{\u{301}}", "[\u{301} 1]", #"{"volume":"#, #"{"volume":,}"#, #"{"volume" 55}"#, "{'volume':55}", #"{"volume":55} trailing"#,
        #"{"transaction":"t","volume":}"#,
    ])
    func invalidJSON(text: String) throws {
        let (payload, transaction) = decodePayload(text)
        let error = try #require(payload.failureValue)
        #expect(error.code == .invalidJSON)
        #expect(error.field == "payload")
        #expect(!error.message.isEmpty)
        #expect(transaction == nil)
        // The same bytes get the same words every time.
        #expect(decodePayload(text).payload.failureValue == error)
    }

    @Test("of two faults the first in the text is reported, the same every time")
    func firstFaultReported() throws {
        let text = "{\"a\":\"x\u{0}\",\"b\":{\"c\u{0}\":1}}"
        let error = try #require(decodePayload(text).payload.failureValue)
        #expect(error.message.contains("offset 7"), "\(error.message)")
        for _ in 0..<20 { #expect(decodePayload(text).payload.failureValue == error) }
    }

    @Test("the 64 KiB limit is 65536 bytes")
    func limit() {
        #expect(CommandPayload.maxBytes == 65_536)
    }

    /// A valid JSON object of exactly `size` bytes: `{"pad":"xxx…"}`.
    private func paddedObject(size: Int) -> [UInt8] {
        let frame = #"{"pad":""}"#.utf8.count
        return Array((#"{"pad":""# + String(repeating: "x", count: size - frame) + #""}"#).utf8)
    }

    @Test("a payload of exactly 64 KiB is accepted")
    func exactlyAtLimit() throws {
        let bytes = paddedObject(size: 65_536)
        #expect(bytes.count == 65_536)
        let (payload, _) = CommandPayload.decode(bytes)
        let decoded = try #require(payload.successValue)
        guard case .object(let members) = decoded else {
            Issue.record("expected an object, got \(decoded)")
            return
        }
        #expect(members["pad"]?.stringValue?.count == 65_536 - 10)
    }

    @Test("a payload one byte over 64 KiB is rejected as too_large")
    func overLimit() throws {
        let bytes = paddedObject(size: 65_537)
        #expect(bytes.count == 65_537)
        let (payload, transaction) = CommandPayload.decode(bytes)
        let error = try #require(payload.failureValue)
        #expect(error.code == .tooLarge)
        #expect(error.field == "payload")
        #expect(transaction == nil)
    }

    @Test("a payload far over the limit is too_large, whatever its content")
    func farOverLimit() throws {
        let error = try #require(CommandPayload.decode([UInt8](repeating: 0xFF, count: 1 << 20)).payload.failureValue)
        #expect(error.code == .tooLarge)
        let whitespace = try #require(CommandPayload.decode([UInt8](repeating: 0x20, count: 65_537)).payload.failureValue)
        #expect(whitespace.code == .tooLarge)
    }

    @Test("bytes that are not UTF-8 are rejected as invalid_json naming the payload", arguments: [
        [0xFF, 0xFE] as [UInt8],
        Array(#"{"sound":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
        Array("caf".utf8) + [0xC3],
        [0xED, 0xA0, 0x80],
    ])
    func invalidUTF8(bytes: [UInt8]) throws {
        let (payload, transaction) = CommandPayload.decode(bytes)
        let error = try #require(payload.failureValue)
        #expect(error.code == .invalidJSON)
        #expect(error.field == "payload")
        #expect(transaction == nil)
    }

    @Test("multi-byte UTF-8 in a payload is accepted")
    func validMultibyte() {
        #expect(decodePayload(#"{"label":"Aufwachen ☀︎ Grüße"}"#).payload == .success(.object(["label": "Aufwachen ☀︎ Grüße"])))
    }
}

@Suite("Command responses (SPEC §2)")
struct CommandResponseTests {
    @Test("the error codes are exactly those SPEC §2 lists")
    func codes() {
        let spec: Set<String> = ["invalid_json", "invalid_field", "unknown_verb", "not_found", "too_large", "conflict", "unavailable", "internal"]
        #expect(Set(CommandError.Code.allCases.map(\.rawValue)) == spec)
    }

    @Test("an ok response has status ok and the data, and no transaction when none was sent")
    func okWithoutTransaction() throws {
        let response = CommandResponse(.success(["volume": 55]), transaction: nil)
        #expect(response.isOK)
        let members = try #require(response.json.objectValue)
        #expect(members == ["status": "ok", "data": ["volume": 55]])
        #expect(members["transaction"] == nil)
        #expect(!response.json.serialized.contains("transaction"))
    }

    @Test("an ok response echoes the transaction")
    func okWithTransaction() {
        let response = CommandResponse(.success(.null), transaction: "t-1")
        #expect(response.json == ["status": "ok", "data": nil, "transaction": "t-1"])
    }

    @Test("an error response carries code, message and field")
    func errorWithField() {
        let response = CommandResponse(.failure(.invalidField("volume", "must be from 0 to 100, not 101")), transaction: 7)
        #expect(!response.isOK)
        #expect(response.json == [
            "status": "error",
            "error": ["code": "invalid_field", "message": "must be from 0 to 100, not 101", "field": "volume"],
            "transaction": 7,
        ])
    }

    @Test("an error without a field has no field member and no transaction when none was sent")
    func errorWithoutField() throws {
        let response = CommandResponse(.failure(CommandError(.unknownVerb, "unknown verb \"x\"")), transaction: nil)
        let error = try #require(response.json[member: "error"]?.objectValue)
        #expect(error["code"] == "unknown_verb")
        #expect(error["field"] == nil)
        #expect(response.json[member: "transaction"] == nil)
        #expect(response.json[member: "status"] == "error")
    }

    @Test("the bytes sent are the response's JSON, written from its parts", arguments: [
        CommandResponse(.success(["volume": 55, "zone": ["a": [1, "ü\u{1}"], "b": nil]]), transaction: nil),
        CommandResponse(.success(.null), transaction: "t-1"),
        CommandResponse(.success("pong"), transaction: ["nested": [true, false]]),
        CommandResponse(.failure(.invalidField("volume", "must be from 0 to 100, not 101")), transaction: 7),
        CommandResponse(.failure(CommandError(.unknownVerb, "unknown verb \"x\"")), transaction: nil),
        CommandResponse(.failure(CommandError(.internal, "x")), transaction: .null),
    ])
    func serializedBytes(response: CommandResponse) throws {
        #expect(response.serializedBytes == response.json.serializedBytes)
        #expect(try JSONValue.parse(response.serializedBytes) == response.json)
    }

    @Test("a null transaction sent by the client is echoed as null")
    func nullTransactionEchoed() {
        let (_, transaction) = decodePayload(#"{"transaction":null}"#)
        let response = CommandResponse(.success(.null), transaction: transaction)
        #expect(response.json[member: "transaction"] == .null)
    }

    @Test("an error describes itself with its code and field")
    func errorDescription() {
        let error = CommandError.invalidField("volume", "too loud")
        #expect(error.description.contains("invalid_field"))
        #expect(error.description.contains("volume"))
        #expect(error.description.contains("too loud"))
        #expect(!CommandError(.internal, "boom").description.contains("("))
    }
}

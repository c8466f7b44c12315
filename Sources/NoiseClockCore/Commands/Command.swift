/// A command payload after the transport-independent checks of SPEC §2: size, UTF-8, and which
/// of the three forms it takes (nothing/`PRESS`, a JSON object, or one bare value).
public enum CommandPayload: Sendable, Hashable {
    case empty
    case object([String: JSONValue])
    case bare(JSONValue)

    /// The largest payload accepted; larger ones are answered `too_large`.
    public static let maxBytes = 64 * 1024

    /// Classifies raw payload bytes. The `transaction` member of an object is returned apart, so
    /// it can be echoed even when the command itself turns out to be invalid.
    public static func decode(_ bytes: [UInt8]) -> (payload: Result<CommandPayload, CommandError>, transaction: JSONValue?) {
        // `ping`, `snooze`, `dismiss`: most commands come without a payload.
        if bytes.isEmpty { return (.success(.empty), nil) }
        guard bytes.count <= maxBytes else {
            return (.failure(CommandError(.tooLarge, "payload is \(bytes.count) bytes; the limit is \(maxBytes)", field: "payload")), nil)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return (.failure(CommandError(.invalidJSON, "payload is not valid UTF-8", field: "payload")), nil)
        }
        // A byte-order mark (some editors and shells add one) is not part of the command.
        // Forms are told apart by the first code point, not the first Character: `{` followed by a
        // combining mark is one Character, but still an object that is not valid JSON.
        let unmarked = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        let trimmed = unmarked.trimmingWhitespace()
        let first = trimmed.utf8.first
        if trimmed.isEmpty || trimmed == "PRESS" {
            return (.success(.empty), nil)
        }
        if first == UInt8(ascii: "{") {
            let value: JSONValue
            do {
                value = try JSONValue.parse(Array(trimmed.utf8))
            } catch {
                return (.failure(CommandError(.invalidJSON, "payload is not valid JSON: \(error.reason)", field: "payload")), nil)
            }
            guard var members = value.objectValue else {
                return (.failure(CommandError(.invalidJSON, "payload must be a JSON object", field: "payload")), nil)
            }
            let transaction = members.removeValue(forKey: "transaction")
            return (.success(.object(members)), transaction)
        }
        if first == UInt8(ascii: "[") {
            return (.failure(CommandError(.invalidJSON, "payload must be a JSON object or a single value, not an array", field: "payload")), nil)
        }
        // A bare value: a JSON scalar when it parses as one (55, "rain", true), else the text itself (rain, ON).
        if let scalar = try? JSONValue.parse(Array(trimmed.utf8)) {
            if scalar.objectValue != nil || { if case .array = scalar { true } else { false } }() {
                return (.failure(CommandError(.invalidJSON, "payload must be a JSON object or a single value", field: "payload")), nil)
            }
            return (.success(.bare(scalar)), nil)
        }
        return (.success(.bare(.string(trimmed))), nil)
    }
}

/// What a verb accepts, so that a bare value can be turned into its object form.
public enum CommandShape: Sendable, Hashable {
    /// No argument: only an empty payload, `PRESS` or `{}` (plus `transaction`).
    case none
    /// A JSON object; a bare value is accepted as the given member (`55` → `{"volume":55}`).
    case object(bareValue: String?)
}

/// The arguments of one command, with typed accessors that name the field at fault.
public struct CommandArguments: Sendable, Hashable {
    public var values: [String: JSONValue]
    /// Values taken from the topic, e.g. `id` in `alarm/ID/enabled`.
    public var path: [String: String]

    public init(_ values: [String: JSONValue] = [:], path: [String: String] = [:]) {
        self.values = values
        self.path = path
    }

    public init(payload: CommandPayload, shape: CommandShape, verb: String, path: [String: String] = [:]) throws(CommandError) {
        switch (payload, shape) {
        case (.empty, _):
            self.init([:], path: path)
        case (.object(let members), .none):
            if let extra = members.keys.sorted().first {
                throw .invalidField(extra, "\(verb) takes no argument")
            }
            self.init([:], path: path)
        case (.object(let members), .object):
            self.init(members, path: path)
        case (.bare, .none):
            throw CommandError(.invalidField, "\(verb) takes no argument; send an empty payload, PRESS or {}", field: "payload")
        case (.bare(let value), .object(let member)):
            guard let member else {
                throw CommandError(.invalidJSON, "\(verb) expects a JSON object", field: "payload")
            }
            self.init([member: value], path: path)
        }
    }

    public func has(_ key: String) -> Bool { values[key] != nil }

    /// A string that must be there; `invalid_field` with `message` when it is missing.
    public func requiredString(_ key: String, _ message: String) throws(CommandError) -> String {
        guard let value = try string(key) else { throw .invalidField(key, message) }
        return value
    }

    /// A whole number in `range` that must be there; `invalid_field` with `message` when it is missing.
    public func requiredInt(_ key: String, in range: ClosedRange<Int>, _ message: String) throws(CommandError) -> Int {
        guard let value = try int(key, in: range) else { throw .invalidField(key, message) }
        return value
    }

    /// Rejects any member not in `allowed`, naming the first unknown one.
    public func allowOnly(_ allowed: Set<String>) throws(CommandError) {
        if let unknown = values.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw .invalidField(unknown, "unknown field; expected one of \(allowed.sorted().joined(separator: ", "))")
        }
    }

    public func string(_ key: String) throws(CommandError) -> String? {
        guard let value = values[key] else { return nil }
        guard let s = value.stringValue else { throw .invalidField(key, "must be a string, not \(value.typeName)") }
        return s
    }

    /// A boolean; also accepts `ON`/`OFF` (Home Assistant switches) and `true`/`false` as text.
    public func bool(_ key: String) throws(CommandError) -> Bool? {
        guard let value = values[key] else { return nil }
        if let b = value.boolValue { return b }
        if let s = value.stringValue {
            switch s.lowercased() {
            case "on", "true": return true
            case "off", "false": return false
            default: break
            }
        }
        throw .invalidField(key, "must be true or false (or ON/OFF), not \(value.serialized)")
    }

    public func int(_ key: String, in range: ClosedRange<Int>) throws(CommandError) -> Int? {
        guard let value = values[key] else { return nil }
        let number: Int
        if let n = value.intValue {
            number = n
        } else if let s = value.stringValue, let n = Int(s) {
            number = n
        } else {
            throw .invalidField(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value.serialized)")
        }
        guard range.contains(number) else {
            throw .invalidField(key, "must be from \(range.lowerBound) to \(range.upperBound), not \(number)")
        }
        return number
    }
}

/// A verb name with `{name}` placeholders for topic segments, e.g. `alarm/{id}/enabled`.
public struct VerbPattern: Sendable, Hashable, CustomStringConvertible {
    public let segments: [String]

    public init(_ pattern: String) {
        segments = pattern.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }

    public var description: String { segments.joined(separator: "/") }

    /// Whether any segment is a placeholder (`{id}`): without one, only the pattern's own text matches.
    public var hasPlaceholders: Bool { segments.contains(where: Self.isPlaceholder) }

    private static func isPlaceholder(_ segment: String) -> Bool { segment.hasPrefix("{") && segment.hasSuffix("}") }

    /// The placeholder values when `verb` matches, else nil.
    public func match(_ verb: String) -> [String: String]? {
        match(parts: verb.split(separator: "/", omittingEmptySubsequences: false))
    }

    /// `match` for a verb split at its slashes once for all the routes.
    public func match(parts: [Substring]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var captured: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            if Self.isPlaceholder(segment) {
                guard !part.isEmpty else { return nil }
                captured[String(segment.dropFirst().dropLast())] = String(part)
            } else if segment != part {
                return nil
            }
        }
        return captured
    }
}

/// The answer to a command, as SPEC §2 spells it.
public struct CommandResponse: Sendable, Hashable {
    public var result: Result<JSONValue, CommandError>
    public var transaction: JSONValue?

    public init(_ result: Result<JSONValue, CommandError>, transaction: JSONValue?) {
        self.result = result
        self.transaction = transaction
    }

    public var isOK: Bool {
        if case .success = result { return true }
        return false
    }

    public var json: JSONValue {
        var members: [String: JSONValue]
        switch result {
        case .success(let data): members = ["status": "ok", "data": data]
        case .failure(let error): members = ["status": "error", "error": error.json]
        }
        if let transaction { members["transaction"] = transaction }
        return .object(members)
    }

    /// `json.serializedBytes`, written straight from the parts: every MQTT answer is sent so.
    public var serializedBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        // Members in the order `serializedBytes` sorts them: data or error, status, transaction.
        switch result {
        case .success(let data):
            out.append(contentsOf: #"{"data":"#.utf8)
            data.write(to: &out)
            out.append(contentsOf: #","status":"ok""#.utf8)
        case .failure(let error):
            out.append(contentsOf: #"{"error":"#.utf8)
            error.json.write(to: &out)
            out.append(contentsOf: #","status":"error""#.utf8)
        }
        if let transaction {
            out.append(contentsOf: #","transaction":"#.utf8)
            transaction.write(to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

extension String {
    /// The string without white space (and newlines) at either end, in one pass over each end:
    /// `dropLast()` counts the whole string each time, which made a command padded with 60 KiB of
    /// spaces cost the loop seconds.
    public func trimmingWhitespace() -> String {
        var start = startIndex, end = endIndex
        while start < end, self[start].isWhitespace { start = index(after: start) }
        while start < end {
            let before = index(before: end)
            guard self[before].isWhitespace else { break }
            end = before
        }
        return String(self[start..<end])
    }
}

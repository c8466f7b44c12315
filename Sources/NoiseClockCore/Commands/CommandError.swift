/// Why a command was rejected. The same value becomes the MQTT error response, so the user reads
/// what the code knew: a code from SPEC §2, a sentence, and the field at fault when there is one.
public struct CommandError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case invalidJSON = "invalid_json"
        case invalidField = "invalid_field"
        case unknownVerb = "unknown_verb"
        case notFound = "not_found"
        case tooLarge = "too_large"
        case conflict
        case unavailable
        case `internal`
    }

    public var code: Code
    public var message: String
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public static func invalidField(_ field: String, _ message: String) -> CommandError {
        CommandError(.invalidField, message, field: field)
    }

    public var description: String {
        if let field { return "\(code.rawValue) (\(field)): \(message)" }
        return "\(code.rawValue): \(message)"
    }

    public var json: JSONValue {
        var error: [String: JSONValue] = ["code": .string(code.rawValue), "message": .string(message)]
        if let field { error["field"] = .string(field) }
        return .object(error)
    }
}

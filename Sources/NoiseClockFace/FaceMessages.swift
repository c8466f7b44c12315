import NoiseClockCore
import NoiseClockHub

/// What travels over the face's WebSocket (SPEC §9), and how a command's answer maps to HTTP.
public enum FaceMessages {
    /// `{"type":"state","topic":…,"payload":…}` or `{"type":"event","payload":…}`.
    public static func encode(_ change: StateChange) -> [UInt8] {
        switch change {
        case .state(let topic, let value):
            (["type": "state", "topic": .string(topic), "payload": value] as JSONValue).serializedBytes
        case .event(let event):
            (["type": "event", "payload": event] as JSONValue).serializedBytes
        }
    }

    /// `{"type":"response","id":…,"payload":<the response object MQTT would carry>}`.
    public static func response(id: JSONValue, _ payload: JSONValue) -> [UInt8] {
        (["type": "response", "id": id, "payload": payload] as JSONValue).serializedBytes
    }

    /// A command a client sent: its id (echoed in the response), its verb, and its payload as the
    /// bytes the MQTT path would get, so the router validates both alike.
    public struct Command: Sendable, Hashable {
        public var id: JSONValue
        public var verb: String
        public var payload: [UInt8]
    }

    /// The command in a client's text frame, or the error response to send back (with the id when
    /// the frame had a usable one). `payload` may be any JSON value or absent: an object or a
    /// scalar is serialized (as an MQTT client would send it), absent is the empty payload.
    public static func command(from frame: [UInt8]) -> Result<Command, Rejection> {
        guard let value = try? JSONValue.parse(frame), let members = value.objectValue else {
            return .failure(Rejection(id: .null, error: CommandError(.invalidJSON, "a frame must be a JSON object", field: "frame")))
        }
        let id = members["id"] ?? .null
        switch id {
        case .string, .number, .null: break
        default:
            return .failure(Rejection(id: .null, error: CommandError(.invalidJSON, "id must be a string or a number", field: "id")))
        }
        guard members["type"] == "command" else {
            return .failure(Rejection(id: id, error: CommandError(.invalidJSON, "type must be \"command\"", field: "type")))
        }
        guard let verb = members["verb"]?.stringValue, !verb.isEmpty else {
            return .failure(Rejection(id: id, error: CommandError(.invalidJSON, "verb must be a non-empty string", field: "verb")))
        }
        let payload = members["payload"].map(\.serializedBytes) ?? []
        return .success(Command(id: id, verb: verb, payload: payload))
    }

    public struct Rejection: Error, Sendable, Hashable {
        public var id: JSONValue
        public var error: CommandError

        /// The frame to answer with: the same error object a command response carries.
        public var frame: [UInt8] { FaceMessages.response(id: id, CommandResponse(.failure(error), transaction: nil).json) }
    }

    /// The HTTP status of `POST /api/cmd/VERB`, from the response's error code:
    ///
    /// | response | HTTP |
    /// |---|---|
    /// | ok | 200 |
    /// | invalid_json, invalid_field | 400 |
    /// | unknown_verb, not_found | 404 |
    /// | conflict | 409 |
    /// | too_large | 413 |
    /// | unavailable | 503 |
    /// | internal, anything else | 500 |
    public static func httpStatus(of response: JSONValue) -> Int {
        if response["status"] == "ok" { return 200 }
        return switch response["error"]?["code"]?.stringValue.flatMap(CommandError.Code.init(rawValue:)) {
        case .invalidJSON, .invalidField: 400
        case .unknownVerb, .notFound: 404
        case .conflict: 409
        case .tooLarge: 413
        case .unavailable: 503
        case .internal, nil: 500
        }
    }
}

extension JSONValue {
    subscript(member: String) -> JSONValue? { objectValue?[member] }
}

import CMosquitto

/// A libmosquitto failure: what the client was doing and why, with libmosquitto's own text.
public struct MQTTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// libmosquitto's error codes (`MOSQ_ERR_*`), by name. Codes this version does not know keep
    /// their number.
    public enum Code: Hashable, Sendable {
        case noMemory, protocolError, invalid, notConnected, connectionRefused, notFound, connectionLost, tls
        case payloadSize, notSupported, authentication, accessDenied, unknown, system, lookupFailed, proxy
        case malformedUTF8, keepalive, malformedPacket, duplicateProperty, tlsHandshake, qosNotSupported
        case oversizePacket, ocsp, timeout, retainNotSupported, topicAliasInvalid, administrativeAction
        case other(Int32)

        private static let known: [(Code, mosq_err_t)] = [
            (.noMemory, MOSQ_ERR_NOMEM), (.protocolError, MOSQ_ERR_PROTOCOL), (.invalid, MOSQ_ERR_INVAL),
            (.notConnected, MOSQ_ERR_NO_CONN), (.connectionRefused, MOSQ_ERR_CONN_REFUSED), (.notFound, MOSQ_ERR_NOT_FOUND),
            (.connectionLost, MOSQ_ERR_CONN_LOST), (.tls, MOSQ_ERR_TLS), (.payloadSize, MOSQ_ERR_PAYLOAD_SIZE),
            (.notSupported, MOSQ_ERR_NOT_SUPPORTED), (.authentication, MOSQ_ERR_AUTH), (.accessDenied, MOSQ_ERR_ACL_DENIED),
            (.unknown, MOSQ_ERR_UNKNOWN), (.system, MOSQ_ERR_ERRNO), (.lookupFailed, MOSQ_ERR_EAI), (.proxy, MOSQ_ERR_PROXY),
            (.malformedUTF8, MOSQ_ERR_MALFORMED_UTF8), (.keepalive, MOSQ_ERR_KEEPALIVE),
            (.malformedPacket, MOSQ_ERR_MALFORMED_PACKET), (.duplicateProperty, MOSQ_ERR_DUPLICATE_PROPERTY),
            (.tlsHandshake, MOSQ_ERR_TLS_HANDSHAKE), (.qosNotSupported, MOSQ_ERR_QOS_NOT_SUPPORTED),
            (.oversizePacket, MOSQ_ERR_OVERSIZE_PACKET), (.ocsp, MOSQ_ERR_OCSP), (.timeout, MOSQ_ERR_TIMEOUT),
            (.retainNotSupported, MOSQ_ERR_RETAIN_NOT_SUPPORTED), (.topicAliasInvalid, MOSQ_ERR_TOPIC_ALIAS_INVALID),
            (.administrativeAction, MOSQ_ERR_ADMINISTRATIVE_ACTION),
        ]

        /// The code libmosquitto returned.
        init(_ rawValue: Int32) {
            self = Self.known.first { $0.1.rawValue == rawValue }?.0 ?? .other(rawValue)
        }

        var rawValue: Int32 {
            if case .other(let value) = self { return value }
            return Self.known.first { $0.0 == self }?.1.rawValue ?? MOSQ_ERR_UNKNOWN.rawValue
        }
    }

    public var operation: String
    public var code: Code

    public init(operation: String, code: Code) {
        self.operation = operation
        self.code = code
    }

    init(operation: String, rawCode: Int32) {
        self.init(operation: operation, code: Code(rawCode))
    }

    public var description: String {
        "\(operation): \(String(cString: mosquitto_strerror(code.rawValue)))"
    }
}

/// The clock face's server (SPEC §9): `face.*`.
extension Configuration {
    public struct Face: Sendable, Hashable {
        public var enabled: Bool
        /// An IP address to listen on (`127.0.0.1`, `::1`, `0.0.0.0`, `::`, one interface's address) or `localhost`.
        public var bind: String
        public var port: Int
        /// A file whose first line is the access token; required when `bind` is not loopback.
        public var tokenFile: String
        /// The face's static files; empty: the installed copy, else the checkout's `Resources/face`.
        public var directory: String

        public init(enabled: Bool = true, bind: String = "127.0.0.1", port: Int = 8080, tokenFile: String = "", directory: String = "") {
            self.enabled = enabled
            self.bind = bind
            self.port = port
            self.tokenFile = tokenFile
            self.directory = directory
        }

        /// Whether `bind` is loopback in the sense of the token rule: exactly `127.0.0.1`, `::1` or
        /// `localhost`. Every other address needs the token, other addresses of 127.0.0.0/8 too: the
        /// rule is an allowlist of the two addresses a kiosk on the node itself uses, not a range.
        public var isLoopback: Bool { Self.loopbackBinds.contains(bind.lowercased()) }

        public static let loopbackBinds: Set<String> = ["127.0.0.1", "::1", "localhost"]

        /// Whether the face asks every request for the token: off loopback, or whenever a token
        /// file is configured (the user asked for one).
        public var requiresToken: Bool { !isLoopback || !tokenFile.isEmpty }
    }
}

extension ConfigurationSchema {
    static let faceKeys: [ConfigKey] = [
        ConfigKey(path: "face.enabled", kind: .boolean, defaultValue: "true", secret: false),
        ConfigKey(path: "face.bind", kind: .bindAddress, defaultValue: "127.0.0.1", secret: false),
        ConfigKey(path: "face.port", kind: .integer(1...65535), defaultValue: "8080", secret: false),
        ConfigKey(path: "face.token_file", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "face.dir", kind: .text, defaultValue: "", secret: false),
    ]

    /// The `face.*` section from resolved values; a bind off loopback without a token file is an
    /// error naming `face.token_file`.
    static func face(_ resolved: [String: ResolvedValue]) throws(ConfigurationError) -> Configuration.Face {
        func string(_ path: String) -> String { resolved[path]?.value ?? "" }
        let face = Configuration.Face(
            enabled: string("face.enabled") == "true", bind: string("face.bind"), port: Int(string("face.port")) ?? 8080,
            tokenFile: string("face.token_file"), directory: string("face.dir"))
        if face.enabled, !face.isLoopback, face.tokenFile.isEmpty {
            throw ConfigurationError(
                key: "face.token_file", source: resolved["face.token_file"]?.source ?? "default",
                reason: "required when face.bind (\(face.bind)) is not loopback (127.0.0.1, ::1 or localhost): "
                    + "a file holding the token every browser must present")
        }
        return face
    }

    /// Nil when `value` is an IPv4 or IPv6 address literal or `localhost`, else the reason.
    static func bindProblem(_ value: String) -> String? {
        if value.lowercased() == "localhost" || isIPv4(value) || isIPv6(value) { return nil }
        return "must be an IP address (127.0.0.1, ::1, 0.0.0.0, ::, or one of this machine's) or localhost, not \"\(value)\""
    }

    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && (Int(part) ?? 256) <= 255
        }
    }

    static func isIPv6(_ text: String) -> Bool {
        guard text.contains(":"), text.count <= 45 else { return false }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return false }
        var groups = 0
        for half in halves where !half.isEmpty {
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() {
                // An embedded IPv4 address (::ffff:127.0.0.1) may end the last half.
                if index == parts.count - 1, half.endIndex == text.endIndex, part.contains(".") {
                    guard isIPv4(String(part)) else { return false }
                    groups += 2
                    continue
                }
                guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit) else { return false }
                groups += 1
            }
        }
        return halves.count == 2 ? groups < 8 : groups == 8
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

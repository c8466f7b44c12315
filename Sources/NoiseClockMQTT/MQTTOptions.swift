/// How to reach the broker. Secrets (`password`) are never logged by the client.
public struct MQTTOptions: Sendable {
    public enum ProtocolVersion: Sendable, Hashable { case v5, v311 }

    public struct TLS: Sendable, Hashable {
        /// A CA file to verify the broker; empty uses the system's certificates in /etc/ssl/certs.
        public var caFile: String
        public var certFile: String
        public var keyFile: String
        /// Skips the host-name check of the broker's certificate. Never the default.
        public var insecure: Bool

        public init(caFile: String = "", certFile: String = "", keyFile: String = "", insecure: Bool = false) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
            self.insecure = insecure
        }
    }

    /// The retained availability topic: `online` after every connect, `offline` as the last will
    /// and on a clean stop.
    public struct Availability: Sendable, Hashable {
        public var topic: String
        public var online: String
        public var offline: String

        public init(topic: String, online: String = "online", offline: String = "offline") {
            self.topic = topic
            self.online = online
            self.offline = offline
        }
    }

    public var host: String
    public var port: Int
    public var clientID: String
    public var username: String?
    public var password: String?
    public var protocolVersion: ProtocolVersion
    public var keepaliveSeconds: Int
    public var tls: TLS?
    public var availability: Availability?
    /// Reconnect delays double from `minimumReconnectDelay` up to `maximumReconnectDelay`.
    public var minimumReconnectDelay: Duration
    public var maximumReconnectDelay: Duration
    /// Messages that wait while the broker is away or slow; past this the oldest non-retained one is dropped.
    public var queueLimit: Int
    /// Messages handed to libmosquitto and not yet acknowledged; more wait in the queue above.
    public var inFlightLimit: Int

    public init(
        host: String = "127.0.0.1", port: Int = 1883, clientID: String, username: String? = nil,
        password: String? = nil, protocolVersion: ProtocolVersion = .v5, keepaliveSeconds: Int = 30,
        tls: TLS? = nil, availability: Availability? = nil, minimumReconnectDelay: Duration = .seconds(1),
        maximumReconnectDelay: Duration = .seconds(30), queueLimit: Int = 1000, inFlightLimit: Int = 200
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.username = username
        self.password = password
        self.protocolVersion = protocolVersion
        self.keepaliveSeconds = keepaliveSeconds
        self.tls = tls
        self.availability = availability
        self.minimumReconnectDelay = minimumReconnectDelay
        self.maximumReconnectDelay = maximumReconnectDelay
        self.queueLimit = queueLimit
        self.inFlightLimit = inFlightLimit
    }
}

/// The next wait after a failed attempt: doubled, capped, spread at random.
public struct ReconnectBackoff: Sendable, Hashable {
    public let minimum: Duration
    public let maximum: Duration
    public private(set) var next: Duration

    public init(minimum: Duration, maximum: Duration) {
        self.minimum = minimum
        self.maximum = maximum
        next = minimum
    }

    /// How much later than its doubling step an attempt may come, at random (a quarter): after a
    /// broker restart, a building of clocks that lost it together does not knock at the same
    /// instant on every step (docs/scaling.md).
    public static let spread = 0.25

    /// The delay to wait now: the doubling step (1 s, 2 s, 4 s … up to the maximum) made up to
    /// `spread` longer at random, never past the maximum. The next step is twice this one's.
    public mutating func take() -> Duration {
        let step = next
        next = min(next * 2, maximum)
        let stretched = step * (1 + Double.random(in: 0..<Self.spread))
        return min(stretched, max(step, maximum))
    }

    public mutating func reset() { next = minimum }
}

import NoiseClockCore

/// What `B/status` reports of the face (SPEC §9): `"face":{"url","ok","error","clients"}`.
public struct FaceStatus: Sendable, Hashable {
    /// Where a browser on this machine (or the LAN, off loopback) opens the face.
    public var url: String
    public var ok: Bool
    public var error: String?
    /// WebSocket clients connected now.
    public var clients: Int

    public init(url: String, ok: Bool, error: String? = nil, clients: Int = 0) {
        self.url = url
        self.ok = ok
        self.error = error
        self.clients = clients
    }

    public var json: JSONValue {
        ["url": .string(url), "ok": .bool(ok), "error": error.map { .string($0) } ?? .null, "clients": .number(Double(clients))]
    }
}

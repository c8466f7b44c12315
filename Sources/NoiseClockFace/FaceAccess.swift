/// Who may use the face (SPEC §8): the token, the cookie that carries it, and the Origin and Host
/// checks. Pure: the HTTP handler hands it header values and acts on its verdict.
public struct FaceAccess: Sendable {
    public static let cookieName = "noiseclock_token"
    /// A year: a tablet on the nightstand should not ask again after each restart of its browser.
    static let cookieMaxAge = 365 * 24 * 3600

    /// The token every request must carry; nil when none is needed (loopback without a token file).
    let token: [UInt8]?

    public init(token: String?) {
        self.token = token.map { Array($0.utf8) }
    }

    public var requiresToken: Bool { token != nil }

    public enum Verdict: Sendable, Hashable {
        case allowed
        /// No valid token: 401.
        case unauthorized
        /// A foreign Origin, or (without a token) a Host that is not a loopback name: 403.
        case forbidden(String)
    }

    /// The verdict for a request with these header values (each list holds every occurrence).
    /// `authorization` and `cookies` are read only when a token is needed; `origin` is checked on
    /// state-changing requests and WebSocket upgrades (`checkOrigin`).
    public func verdict(host: String?, origin: String?, authorization: [String], cookies: [String], checkOrigin: Bool) -> Verdict {
        if token == nil, !Self.isLoopbackHost(host) {
            // Without a token only the node's own browsers use the face; a page of another site
            // whose name an attacker points at 127.0.0.1 (DNS rebinding) arrives with its own Host.
            return .forbidden("Host \(host ?? "(none)") is not a loopback name")
        }
        if checkOrigin, !Self.isSameOrigin(origin: origin, host: host) {
            return .forbidden("Origin \(origin ?? "") is not this face's (http://\(host ?? ""))")
        }
        if token != nil, !isAuthorized(authorization: authorization, cookies: cookies) { return .unauthorized }
        return .allowed
    }

    /// Whether the request carries the token, as `Authorization: Bearer T` or as the cookie.
    public func isAuthorized(authorization: [String], cookies: [String]) -> Bool {
        guard let token else { return true }
        var presented: [String] = []
        for value in authorization {
            let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" { presented.append(parts[1].trimmingSpaces()) }
        }
        if let fromCookie = Self.cookie(named: Self.cookieName, in: cookies) { presented.append(fromCookie) }
        // Every candidate is compared in full, so the time taken tells nothing about the token.
        var matched = false
        for candidate in presented where Self.constantTimeEqual(Array(candidate.utf8), token) { matched = true }
        return matched
    }

    /// Whether `candidate` equals `token`: time depends on their lengths only, never on where they differ.
    public static func constantTimeEqual(_ candidate: [UInt8], _ token: [UInt8]) -> Bool {
        var difference: UInt8 = candidate.count == token.count ? 0 : 1
        for index in token.indices {
            let other = index < candidate.count ? candidate[index] : 0
            difference |= other ^ token[index]
        }
        return difference == 0
    }

    /// The token of `?token=T` on `GET /` (percent-decoded), if that query has one.
    public static func queryToken(_ query: Substring) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == "token", let value = FacePath.percentDecoded(parts[1]) {
                return String(decoding: value, as: UTF8.self)
            }
        }
        return nil
    }

    /// Whether `?token=T` holds the token: then `GET /` sets the cookie and redirects to `/`.
    public func acceptsQueryToken(_ query: Substring) -> Bool {
        guard let token, let presented = Self.queryToken(query) else { return false }
        return Self.constantTimeEqual(Array(presented.utf8), token)
    }

    /// The `Set-Cookie` value that carries the token from then on. Not `Secure`: the face is plain
    /// HTTP on the LAN. `HttpOnly`: the page's scripts never see it; `SameSite=Strict`: no other
    /// site's page sends it along.
    public var setCookie: String? {
        guard let token else { return nil }
        return "\(Self.cookieName)=\(String(decoding: token, as: UTF8.self)); Path=/; Max-Age=\(Self.cookieMaxAge); HttpOnly; SameSite=Strict"
    }

    /// The value of cookie `name` in `Cookie` headers (`a=1; b=2`), if present.
    public static func cookie(named name: String, in headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2, parts[0].trimmingSpaces() == name { return parts[1].trimmingSpaces() }
            }
        }
        return nil
    }

    /// A request without `Origin` comes from a script or curl, not from a page: allowed (the token
    /// rule still holds). A browser's `Origin` must name the host the request came to, over http.
    public static func isSameOrigin(origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        guard let host, !host.isEmpty else { return false }
        return origin.lowercased() == "http://\(host.lowercased())"
    }

    /// Whether a `Host` header names this machine's loopback: `localhost`, an address of
    /// 127.0.0.0/8 or `[::1]`, with or without a port.
    public static func isLoopbackHost(_ host: String?) -> Bool {
        guard let host = host?.lowercased(), !host.isEmpty else { return false }
        var name = Substring(host)
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return false }
            return name[name.index(after: name.startIndex)..<close] == "::1"
        }
        if let colon = name.lastIndex(of: ":") {
            guard name[name.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return false }
            name = name[..<colon]
        }
        if name == "localhost" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && (Int($0) ?? 256) <= 255 }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

import NoiseClockFace
import Testing

@Suite("Face access: token, cookie, Origin and Host (SPEC §8)")
struct FaceAccessTests {
    static let token = "s3cret-Token_0123456789"
    let access = FaceAccess(token: FaceAccessTests.token)
    let open = FaceAccess(token: nil)

    @Test("Authorization: Bearer with the token is accepted; another token, another scheme or none is not")
    func bearer() {
        #expect(access.isAuthorized(authorization: ["Bearer \(Self.token)"], cookies: []))
        #expect(access.isAuthorized(authorization: ["bearer \(Self.token)"], cookies: []))
        #expect(!access.isAuthorized(authorization: ["Bearer \(Self.token)x"], cookies: []))
        #expect(!access.isAuthorized(authorization: ["Bearer \(Self.token.dropLast())"], cookies: []))
        #expect(!access.isAuthorized(authorization: ["Basic \(Self.token)"], cookies: []))
        #expect(!access.isAuthorized(authorization: ["Bearer"], cookies: []))
        #expect(!access.isAuthorized(authorization: [], cookies: []))
        #expect(open.isAuthorized(authorization: [], cookies: []))
    }

    @Test("the cookie carries the token among other cookies; a cookie of another name does not")
    func cookie() {
        #expect(access.isAuthorized(authorization: [], cookies: ["theme=night; noiseclock_token=\(Self.token); x=1"]))
        #expect(access.isAuthorized(authorization: [], cookies: ["a=b", "noiseclock_token=\(Self.token)"]))
        #expect(!access.isAuthorized(authorization: [], cookies: ["other_token=\(Self.token)"]))
        #expect(!access.isAuthorized(authorization: [], cookies: ["noiseclock_token=wrong"]))
        #expect(FaceAccess.cookie(named: "b", in: ["a=1; b = 2 ;c=3"]) == "2")
    }

    @Test("Set-Cookie is HttpOnly and SameSite=Strict, for the whole site, and only with a token")
    func setCookie() throws {
        let header = try #require(access.setCookie)
        #expect(header.hasPrefix("noiseclock_token=\(Self.token);"))
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] { #expect(header.contains(attribute), "\(attribute)") }
        #expect(open.setCookie == nil)
    }

    @Test("?token= is read from the query, percent-decoded, and compared")
    func queryToken() {
        #expect(FaceAccess.queryToken("token=abc") == "abc")
        #expect(FaceAccess.queryToken("x=1&token=a%2Db") == "a-b")
        #expect(FaceAccess.queryToken("tokens=abc") == nil)
        #expect(access.acceptsQueryToken("token=\(Self.token)"))
        #expect(!access.acceptsQueryToken("token=nope"))
        #expect(!open.acceptsQueryToken("token=\(Self.token)"))
    }

    @Test("constant-time comparison: equal only for the same bytes, whatever the lengths")
    func constantTime() {
        let token = Array("abcdef".utf8)
        #expect(FaceAccess.constantTimeEqual(token, token))
        #expect(!FaceAccess.constantTimeEqual(Array("abcdeg".utf8), token))
        #expect(!FaceAccess.constantTimeEqual(Array("abcde".utf8), token))
        #expect(!FaceAccess.constantTimeEqual(Array("abcdef\0".utf8), token))
        #expect(!FaceAccess.constantTimeEqual([], token))
        // Lengths 256 apart must not wrap into "equal".
        #expect(!FaceAccess.constantTimeEqual(token + Array(repeating: 0, count: 256), token))
    }

    @Test("Origin: absent (a script) or this host over http is ours; any other is foreign", arguments: [
        (nil, "127.0.0.1:8080", true), ("http://127.0.0.1:8080", "127.0.0.1:8080", true),
        ("http://LOCALHOST:8080", "localhost:8080", true), ("http://evil.example", "127.0.0.1:8080", false),
        ("http://127.0.0.1:8081", "127.0.0.1:8080", false), ("https://127.0.0.1:8080", "127.0.0.1:8080", false),
        ("null", "127.0.0.1:8080", false), ("http://127.0.0.1:8080", nil, false),
    ] as [(String?, String?, Bool)])
    func origin(origin: String?, host: String?, same: Bool) {
        #expect(FaceAccess.isSameOrigin(origin: origin, host: host) == same)
    }

    @Test("Host names of this machine's loopback", arguments: [
        ("127.0.0.1:8080", true), ("localhost", true), ("LOCALHOST:80", true), ("127.1.2.3:1", true), ("[::1]:8080", true),
        ("[::1]", true), ("evil.example:8080", false), ("127.0.0.1.evil.example", false), ("192.168.1.2:8080", false),
        ("[::2]:8080", false), ("127.0.0.1:80x", false), ("", false),
    ])
    func loopbackHost(host: String, loopback: Bool) {
        #expect(FaceAccess.isLoopbackHost(host) == loopback)
    }

    @Test("without a token only loopback Host names get in (DNS rebinding); with one, the token decides")
    func verdicts() {
        #expect(open.verdict(host: "127.0.0.1:8080", origin: nil, authorization: [], cookies: [], checkOrigin: true) == .allowed)
        if case .forbidden = open.verdict(host: "rebound.example:8080", origin: nil, authorization: [], cookies: [], checkOrigin: false) {
        } else {
            Issue.record("a foreign Host was let in without a token")
        }
        #expect(access.verdict(host: "clock.lan:8080", origin: nil, authorization: [], cookies: [], checkOrigin: false) == .unauthorized)
        #expect(
            access.verdict(host: "clock.lan:8080", origin: nil, authorization: ["Bearer \(Self.token)"], cookies: [], checkOrigin: false)
                == .allowed)
        // A foreign Origin is refused even with the token (a page elsewhere riding the cookie).
        if case .forbidden = access.verdict(
            host: "clock.lan:8080", origin: "http://evil.example", authorization: [], cookies: ["noiseclock_token=\(Self.token)"],
            checkOrigin: true)
        {
        } else {
            Issue.record("a foreign Origin was let in")
        }
    }
}

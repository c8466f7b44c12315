import NoiseClockCore
import Testing

@Suite("Configuration: the face (SPEC §9)")
struct FaceConfigurationTests {
    private func resolve(_ environment: [String: String] = [:], file: [String: String] = [:]) throws(ConfigurationError) -> Configuration.Face {
        try ConfigurationSchema.resolve(file: file, fileName: "test.yaml", environment: environment, hostname: "host").configuration.face
    }

    @Test("defaults: on, 127.0.0.1:8080, no token file, the installed folder")
    func defaults() throws {
        let face = try resolve()
        #expect(face == Configuration.Face(enabled: true, bind: "127.0.0.1", port: 8080, tokenFile: "", directory: ""))
        #expect(face.isLoopback && !face.requiresToken)
    }

    @Test("every key from the file and from NOISECLOCK_FACE_*")
    func keys() throws {
        let fromFile = try resolve(file: ["face.enabled": "false", "face.bind": "::1", "face.port": "9090", "face.dir": "/srv/face"])
        #expect(fromFile == Configuration.Face(enabled: false, bind: "::1", port: 9090, tokenFile: "", directory: "/srv/face"))
        let fromEnvironment = try resolve([
            "NOISECLOCK_FACE_BIND": "0.0.0.0", "NOISECLOCK_FACE_TOKEN_FILE": "/etc/noiseclock/face-token", "NOISECLOCK_FACE_PORT": "80",
        ])
        #expect(fromEnvironment.bind == "0.0.0.0" && fromEnvironment.port == 80 && fromEnvironment.requiresToken)
    }

    @Test("loopback means exactly 127.0.0.1, ::1 or localhost", arguments: [
        ("127.0.0.1", true), ("::1", true), ("localhost", true), ("LOCALHOST", true), ("127.0.0.2", false), ("0.0.0.0", false),
        ("::", false), ("192.168.1.20", false),
    ])
    func loopback(bind: String, loopback: Bool) {
        #expect(Configuration.Face(bind: bind).isLoopback == loopback)
    }

    @Test("off loopback without a token file is an error naming face.token_file", arguments: ["0.0.0.0", "::", "127.0.0.2", "10.1.2.3"])
    func tokenRequired(bind: String) throws {
        let error = try #require(throws: ConfigurationError.self) { try resolve(["NOISECLOCK_FACE_BIND": bind]) }
        #expect(error.key == "face.token_file")
        #expect(error.reason.contains(bind))
        // With the face off, or with a token file, the same bind is fine.
        #expect(try resolve(["NOISECLOCK_FACE_BIND": bind, "NOISECLOCK_FACE_ENABLED": "false"]).bind == bind)
        #expect(try resolve(["NOISECLOCK_FACE_BIND": bind, "NOISECLOCK_FACE_TOKEN_FILE": "/t"]).requiresToken)
    }

    @Test("a token file turns the token on for a loopback bind too")
    func tokenOnLoopback() throws {
        #expect(try resolve(["NOISECLOCK_FACE_TOKEN_FILE": "/t"]).requiresToken)
    }

    @Test("face.bind takes IP addresses and localhost, nothing else", arguments: [
        ("127.0.0.1", true), ("0.0.0.0", true), ("192.168.178.20", true), ("::", true), ("::1", true), ("fe80::1", true),
        ("2001:db8::8a2e:370:7334", true), ("::ffff:127.0.0.1", true), ("1:2:3:4:5:6:7:8", true), ("localhost", true),
        ("my-laptop", false), ("256.0.0.1", false), ("1.2.3", false), ("1.2.3.4.5", false), ("1::2::3", false), ("12345::", false),
        ("1:2:3:4:5:6:7:8:9", false), ("", false), ("127.0.0.1 ", false),
    ])
    func bindAddress(value: String, valid: Bool) {
        let file = ["face.bind": value, "face.token_file": "/t"]
        #expect(((try? resolve(file: file)) != nil) == valid, "\(value)")
    }

    @Test("face.port must be 1-65535", arguments: ["0", "65536", "http", "-1"])
    func badPort(value: String) throws {
        let error = try #require(throws: ConfigurationError.self) { try resolve(["NOISECLOCK_FACE_PORT": value]) }
        #expect(error.key == "face.port" && error.source == "NOISECLOCK_FACE_PORT")
    }
}

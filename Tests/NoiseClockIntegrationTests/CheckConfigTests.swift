import Foundation
import NoiseClockTestSupport
import Testing

@Suite("noiseclock check-config")
struct CheckConfigTests {
    func checkConfig(_ environment: [String: String], file: String = "") async throws -> (code: Int32, output: String) {
        let directory = try makeTemporaryDirectory("config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try file.write(toFile: "\(directory)/noiseclock.yaml", atomically: true, encoding: .utf8)
        return try await runToEnd(NoiseClockBinary.path, ["check-config", "--config", "\(directory)/noiseclock.yaml"], environment: environment)
    }

    @Test("bad values exit non-zero naming the key", arguments: [
        (["NOISECLOCK_MQTT_PORT": "abc"], "mqtt.port"),
        (["NOISECLOCK_CLOCK_TIME_FORMAT": "25h"], "clock.time_format"),
        (["NOISECLOCK_NODE_ID": "bed/room"], "node.id"),
        (["NOISECLOCK_MQTT_PASSWORD_FILE": "/nonexistent/pw"], "mqtt.password_file"),
        (["NOISECLOCK_FACE_BIND": "my-laptop"], "face.bind"),
        (["NOISECLOCK_FACE_PORT": "0"], "face.port"),
        // Off loopback (0.0.0.0, and 127.0.0.2 too: only 127.0.0.1, ::1 and localhost count) a token file is required.
        (["NOISECLOCK_FACE_BIND": "0.0.0.0"], "face.token_file"),
        (["NOISECLOCK_FACE_BIND": "127.0.0.2"], "face.token_file"),
        (["NOISECLOCK_FACE_TOKEN_FILE": "/nonexistent/token"], "face.token_file"),
        (["NOISECLOCK_FACE_TOKEN_FILE": "/dev/null"], "face.token_file"),
    ])
    func badValues(environment: [String: String], key: String) async throws {
        let result = try await checkConfig(environment)
        #expect(result.code != 0)
        #expect(result.output.contains(key))
    }

    @Test("an unknown key in the file is reported and fails the check")
    func unknownKey() async throws {
        let result = try await checkConfig([:], file: "mqtt:\n  hots: 127.0.0.1\n")
        #expect(result.code != 0)
        #expect(result.output.contains("mqtt.hots"))
    }

    @Test("the effective configuration is printed with the password masked and each value's source")
    func masksSecrets() async throws {
        let result = try await checkConfig(["NOISECLOCK_MQTT_PASSWORD": "hunter2-secret"], file: "clock:\n  time_format: 12h\n")
        #expect(result.code == 0)
        #expect(!result.output.contains("hunter2-secret"))
        #expect(result.output.contains("mqtt.password: ********"))
        let line = result.output.split(separator: "\n").first { $0.hasPrefix("clock.time_format:") }
        #expect(line?.contains("12h") == true)
        #expect(line?.contains("noiseclock.yaml") == true)
    }
}

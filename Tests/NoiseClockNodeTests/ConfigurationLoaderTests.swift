import Foundation
import NoiseClockCore
import Testing

@testable import NoiseClockNode

@Suite("ConfigurationLoader")
struct ConfigurationLoaderTests {
    // MARK: flatten

    @Test("nested YAML keys become dotted paths with their scalar values")
    func flattenNested() throws {
        let yaml = """
            node:
              id: kitchen
            mqtt:
              host: broker.lan
              port: 8883
              tls:
                enabled: yes
                ca_file: /etc/ssl/ca.pem
            clock:
              time_format: 12h
            """
        let values = try ConfigurationLoader.flatten(yaml: yaml, fileName: "noiseclock.yaml")
        #expect(
            values == [
                "node.id": "kitchen", "mqtt.host": "broker.lan", "mqtt.port": "8883", "mqtt.tls.enabled": "yes",
                "mqtt.tls.ca_file": "/etc/ssl/ca.pem", "clock.time_format": "12h",
            ])
    }

    @Test("an empty value or a YAML null is the empty string; a quoted \"null\" stays text")
    func flattenNull() throws {
        let yaml = """
            mqtt:
              username:
              password: ~
              client_id: null
              password_file: "null"
            """
        let values = try ConfigurationLoader.flatten(yaml: yaml, fileName: "noiseclock.yaml")
        #expect(values == ["mqtt.username": "", "mqtt.password": "", "mqtt.client_id": "", "mqtt.password_file": "null"])
    }

    @Test("an empty file or one with only comments gives no values")
    func flattenEmpty() throws {
        #expect(try ConfigurationLoader.flatten(yaml: "", fileName: "f.yaml").isEmpty)
        #expect(try ConfigurationLoader.flatten(yaml: "# nothing here\n", fileName: "f.yaml").isEmpty)
    }

    @Test(
        "a list where a value belongs is an error naming its key",
        arguments: [
            ("mqtt:\n  host: [a, b]\n", "mqtt.host"),
            ("node:\n  id:\n    - kitchen\n    - hall\n", "node.id"),
        ])
    func flattenList(yaml: String, key: String) {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.flatten(yaml: yaml, fileName: "bad.yaml")
        }
        #expect(error?.key == key)
        #expect(error?.source == "bad.yaml")
        #expect(error?.reason.contains("list") == true)
    }

    @Test(
        "aliases, repeated keys, keys that are not plain names and a second document are errors naming where",
        arguments: [
            ("mqtt:\n  host: &h a\n  port: *h\n", "mqtt.port", "aliases"),
            ("mqtt:\n  host: a\n  host: b\n", "mqtt.host", "twice"),
            ("mqtt:\n  host: a\nmqtt:\n  port: 1\n", "mqtt", "twice"),
            ("mqtt:\n  ? [a, b]\n  : c\n", "mqtt", "plain names"),
            ("node:\n  id: a\n---\nnode:\n  id: b\n", "config", "one YAML document"),
            ("- a\n- b\n", "config", "list"),
        ])
    func flattenRejects(yaml: String, key: String, reason: String) {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.flatten(yaml: yaml, fileName: "bad.yaml")
        }
        #expect(error?.key == key)
        #expect(error?.reason.contains(reason) == true, "\(error?.reason ?? "")")
    }

    @Test("quoting, block scalars, anchors without aliases, tags and flow mappings read as their text")
    func flattenScalarForms() throws {
        let yaml = """
            node:
              id: 'kitchen'
              name: "Kitchen \\u00e9 clock"
            mqtt: {host: broker.lan, port: 1884}
            clock:
              locale: &loc de_DE
              timezone: !!str Europe/Berlin
            sounds:
              custom_dir: >-
                /srv/sounds
            """
        let values = try ConfigurationLoader.flatten(yaml: yaml, fileName: "f.yaml")
        #expect(values == [
            "node.id": "kitchen", "node.name": "Kitchen é clock", "mqtt.host": "broker.lan", "mqtt.port": "1884",
            "clock.locale": "de_DE", "clock.timezone": "Europe/Berlin", "sounds.custom_dir": "/srv/sounds",
        ])
    }

    @Test("a syntax error is reported with its line and column, even after a key that is wrong")
    func flattenSyntaxPosition() {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.flatten(yaml: "mqtt:\n  host: [a]\n  port: \"open\n", fileName: "bad.yaml")
        }
        #expect(error?.key == "config")
        #expect(error?.reason.hasPrefix("not valid YAML") == true)
        #expect(error?.reason.contains("line") == true, "\(error?.reason ?? "")")
    }

    @Test("a document that is not a mapping is an error")
    func flattenScalarDocument() {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.flatten(yaml: "just some text\n", fileName: "bad.yaml")
        }
        #expect(error?.key == "config")
    }

    @Test("invalid YAML is an error naming the file")
    func flattenInvalidYAML() {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.flatten(yaml: "mqtt:\n  host: [unclosed\n  port: 1883\n", fileName: "broken.yaml")
        }
        #expect(error?.key == "config")
        #expect(error?.source == "broken.yaml")
        #expect(error?.reason.hasPrefix("not valid YAML") == true)
    }

    // MARK: locate

    private static let etc = "/etc/noiseclock/noiseclock.yaml"
    private static let local = "/home/me/config/noiseclock.yaml"

    private func locate(explicit: String? = nil, environment: [String: String] = [:], existing: Set<String>) -> String? {
        ConfigurationLoader.locate(
            explicit: explicit, environment: environment, workingDirectory: "/home/me",
            fileExists: { existing.contains($0) })
    }

    @Test("--config wins over everything, even a file that does not exist")
    func locateExplicit() {
        #expect(
            locate(
                explicit: "/tmp/mine.yaml", environment: ["NOISECLOCK_CONFIG": "/tmp/env.yaml"],
                existing: [Self.etc, Self.local]) == "/tmp/mine.yaml")
    }

    @Test("$NOISECLOCK_CONFIG comes next, before the /etc file")
    func locateEnvironment() {
        #expect(
            locate(environment: ["NOISECLOCK_CONFIG": "/tmp/env.yaml"], existing: [Self.etc, Self.local]) == "/tmp/env.yaml")
    }

    @Test("an empty $NOISECLOCK_CONFIG is as if unset")
    func locateEmptyEnvironment() {
        #expect(locate(environment: ["NOISECLOCK_CONFIG": ""], existing: [Self.etc]) == Self.etc)
    }

    @Test("/etc/noiseclock/noiseclock.yaml comes before the working directory's config/noiseclock.yaml")
    func locateEtc() {
        #expect(locate(existing: [Self.etc, Self.local]) == Self.etc)
    }

    @Test("config/noiseclock.yaml under the working directory is used when /etc has none")
    func locateWorkingDirectory() {
        #expect(locate(existing: [Self.local]) == Self.local)
    }

    @Test("with no file anywhere, there is none: built-in defaults apply")
    func locateNone() {
        #expect(locate(existing: ["/home/me/noiseclock.yaml", "/etc/noiseclock.yaml"]) == nil)
    }

    // MARK: load

    @Test("load reads the file and lets the environment override it, naming where each value came from")
    func loadWithEnvironmentOverride() async throws {
        try await withTemporaryDirectory { directory in
            try directory.write(
                "noiseclock.yaml",
                """
                node:
                  id: bedroom
                mqtt:
                  host: broker.lan
                  port: 1884
                  username:
                clock:
                  time_format: 12h
                """)
            let file = directory.file("noiseclock.yaml")

            let loaded = try ConfigurationLoader.load(
                explicit: file, environment: ["NOISECLOCK_MQTT_HOST": "10.0.0.2", "NOISECLOCK_STATE_DIR": "/srv/clock"],
                workingDirectory: directory.path, hostname: "Night-Stand")

            let configuration = loaded.configuration
            #expect(loaded.file == file)
            #expect(configuration.mqtt.host == "10.0.0.2")
            #expect(configuration.mqtt.port == 1884)
            #expect(configuration.mqtt.username == "")
            #expect(configuration.node.id == "bedroom")
            #expect(configuration.node.name == "Night-Stand")
            #expect(configuration.mqtt.clientID == "noiseclock-bedroom")
            #expect(configuration.stateDirectory == "/srv/clock")
            #expect(configuration.clock.timeFormat == .twelveHour)
            let sources = Dictionary(uniqueKeysWithValues: loaded.resolved.values.map { ($0.key.path, $0.source) })
            #expect(sources["mqtt.host"] == "NOISECLOCK_MQTT_HOST")
            #expect(sources["mqtt.port"] == file)
            #expect(sources["mqtt.keepalive_s"] == "default")
        }
    }

    @Test("load with no file found uses the defaults and the environment")
    func loadWithoutFile() async throws {
        try await withTemporaryDirectory { directory in
            let loaded = try ConfigurationLoader.load(
                explicit: nil, environment: ["NOISECLOCK_NODE_ID": "desk"], workingDirectory: directory.path,
                hostname: "ignored")
            // /etc/noiseclock/noiseclock.yaml might exist on a developer's machine; only check the rest then.
            if loaded.file == nil {
                #expect(loaded.configuration.mqtt.host == "127.0.0.1")
                #expect(loaded.configuration.mqtt.port == 1883)
            }
            #expect(loaded.configuration.node.id == "desk")
        }
    }

    @Test("a value the schema rejects is an error naming the key and the file")
    func loadInvalidValue() async throws {
        try await withTemporaryDirectory { directory in
            try directory.write("c.yaml", "mqtt:\n  port: 99999\n")
            let error = #expect(throws: ConfigurationError.self) {
                try ConfigurationLoader.load(
                    explicit: directory.file("c.yaml"), environment: [:], workingDirectory: directory.path, hostname: "h")
            }
            #expect(error?.key == "mqtt.port")
            #expect(error?.source == directory.file("c.yaml"))
        }
    }

    @Test("an explicit file that cannot be read is an error naming it")
    func loadMissingFile() async throws {
        try await withTemporaryDirectory { directory in
            let missing = directory.file("nope.yaml")
            let error = #expect(throws: ConfigurationError.self) {
                try ConfigurationLoader.load(explicit: missing, environment: [:], workingDirectory: directory.path, hostname: "h")
            }
            #expect(error?.key == "config")
            #expect(error?.source == missing)
        }
    }

    // MARK: files and secrets

    @Test("checkFiles names mqtt.password_file and where it was set when the file is missing")
    func checkFilesMissingPasswordFile() async throws {
        try await withTemporaryDirectory { directory in
            let missing = directory.file("absent-password")
            let resolved = try ConfigurationSchema.resolve(
                file: [:], fileName: nil, environment: ["NOISECLOCK_MQTT_PASSWORD_FILE": missing], hostname: "h")

            let error = #expect(throws: ConfigurationError.self) {
                try ConfigurationLoader.checkFiles(resolved.configuration, sources: resolved.values)
            }
            #expect(error?.key == "mqtt.password_file")
            #expect(error?.source == "NOISECLOCK_MQTT_PASSWORD_FILE")
            #expect(error?.reason.contains(missing) == true)
        }
    }

    @Test("checkFiles names a missing TLS CA file only when TLS is enabled")
    func checkFilesTLS() throws {
        let file = ["mqtt.tls.ca_file": "/nonexistent/ca.pem"]
        let disabled = try ConfigurationSchema.resolve(file: file, fileName: "c.yaml", environment: [:], hostname: "h")
        try ConfigurationLoader.checkFiles(disabled.configuration, sources: disabled.values)

        let enabled = try ConfigurationSchema.resolve(
            file: file.merging(["mqtt.tls.enabled": "true"]) { $1 }, fileName: "c.yaml", environment: [:], hostname: "h")
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.checkFiles(enabled.configuration, sources: enabled.values)
        }
        #expect(error?.key == "mqtt.tls.ca_file")
        #expect(error?.source == "c.yaml")
    }

    @Test("the password is the first line of the password file, which wins over mqtt.password")
    func passwordFromFile() async throws {
        try await withTemporaryDirectory { directory in
            try directory.write("password", "s3cret pass\nsecond line\n")
            var mqtt = try makeConfiguration(["mqtt.password": "inline"]).mqtt
            mqtt.passwordFile = directory.file("password")
            #expect(try ConfigurationLoader.password(for: mqtt) == "s3cret pass")
        }
    }

    @Test("a password file without a final newline is read whole")
    func passwordFileWithoutNewline() async throws {
        try await withTemporaryDirectory { directory in
            try directory.write("password", "only-line")
            var mqtt = try makeConfiguration().mqtt
            mqtt.passwordFile = directory.file("password")
            #expect(try ConfigurationLoader.password(for: mqtt) == "only-line")
        }
    }

    @Test("without a password file the password is mqtt.password, or none when that is empty")
    func passwordInline() throws {
        #expect(try ConfigurationLoader.password(for: makeConfiguration(["mqtt.password": "inline"]).mqtt) == "inline")
        #expect(try ConfigurationLoader.password(for: makeConfiguration().mqtt) == nil)
    }

    @Test("an unreadable password file is an error naming mqtt.password_file")
    func passwordFileMissing() throws {
        var mqtt = try makeConfiguration().mqtt
        mqtt.passwordFile = "/nonexistent/noiseclock/password"
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.password(for: mqtt) }
        #expect(error?.key == "mqtt.password_file")
    }

    @Test("the face's token is the token file's first line, trimmed; none without a file")
    func faceToken() async throws {
        try await withTemporaryDirectory { directory in
            try directory.write("token", "  abcdefghijklmnop-1234_~.  \nsecond line\n")
            let face = Configuration.Face(bind: "0.0.0.0", tokenFile: directory.file("token"))
            #expect(try ConfigurationLoader.faceToken(for: face) == "abcdefghijklmnop-1234_~.")
            #expect(try ConfigurationLoader.faceToken(for: Configuration.Face()) == nil)
        }
    }

    // MARK: systemd credentials (SPEC §14)

    @Test("systemd's credentials mqtt-password and face-token replace the configured files, named as their source")
    func credentialsWin() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory.file("credentials"), withIntermediateDirectories: true)
            try directory.write("credentials/mqtt-password", "from-systemd\n")
            try directory.write("credentials/face-token", "abcdefghijklmnopqrstuvwx\n")
            try directory.write("c.yaml", "mqtt:\n  password_file: /etc/noiseclock/unreadable\nface:\n  token_file: /etc/noiseclock/token\n")
            let loaded = try ConfigurationLoader.load(
                explicit: directory.file("c.yaml"),
                environment: ["CREDENTIALS_DIRECTORY": directory.file("credentials"), "NOISECLOCK_MQTT_PASSWORD_FILE": "/elsewhere"],
                workingDirectory: directory.path, hostname: "h")
            #expect(loaded.configuration.mqtt.passwordFile == directory.file("credentials/mqtt-password"))
            #expect(loaded.configuration.face.tokenFile == directory.file("credentials/face-token"))
            let sources = Dictionary(uniqueKeysWithValues: loaded.resolved.values.map { ($0.key.path, $0.source) })
            #expect(sources["mqtt.password_file"] == "credential mqtt-password")
            #expect(sources["face.token_file"] == "credential face-token")
            #expect(try ConfigurationLoader.password(for: loaded.configuration.mqtt) == "from-systemd")
            #expect(try ConfigurationLoader.faceToken(for: loaded.configuration.face) == "abcdefghijklmnopqrstuvwx")
            try ConfigurationLoader.checkFiles(loaded.configuration, sources: loaded.resolved.values)
        }
    }

    @Test("a credential the unit did not pass, or no CREDENTIALS_DIRECTORY at all, leaves the configured file")
    func credentialsAbsent() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory.file("credentials"), withIntermediateDirectories: true)
            try directory.write("credentials/face-token", "abcdefghijklmnopqrstuvwx\n")
            // Only face-token is there: the password file stays the configured one.
            let partial = try ConfigurationLoader.load(
                explicit: nil,
                environment: ["CREDENTIALS_DIRECTORY": directory.file("credentials"), "NOISECLOCK_MQTT_PASSWORD_FILE": "/srv/pw"],
                workingDirectory: directory.path, hostname: "h")
            #expect(partial.configuration.mqtt.passwordFile == "/srv/pw")
            #expect(partial.configuration.face.tokenFile == directory.file("credentials/face-token"))
            // Without the variable a folder holding credentials means nothing; a relative one is ignored.
            for environment in [["NOISECLOCK_MQTT_PASSWORD_FILE": "/srv/pw"], ["CREDENTIALS_DIRECTORY": "credentials"]] {
                let loaded = try ConfigurationLoader.load(
                    explicit: nil, environment: environment, workingDirectory: directory.path, hostname: "h")
                #expect(loaded.configuration.face.tokenFile != directory.file("credentials/face-token"))
            }
        }
    }

    @Test("a face token that is missing, too short or not URL-safe is an error naming face.token_file", arguments: [
        nil, "", "short", "has space in the middle1", "semi;colon-0123456789", "percent%41-0123456789",
    ] as [String?])
    func badFaceToken(content: String?) async throws {
        try await withTemporaryDirectory { directory in
            if let content { try directory.write("token", content + "\n") }
            let face = Configuration.Face(bind: "0.0.0.0", tokenFile: directory.file("token"))
            let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.faceToken(for: face) }
            #expect(error?.key == "face.token_file")
        }
    }
}

@Suite("ControlClient")
struct ControlClientTests {
    @Test("an empty payload becomes an object carrying the transaction")
    func transactionForEmptyPayload() throws {
        let (body, transaction) = ControlClient.addingTransaction("ab12", to: "")
        #expect(transaction == "ctl-ab12")
        #expect(try JSONValue.parse(Array(body.utf8)) == ["transaction": "ctl-ab12"])
    }

    @Test("an object payload gets the transaction added, or keeps its own")
    func transactionForObject() throws {
        let (body, transaction) = ControlClient.addingTransaction("ab12", to: #"{"time_format":"12h"}"#)
        #expect(transaction == "ctl-ab12")
        #expect(try JSONValue.parse(Array(body.utf8)) == ["time_format": "12h", "transaction": "ctl-ab12"])

        let (ownBody, own) = ControlClient.addingTransaction("ab12", to: #"{"transaction":"mine"}"#)
        #expect(own == "mine")
        #expect(try JSONValue.parse(Array(ownBody.utf8)) == ["transaction": "mine"])
    }

    @Test("a bare value cannot carry a transaction and is sent unchanged", arguments: ["55", "rain", "ON"])
    func bareValueUnchanged(payload: String) {
        let (body, transaction) = ControlClient.addingTransaction("ab12", to: payload)
        #expect(body == payload)
        #expect(transaction == nil)
    }

    @Test("a response decodes into ok data or a typed error with its transaction")
    func decodeResponses() throws {
        let ok = try #require(ControlClient.decode(["status": "ok", "data": ["x": 1], "transaction": "t"]))
        #expect(ok.data == ["x": 1])
        #expect(ok.transaction == "t")

        let failed = try #require(
            ControlClient.decode([
                "status": "error", "error": ["code": "invalid_field", "message": "bad", "field": "volume"],
            ]))
        #expect(failed.error == CommandError(.invalidField, "bad", field: "volume"))
        #expect(ControlClient.decode(["no": "status"]) == nil)
    }
}

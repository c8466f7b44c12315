import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NoiseClockCore

/// A real Home Assistant Core (the venv `scripts/ha-core.sh` makes) on a free 127.0.0.1 port, with
/// its own configuration folder, its MQTT integration pointed at a test broker, and an owner
/// account made through the onboarding `users` step, so the REST API can be used with a token.
///
/// The configuration is minimal and keeps Home Assistant off the network: no `default_config`, no
/// onboarding beyond `users` (the later steps enable integrations that reach out), `--skip-pip`
/// (every requirement comes from the venv, nothing is installed at run time), and the MQTT
/// integration as a config entry seeded in `.storage/core.config_entries`. Its log is
/// `home-assistant.log` in the configuration folder, which is removed afterwards unless
/// `NOISECLOCK_HA_KEEP` is set.
public final class HomeAssistantCore: @unchecked Sendable {
    // @unchecked Sendable: `process` and the tokens are replaced only by start/stop, called from the owning test.
    public let port: Int
    public let brokerPort: Int
    public let configDirectory: String
    public let venv: String
    public private(set) var process: ChildProcess?
    private var accessToken: String?
    private var refreshToken: String?
    private let session: URLSession

    /// Where the venv is: `$NOISECLOCK_HA_VENV`, else the folder `scripts/ha-core.sh` uses by default
    /// when it holds `bin/hass`; nil when there is none.
    public static var installedVenv: String? {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["NOISECLOCK_HA_VENV"], !explicit.isEmpty { return explicit }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let base = environment["NOISECLOCK_HA_DIR"] ?? "\(home)/.cache/noiseclock/ha-2025.4.4"
        let venv = "\(base)/venv"
        return FileManager.default.isExecutableFile(atPath: "\(venv)/bin/hass") ? venv : nil
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes the configuration folder (nothing starts yet). `timeZone` becomes Home Assistant's.
    /// `extraConfiguration` is appended to configuration.yaml (`automation: !include automations.yaml`).
    /// With `packages`, every file put in the folder's `packages/` is a package (as a user sets
    /// `homeassistant: packages: !include_dir_named packages`).
    public init(
        brokerPort: Int, venv: String? = nil, timeZone: String = "Europe/Berlin", extraConfiguration: String = "", packages: Bool = false
    ) throws {
        guard let venv = venv ?? Self.installedVenv else {
            throw Failure(description: "no Home Assistant venv: run scripts/ha-core.sh (make e2e-ha does) or set NOISECLOCK_HA_VENV")
        }
        guard FileManager.default.isExecutableFile(atPath: "\(venv)/bin/hass") else {
            throw Failure(description: "\(venv)/bin/hass is missing: run scripts/ha-core.sh")
        }
        self.venv = venv
        self.brokerPort = brokerPort
        port = freeLoopbackPort()
        configDirectory = try makeTemporaryDirectory("home-assistant")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.connectionProxyDictionary = [:]
        session = URLSession(configuration: configuration)
        try writeConfiguration(timeZone: timeZone, extra: extraConfiguration, packages: packages)
    }

    deinit {
        if let process, process.isRunning {
            process.signal(SIGKILL)
        }
        if ProcessInfo.processInfo.environment["NOISECLOCK_HA_KEEP"] == nil {
            try? FileManager.default.removeItem(atPath: configDirectory)
        }
    }

    private func writeConfiguration(timeZone: String, extra: String, packages: Bool) throws {
        if packages { try FileManager.default.createDirectory(atPath: "\(configDirectory)/packages", withIntermediateDirectories: true) }
        let yaml = """
            # Written by NoiseClock's end-to-end tests: only what the MQTT entities and the REST API need.
            homeassistant:
              name: NoiseClock E2E
              time_zone: \(timeZone)
              unit_system: metric
              latitude: 52.52
              longitude: 13.40
              elevation: 34
              country: DE
              currency: EUR
              language: en
            \(packages ? "  packages: !include_dir_named packages\n" : "")http:
              server_host: 127.0.0.1
              server_port: \(port)
            api:
            logger:
              default: info
              logs:
                homeassistant.components.mqtt.discovery: debug

            """ + extra
        try yaml.write(toFile: "\(configDirectory)/configuration.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "\(configDirectory)/.storage", withIntermediateDirectories: true)
        // Storage minor version 1: Home Assistant migrates it (adds created_at, discovery_keys, subentries).
        // The MQTT entry's data at minor version 2 holds the broker only; discovery (prefix
        // `homeassistant`) and the birth message (`online` on `homeassistant/status`) are defaults.
        let entries: JSONValue = [
            "version": 1, "minor_version": 1, "key": "core.config_entries",
            "data": [
                "entries": [
                    [
                        "entry_id": "01noiseclocke2emqtt000000000", "version": 1, "minor_version": 2, "domain": "mqtt",
                        "title": "127.0.0.1", "data": ["broker": "127.0.0.1", "port": .number(Double(brokerPort))],
                        "options": ["discovery": true, "discovery_prefix": "homeassistant"],
                        "pref_disable_new_entities": false, "pref_disable_polling": false, "source": "user",
                        "unique_id": nil, "disabled_by": nil,
                    ],
                ],
            ],
        ]
        try entries.serialized.write(toFile: "\(configDirectory)/.storage/core.config_entries", atomically: true, encoding: .utf8)
    }

    /// Home Assistant's own log (`home-assistant.log` in the configuration folder).
    public var log: String {
        (try? String(contentsOfFile: "\(configDirectory)/home-assistant.log", encoding: .utf8)) ?? process?.log ?? ""
    }

    /// The entries of the log at WARNING or above, for a report: each its line and what follows it
    /// up to the next entry (an exception's traceback).
    public var problems: [String] {
        var entries: [[String]] = []
        for line in log.split(separator: "\n").map(String.init) {
            // An entry starts with its date ("2026-12-06 19:10:47.127 ERROR …"); the rest continue one.
            if entries.isEmpty || (line.first?.isNumber == true && line.dropFirst(4).first == "-") {
                entries.append([line])
            } else {
                entries[entries.count - 1].append(line)
            }
        }
        return entries.filter { $0[0].contains(" WARNING ") || $0[0].contains(" ERROR ") }.map { $0.joined(separator: "\n") }
    }

    /// A `.storage` file as JSON (written by Home Assistant with a delay, and always on stop).
    public func storage(_ name: String) -> JSONValue? {
        guard let data = FileManager.default.contents(atPath: "\(configDirectory)/.storage/\(name)") else { return nil }
        return try? JSONValue.parse(Array(data))
    }

    // MARK: Life cycle

    /// Starts Home Assistant and waits until the REST API answers with a token and the MQTT entry is loaded.
    public func start(timeout: Duration = .seconds(240)) async throws {
        let deadline = ContinuousClock.now + timeout
        let process = try ChildProcess(
            "\(venv)/bin/hass", ["-c", configDirectory, "--skip-pip", "--log-no-color"],
            environment: ["PYTHONUNBUFFERED": "1"], logPath: "\(configDirectory)/stdout-\(UUID().uuidString.prefix(4)).log")
        self.process = process

        // The HTTP server listens once the core integrations are set up.
        var onboarding: JSONValue?
        while ContinuousClock.now < deadline, process.isRunning {
            if let answer = try? await request("GET", "/api/onboarding", authorized: false), answer.status == 200 {
                onboarding = answer.json
                break
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        guard let onboarding else {
            throw Failure(description: "Home Assistant did not answer on port \(port) (running: \(process.isRunning)); log tail:\n\(tail())")
        }

        if refreshToken == nil {
            try await onboardOwner(steps: onboarding)
        } else {
            try await refreshAccessToken()
        }

        // The API, then the MQTT integration.
        while ContinuousClock.now < deadline {
            if let entries = try? await request("GET", "/api/config/config_entries/entry?domain=mqtt"), entries.status == 200,
               case .array(let list)? = entries.json, list.contains(where: { $0["state"]?.stringValue == "loaded" }) {
                return
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw Failure(description: "Home Assistant's MQTT integration did not load; log tail:\n\(tail())")
    }

    /// Stops Home Assistant as systemd would (SIGTERM; SIGKILL after `timeout`). Returns its exit code.
    @discardableResult
    public func stop(timeout: Duration = .seconds(60)) async -> Int32? {
        guard let process else { return nil }
        process.signal(SIGTERM)
        var code = await process.waitForExit(timeout: timeout)
        if code == nil {
            process.signal(SIGKILL)
            code = await process.waitForExit(timeout: .seconds(10))
        }
        self.process = nil
        return code
    }

    /// Stops and starts again, with the same configuration folder (and so the same entities and user).
    public func restart() async throws {
        await stop()
        try await start()
    }

    /// The last lines of the log.
    public func tail(_ lines: Int = 60) -> String {
        log.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    // MARK: Onboarding and tokens

    private var clientID: String { "http://127.0.0.1:\(port)/" }

    private func onboardOwner(steps: JSONValue) async throws {
        let done = (steps.arrayItems ?? []).first { $0["step"]?.stringValue == "user" }?["done"]?.boolValue ?? false
        guard !done else { throw Failure(description: "onboarding's user step is already done in \(configDirectory)") }
        let body: JSONValue = [
            "client_id": .string(clientID), "name": "NoiseClock Test", "username": "noiseclock", "password": "noiseclock-e2e",
            "language": "en",
        ]
        let answer = try await request("POST", "/api/onboarding/users", json: body, authorized: false)
        guard answer.status == 200, let code = answer.json?["auth_code"]?.stringValue else {
            throw Failure(description: "POST /api/onboarding/users: \(answer.status) \(answer.text)")
        }
        try await token(["grant_type": "authorization_code", "code": code, "client_id": clientID])
    }

    private func refreshAccessToken() async throws {
        guard let refreshToken else { return }
        try await token(["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": clientID])
    }

    private func token(_ form: [String: String]) async throws {
        let encoded = form.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.formEncode($0.value))" }.joined(separator: "&")
        let answer = try await request(
            "POST", "/auth/token", body: Data(encoded.utf8), contentType: "application/x-www-form-urlencoded", authorized: false)
        guard answer.status == 200, let access = answer.json?["access_token"]?.stringValue else {
            throw Failure(description: "POST /auth/token (\(form["grant_type"] ?? "")): \(answer.status) \(answer.text)")
        }
        accessToken = access
        if let refresh = answer.json?["refresh_token"]?.stringValue { refreshToken = refresh }
    }

    private static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: REST

    public struct Answer: Sendable {
        public var status: Int
        public var data: Data
        public var text: String { String(decoding: data, as: UTF8.self) }
        public var json: JSONValue? { try? JSONValue.parse(Array(data)) }
    }

    /// One REST call; `path` starts with `/`.
    public func request(
        _ method: String, _ path: String, json: JSONValue? = nil, body: Data? = nil, contentType: String? = nil, authorized: Bool = true
    ) async throws -> Answer {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { throw Failure(description: "bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let json {
            request.httpBody = Data(json.serialized.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let body {
            request.httpBody = body
            if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        }
        if authorized, let accessToken {
            request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        }
        let (data, response) = try await session.data(for: request)
        return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, data: data)
    }

    /// Every entity's state object (`entity_id`, `state`, `attributes`, `last_changed`, …).
    public func states() async throws -> [JSONValue] {
        let answer = try await request("GET", "/api/states")
        guard answer.status == 200, let list = answer.json?.arrayItems else {
            throw Failure(description: "GET /api/states: \(answer.status) \(answer.text.prefix(500))")
        }
        return list
    }

    /// One entity's state object; nil when Home Assistant has no such entity (404).
    public func state(_ entityID: String) async throws -> JSONValue? {
        let answer = try await request("GET", "/api/states/\(entityID)")
        if answer.status == 404 { return nil }
        guard answer.status == 200, let json = answer.json else {
            throw Failure(description: "GET /api/states/\(entityID): \(answer.status) \(answer.text.prefix(500))")
        }
        return json
    }

    /// Calls an action (`POST /api/services/<domain>/<service>`); returns the states it changed.
    @discardableResult
    public func callService(_ domain: String, _ service: String, _ data: JSONValue = [:]) async throws -> JSONValue? {
        let answer = try await request("POST", "/api/services/\(domain)/\(service)", json: data)
        guard answer.status == 200 else {
            throw Failure(description: "POST /api/services/\(domain)/\(service) \(data.serialized): \(answer.status) \(answer.text.prefix(500))")
        }
        return answer.json
    }

    /// Renders a template (`POST /api/template`).
    public func render(_ template: String) async throws -> String {
        let answer = try await request("POST", "/api/template", json: ["template": .string(template)])
        guard answer.status == 200 else { throw Failure(description: "POST /api/template: \(answer.status) \(answer.text.prefix(500))") }
        return answer.text
    }
}

extension JSONValue {
    /// The items of an array, nil for anything else.
    public var arrayItems: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}

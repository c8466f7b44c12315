import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// Runs `body` with a node whose face serves a fresh face folder on a free port of `bind`.
func withFaceNode(
    bind: String = "127.0.0.1", port: Int? = nil, tokenFile: String? = nil, folder: String? = nil, environment extra: [String: String] = [:],
    _ body: (_ node: NodeProcess, _ process: ChildProcess, _ client: TestClient, _ port: Int) async throws -> Void
) async throws {
    let port = port ?? freeLoopbackPort()
    let environment = FaceFixture.environment(port: port, folder: try folder ?? FaceFixture.folder(), bind: bind, tokenFile: tokenFile)
        .merging(extra) { _, new in new }
    try await withNode(environment: environment) { node, process, client in
        // The node is online once MQTT is; the face listens moments later.
        let up = await eventually(timeout: .seconds(10)) {
            (try? await FaceHTTP.request(host: bind, port: port, path: "/api/state", headers: [])) != nil
        }
        #expect(up, "the face did not listen; log:\n\(process.log)")
        try await body(node, process, client, port)
    }
}

@Suite("The clock face against a real node (SPEC §9, §8)")
struct FaceTests {
    @Test("GET / serves index.html and /static the face's files, with their types and the CSP")
    func servesFiles() async throws {
        try await withFaceNode { _, _, _, port in
            let index = try await FaceHTTP.request(port: port, path: "/")
            #expect(index.status == 200)
            #expect(index.text == FaceFixture.index)
            #expect(index.header("content-type") == "text/html; charset=utf-8")
            #expect(
                index.header("content-security-policy")
                    == "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
            let css = try await FaceHTTP.request(port: port, path: "/static/css/face.css")
            #expect(css.status == 200 && css.header("content-type") == "text/css; charset=utf-8")
            let js = try await FaceHTTP.request(port: port, path: "/static/js/app.js")
            #expect(js.status == 200 && js.header("content-type") == "text/javascript; charset=utf-8")
            #expect(js.header("cache-control") == "no-cache" && js.header("etag") != nil)
            let missing = try await FaceHTTP.request(port: port, path: "/static/nope.js")
            #expect(missing.status == 404)
            #expect(missing.header("content-security-policy") != nil)
        }
    }

    @Test("the face answers when the node may not change socket debugging (CAP_NET_ADMIN), as under the service's DynamicUser")
    func withoutNetAdmin() async throws {
        // The option once meant as TCP_NODELAY went to SOL_SOCKET, where 1 is SO_DEBUG: root could
        // set it, the service's user could not, and every connection to the face was closed.
        let setpriv = try #require(["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let port = freeLoopbackPort()
        let state = try makeTemporaryDirectory("no-net-admin")
        defer { try? FileManager.default.removeItem(atPath: state) }
        var environment = FaceFixture.environment(port: port, folder: try FaceFixture.folder())
        environment.merge([
            "NOISECLOCK_MQTT_PORT": "\(freeLoopbackPort())", "NOISECLOCK_STATE_DIR": state, "NOISECLOCK_BATTERY_SOURCE": "none",
            "NOISECLOCK_AUDIO_DEVICE": "null",
        ]) { _, new in new }
        // Dropped from the bounding set, the capability is in no set of the program exec'd.
        let node = try ChildProcess(
            setpriv, ["--bounding-set", "-net_admin", "--inh-caps", "-net_admin", NoiseClockBinary.path, "run", "--config", "/dev/null"],
            environment: environment, logPath: "\(state)/node.log")
        defer { node.signal(SIGKILL) }
        let answered = await eventually(timeout: .seconds(10)) {
            (try? await FaceHTTP.request(port: port, path: "/", timeout: .seconds(2)))?.status == 200
        }
        #expect(answered, "no page from the face without CAP_NET_ADMIN; log:\n\(node.log)")
        let capabilities = try String(contentsOfFile: "/proc/\(node.pid)/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("CapEff:") }.map(String.init) ?? ""
        let effective = UInt64(capabilities.split(separator: "\t").last.map(String.init) ?? "", radix: 16) ?? 0
        #expect(effective & (1 << 12) == 0, "CAP_NET_ADMIN (12) is still effective: \(capabilities)")
    }

    @Test("nothing outside the face folder is served, however the path is spelled", arguments: [
        "/static/../secret.txt", "/static/../Package.swift", "/static/%2e%2e/secret.txt", "/static/%2E%2E%2Fsecret.txt",
        "/static/..%2fsecret.txt", "/static/css/../../secret.txt", "/static//etc/passwd", "/static/%2Fetc%2Fpasswd",
        "/static/outside", "/static/index.html%00.css", "/static/..%5csecret.txt", "/../secret.txt", "/static/",
    ])
    func nothingOutside(path: String) async throws {
        try await withFaceNode { _, process, _, port in
            let response = try await FaceHTTP.request(port: port, path: path)
            #expect(response.status == 404 || response.status == 400, "\(path): \(response.status)")
            #expect(!response.text.contains("SECRET") && !response.text.contains("root:"))
            #expect(process.isRunning)
        }
    }

    @Test("GET /api/state holds exactly the retained states the broker holds")
    func stateMatchesBroker() async throws {
        try await withFaceNode { node, _, client, port in
            // Let the start-up states settle (the face's own status change among them).
            _ = await eventually { client.latest(node.topics.status)?["face"]?["ok"] == true }
            var matched = false
            for _ in 0..<3 where !matched {
                let state = try #require(try await FaceHTTP.request(port: port, path: "/api/state").json?.objectValue)
                let retained = try await withClient(port: node.port, subscriptions: ["\(node.topics.node)/#"]) { fresh in
                    _ = await eventually(timeout: .seconds(5)) { Set(fresh.messages.map(\.topic)).count >= state.count + 1 }
                    return Dictionary(fresh.messages.filter(\.retain).map { ($0.topic, $0.payload) }) { _, last in last }
                }
                let fromBroker = retained.filter { $0.key != node.topics.availability }
                    .reduce(into: [String: JSONValue]()) { $0[String($1.key.dropFirst(node.topics.node.count + 1))] = try? JSONValue.parse($1.value) }
                #expect(state.keys.sorted() == fromBroker.keys.sorted())
                matched = state == fromBroker
            }
            #expect(matched, "the face's /api/state and the broker's retained states differ")
        }
    }

    @Test("GET /api/strings/LANG is that language's catalog without Home Assistant's names; another language is 404")
    func strings() async throws {
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/i18n").path
        try await withFaceNode { _, _, _, port in
            for language in ["en", "de"] {
                let answer = try await FaceHTTP.request(port: port, path: "/api/strings/\(language)")
                #expect(answer.status == 200)
                let served = try #require(answer.json?.objectValue)
                let data = try #require(FileManager.default.contents(atPath: "\(resources)/\(language).json"))
                let file = try #require(try JSONValue.parse(Array(data)).objectValue)
                #expect(served == file.filter { !$0.key.hasPrefix("ha.") }, "\(language)")
                #expect(served["dock.settings"] == (language == "de" ? "Einstellungen" : "Settings"))
            }
            #expect(try await FaceHTTP.request(port: port, path: "/api/strings/fr").status == 404)
            #expect(try await FaceHTTP.request("POST", port: port, path: "/api/strings/de").status == 405)
        }
    }

    @Test("POST /api/cmd/alarm/add answers like MQTT, and the alarm reaches B/alarms and the WebSocket")
    func addAlarmOverHTTP() async throws {
        try await withFaceNode { node, _, client, port in
            let socket = try await FaceWebSocket(port: port)
            defer { Task { await socket.close() } }
            let snapshot = await socket.waitFor { $0["topic"] == "alarms" }
            #expect(snapshot != nil)
            let response = try await FaceHTTP.request(
                "POST", port: port, path: "/api/cmd/alarm/add", body: Array(#"{"time":"06:45","label":"face"}"#.utf8))
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            let id = try #require(response.json?["data"]?["id"]?.stringValue, "\(response.text)")
            let onMQTT = await client.latest(node.topics.alarms) { $0.items.contains { $0["id"] == .string(id) } == true }
            #expect(onMQTT?.items.first { $0["id"] == .string(id) }?["label"] == "face")
            let onSocket = await socket.waitFor { $0["topic"] == "alarms" && $0["payload"]?.items.contains { $0["id"] == .string(id) } == true }
            #expect(onSocket?["payload"]?.items.first { $0["id"] == .string(id) }?["label"] == "face")

            let invalid = try await FaceHTTP.request("POST", port: port, path: "/api/cmd/alarm/add", body: Array(#"{"time":"25:00"}"#.utf8))
            #expect(invalid.status == 400)
            #expect(invalid.json?["error"]?["field"] == "time")
            let unknown = try await FaceHTTP.request("POST", port: port, path: "/api/cmd/no/such/verb")
            #expect(unknown.status == 404 && unknown.json?["error"]?["code"] == "unknown_verb")
            let missing = try await FaceHTTP.request("POST", port: port, path: "/api/cmd/alarm/delete", body: Array(#"{"id":"nope"}"#.utf8))
            #expect(missing.status == 404 && missing.json?["error"]?["code"] == "not_found")
            let large = try await FaceHTTP.request(
                "POST", port: port, path: "/api/cmd/settings", body: Array(repeating: UInt8(ascii: " "), count: 64 * 1024 + 1))
            #expect(large.status == 413 && large.json?["error"]?["code"] == "too_large")
        }
    }

    @Test("a command over the WebSocket is answered exactly as the same command over MQTT", arguments: [
        ("settings", #"{"show_seconds":true,"transaction":"t1"}"#), ("alarm/add", #"{"time":"25:00"}"#),
        ("alarm/delete", #"{"id":"nope"}"#), ("settings", #""12h""#), ("dismiss", nil), ("no/such/verb", nil),
        ("settings", "[1,2]"),
    ] as [(String, String?)])
    func webSocketLikeMQTT(verb: String, payload: String?) async throws {
        try await withFaceNode { node, _, client, port in
            let socket = try await FaceWebSocket(port: port)
            defer { Task { await socket.close() } }
            let overSocket = try await socket.command(verb, payload: payload)
            // The MQTT client sends what the WebSocket payload serializes to (absent: empty).
            let bytes = try payload.map { try JSONValue.parse(Array($0.utf8)).serialized } ?? ""
            let overMQTT = try await client.request(node.topics, verb, bytes)
            #expect(overSocket == overMQTT)
            #expect(overSocket["status"] != nil)
        }
    }

    @Test("a state change reaches an MQTT subscriber and a WebSocket client alike; events too")
    func stateChangeReachesBoth() async throws {
        // With a day's notice every new alarm is announced at once: an event to watch for.
        try await withFaceNode(environment: ["NOISECLOCK_ALARMS_UPCOMING_MIN": "1440"]) { node, _, client, port in
            let socket = try await FaceWebSocket(port: port)
            defer { Task { await socket.close() } }
            let snapshot = await socket.waitFor { $0["topic"] == "settings" }
            #expect(snapshot != nil)
            client.publish(node.topics.command("settings"), #"{"time_format":"12h"}"#)
            let mqtt = await client.latest(node.topics.settings) { $0["time_format"] == "12h" }
            let ws = await socket.waitFor { $0["topic"] == "settings" && $0["payload"]?["time_format"] == "12h" }
            #expect(mqtt?["time_format"] == "12h" && ws?["payload"] == mqtt)
            let clock = await socket.waitFor { $0["topic"] == "clock" && $0["payload"]?["time_format"] == "12h" }
            #expect(clock?["payload"]?["time_format"] == "12h")

            client.publish(node.topics.command("alarm/add"), #"{"time":"12:00","label":"announced"}"#)
            let event = try #require(await client.waitFor(node.topics.event).flatMap { try? JSONValue.parse($0.payload) })
            #expect(event["event"] == "alarm_upcoming")
            let overSocket = await socket.waitFor { $0["type"] == "event" }
            #expect(overSocket?["payload"] == event)
        }
    }

    @Test("malformed frames are answered with invalid_json naming the field; the connection and node go on")
    func malformedFrames() async throws {
        try await withFaceNode { _, process, _, port in
            let socket = try await FaceWebSocket(port: port)
            defer { Task { await socket.close() } }
            try await socket.send("not json at all")
            try await socket.send(#"{"type":"command","id":"m2"}"#)
            try await socket.send(#"{"type":"command","verb":"settings","id":"m3","payload":{"show_seconds":"maybe"}}"#)
            try await socket.send(Array([0xFF, 0xFE]), opcode: .binary)
            #expect(await eventually { socket.messages.filter { $0["type"] == "response" }.count == 4 })
            let responses = socket.messages.filter { $0["type"] == "response" }
            #expect(responses.map { $0["payload"]?["error"]?["field"] } == ["frame", "verb", "show_seconds", "frame"])
            #expect(responses.map { $0["payload"]?["error"]?["code"] } == ["invalid_json", "invalid_json", "invalid_field", "invalid_json"])
            #expect(responses[1]["id"] == "m2")
            let ping = try await socket.command("ping")
            #expect(ping["status"] == "ok")
            #expect(process.isRunning)
        }
    }

    @Test("a 70 KiB frame closes that socket with 1009; the node and other clients go on")
    func oversizedFrame() async throws {
        try await withFaceNode { _, process, _, port in
            let other = try await FaceWebSocket(port: port)
            defer { Task { await other.close() } }
            let big = try await FaceWebSocket(port: port)
            // The node may close as soon as it has read the frame's length, while the rest of the
            // frame is still being written (with TCP_NODELAY the header goes out on its own): the
            // write then fails on the closed channel. The close frame has come all the same, and a
            // frame that never reached the node would get no 1009 below.
            try? await big.send(String(repeating: "x", count: 70 * 1024))
            #expect(await big.waitUntilClosed())
            #expect(big.closeCode == 1009)
            #expect(try await other.command("ping")["status"] == "ok")
            #expect(process.isRunning)
        }
    }

    @Test("a foreign Origin is refused with 403 before the upgrade, and on commands; the own Origin is let in")
    func foreignOrigin() async throws {
        try await withFaceNode { _, _, _, port in
            do {
                _ = try await FaceWebSocket(port: port, headers: [("Origin", "http://evil.example")])
                Issue.record("a foreign Origin was upgraded")
            } catch let refused as FaceWebSocket.Refused {
                #expect(refused.response?.status == 403)
            }
            let post = try await FaceHTTP.request(
                "POST", port: port, path: "/api/cmd/dismiss", headers: [("Origin", "http://evil.example")])
            #expect(post.status == 403)
            let own = try await FaceWebSocket(port: port, headers: [("Origin", "http://127.0.0.1:\(port)")])
            #expect(try await own.command("ping")["status"] == "ok")
            await own.close()
        }
    }

    @Test("off loopback (127.0.0.2) every request needs the token: Bearer, or ?token= once, which sets the cookie")
    func tokenOffLoopback() async throws {
        let directory = try makeTemporaryDirectory("token")
        let token = "face-token-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        try "\(token)\n".write(toFile: "\(directory)/token", atomically: true, encoding: .utf8)
        let host = "127.0.0.2"
        try await withFaceNode(bind: host, tokenFile: "\(directory)/token") { node, process, client, port in
            for path in ["/", "/static/css/face.css", "/api/state"] {
                let refused = try await FaceHTTP.request(host: host, port: port, path: path)
                #expect(refused.status == 401, "\(path)")
                #expect(refused.header("content-security-policy") != nil)
            }
            #expect(try await FaceHTTP.request("POST", host: host, port: port, path: "/api/cmd/ping").status == 401)
            #expect(try await FaceHTTP.request(host: host, port: port, path: "/", headers: [("Authorization", "Bearer wrong")]).status == 401)
            let bearer = try await FaceHTTP.request(host: host, port: port, path: "/api/state", headers: [("Authorization", "Bearer \(token)")])
            #expect(bearer.status == 200)

            #expect(try await FaceHTTP.request(host: host, port: port, path: "/?token=wrong").status == 401)
            let signIn = try await FaceHTTP.request(host: host, port: port, path: "/?token=\(token)")
            #expect(signIn.status == 303)
            #expect(signIn.header("location") == "/")
            let cookie = try #require(signIn.header("set-cookie"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let pair = String(cookie.split(separator: ";")[0])
            let page = try await FaceHTTP.request(host: host, port: port, path: "/", headers: [("Cookie", pair)])
            #expect(page.status == 200 && page.text == FaceFixture.index)

            do {
                _ = try await FaceWebSocket(host: host, port: port)
                Issue.record("a WebSocket without the token was upgraded")
            } catch let refused as FaceWebSocket.Refused {
                #expect(refused.response?.status == 401)
            }
            let socket = try await FaceWebSocket(host: host, port: port, headers: [("Cookie", pair), ("Origin", "http://\(host):\(port)")])
            #expect(try await socket.command("ping")["status"] == "ok")
            await socket.close()
            #expect(!process.log.contains(token), "the token was logged")
            let url = JSONValue.string("http://\(host):\(port)/")
            #expect(await client.latest(node.topics.status) { $0["face"]?["url"] == url }?["face"]?["url"] == url)
        }
    }

    @Test("a port in use does not stop the node: B/status says why, MQTT goes on, and the face comes once the port is free")
    func portInUse() async throws {
        let port = freeLoopbackPort()
        let blocker = try ListeningSocket(port: port)
        let environment = FaceFixture.environment(port: port, folder: try FaceFixture.folder())
        try await withNode(environment: environment) { node, process, client in
            let status = await client.latest(node.topics.status) { $0["face"]?["ok"] == false && $0["face"]?["error"] != .null }
            let error = status?["face"]?["error"]?.stringValue ?? ""
            #expect(error.contains("\(port)") && error.lowercased().contains("in use"), "\(error)")
            let ping = try await client.request(node.topics, "ping")
            #expect(ping["status"] == "ok")
            #expect(ping["data"]?["face"]?["ok"] == false)
            #expect(process.isRunning)
            blocker.close()
            // Tried again every 30 s.
            let recovered = await client.latest(node.topics.status, timeout: .seconds(40)) { $0["face"]?["ok"] == true }
            #expect(recovered?["face"]?["ok"] == true, "log:\n\(process.log)")
            #expect(try await FaceHTTP.request(port: port, path: "/").status == 200)
        }
    }

    @Test("a missing face folder is reported; the API still answers and / says 503")
    func missingFolder() async throws {
        try await withFaceNode(folder: "/nonexistent/face") { node, _, client, port in
            let status = await client.latest(node.topics.status) { $0["face"]?["ok"] == false }
            #expect(status?["face"]?["error"]?.stringValue?.contains("/nonexistent/face") == true)
            let page = try await FaceHTTP.request(port: port, path: "/")
            let state = try await FaceHTTP.request(port: port, path: "/api/state")
            #expect(page.status == 503)
            #expect(state.status == 200)
        }
    }

    @Test("B/status counts the WebSocket clients")
    func clientsInStatus() async throws {
        try await withFaceNode { node, _, client, port in
            let first = try await FaceWebSocket(port: port)
            let second = try await FaceWebSocket(port: port)
            #expect(await client.latest(node.topics.status) { $0["face"]?["clients"] == 2 }?["face"]?["clients"] == 2)
            await first.close()
            await second.close()
            #expect(await client.latest(node.topics.status) { $0["face"]?["clients"] == 0 }?["face"]?["clients"] == 0)
        }
    }
}

extension JSONValue {
    var items: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }
}

/// A TCP listener on 127.0.0.1:`port` that takes the port from the node.
final class ListeningSocket: @unchecked Sendable {
    // @unchecked Sendable: `fd` is closed once, by the owning test.
    private var fd: Int32

    init(port: Int) throws {
        // CLOEXEC: a node started afterwards must not inherit the socket and keep the port taken.
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}

@Suite("The clock face without a broker (SPEC §8)")
struct FaceWithoutBrokerTests {
    @Test("with no broker to reach, the face still serves the node's states and its commands change them")
    func noBroker() async throws {
        let port = freeLoopbackPort()
        // A broker port nobody listens on: the node keeps retrying it while it runs.
        let node = try NodeProcess(
            port: freeLoopbackPort(),
            environment: FaceFixture.environment(port: port, folder: try FaceFixture.folder()).merging(["NOISECLOCK_AUDIO_DEVICE": "null"]) { _, b in b })
        try await withStopping(node) { node in
            let process = try node.start()
            let up = await eventually(timeout: .seconds(10)) {
                (try? await FaceHTTP.request(port: port, path: "/api/state", headers: [])) != nil
            }
            try #require(up, "the face did not listen; log:\n\(process.log)")
            let added = try await FaceHTTP.request(
                "POST", port: port, path: "/api/cmd/alarm/add", headers: [], body: Array(#"{"time":"06:45","label":"Offline"}"#.utf8))
            #expect(added.status == 200, "\(added.text)")
            let state = try await FaceHTTP.request(port: port, path: "/api/state", headers: [])
            let json = try JSONValue.parse(Array(state.text.utf8))
            #expect(json.objectValue?["alarms"]?.serialized.contains("Offline") == true, "\(state.text.prefix(400))")
            #expect(json.objectValue?["clock"]?.objectValue?["time"] != nil)
            // The face's socket gets the states and answers commands too.
            let socket = try await FaceWebSocket(port: port)
            try await socket.send(#"{"type":"command","verb":"ping","id":"p"}"#)
            let answer = await socket.waitFor { $0["id"] == "p" }
            #expect(answer?["payload"]?["status"] == "ok")
            await socket.close()
            #expect(process.log.contains("connect") || process.log.contains("broker"), "the node is retrying the broker")
        }
    }
}

import Logging
import NIOCore
import NoiseClockCore
import NoiseClockHub
import NoiseClockFace
import NoiseClockTestSupport
import Synchronization
import Testing

/// The server in this process, with a hub and a stand-in router, and short timers.
@Suite("Face server in process: WebSocket feed, liveness, idle connections")
struct FaceServerTests {
    /// Runs `body` with a server on a free loopback port; `respond` echoes the verb and payload.
    func withServer(
        token: String? = nil, options: FaceServer.Options = FaceServer.Options(), clientsChanged: @escaping @Sendable (Int) -> Void = { _ in },
        _ body: (FaceServer, StateHub, Int) async throws -> Void
    ) async throws {
        let hub = StateHub()
        var logger = Logger(label: "face-test")
        // Each connection's upgrade, client and request timeout is logged: a failure shows its story.
        logger.logLevel = .debug
        let server = FaceServer(
            access: FaceAccess(token: token), hub: hub, options: options, logger: logger,
            respond: { verb, payload in
                ["status": "ok", "data": ["verb": .string(verb), "payload": .string(String(decoding: payload, as: UTF8.self))]]
            },
            clientsChanged: clientsChanged)
        server.currentFolder = FaceFolder(try FaceFixture.folder())
        let port = freeLoopbackPort()
        let channel = try await server.bind(host: "127.0.0.1", port: port)
        do {
            try await body(server, hub, port)
        } catch {
            try? await channel.close()
            throw error
        }
        try? await channel.close()
    }

    @Test("a client gets every retained state first, in order, then each change and event in order")
    func feedOrder() async throws {
        try await withServer { _, hub, port in
            hub.publish("clock", ["time": "07:00"])
            hub.publish("alarms", [])
            hub.publish("clock", ["time": "07:01"])
            let socket = try await FaceWebSocket(port: port)
            defer { Task { await socket.close() } }
            // The 101 can reach the client a moment before the server has subscribed it: wait for the snapshot.
            // (Not as `#expect(await socket.waitFor { … } != nil)`: with that form a later `waitFor` here
            // returned the snapshot's message for a predicate it does not satisfy; a plain `let` is sound.)
            let snapshot = await socket.waitFor { $0["topic"] == "alarms" }
            #expect(snapshot != nil)
            for minute in 2..<40 { hub.publish("clock", ["time": .string("07:\(minute)")]) }
            hub.emit(["event": "alarm_ringing"])
            let event = await socket.waitFor { $0["type"] == "event" }
            #expect(event?["payload"]?["event"] == "alarm_ringing")
            let messages = socket.messages
            #expect(messages.first == ["type": "state", "topic": "clock", "payload": ["time": "07:01"]])
            #expect(messages.dropFirst().first == ["type": "state", "topic": "alarms", "payload": []])
            let times = messages.dropFirst(2).compactMap { $0["payload"]?["time"]?.stringValue }
            #expect(times == (2..<40).map { "07:\($0)" })
            #expect(messages.last?["type"] == "event")
        }
    }

    @Test("commands are answered in the order sent, each with its id")
    func commandOrder() async throws {
        try await withServer { _, _, port in
            let socket = try await FaceWebSocket(port: port)
            defer { Task { await socket.close() } }
            for index in 0..<20 {
                try await socket.send(#"{"type":"command","verb":"v\#(index)","id":"c\#(index)","payload":{"n":\#(index)}}"#)
            }
            #expect(await eventually { socket.messages.filter { $0["type"] == "response" }.count == 20 })
            let responses = socket.messages.filter { $0["type"] == "response" }
            #expect(responses.map { $0["id"] } == (0..<20).map { .string("c\($0)") })
            #expect(responses.first?["payload"]?["data"]?["payload"] == #"{"n":0}"#)
        }
    }

    @Test("a connection that sends no whole request in time is closed")
    func idleConnection() async throws {
        var options = FaceServer.Options()
        options.requestTimeout = .milliseconds(500)
        try await withServer(options: options) { _, _, port in
            // Half a request, never finished.
            let (received, openFor) = try await FaceHTTP.exchangeUntilClosed(
                port: port, Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8), timeout: .seconds(60))
            #expect(received.isEmpty)
            // Closed by the server after its 0.5 s, well before the default 10 s (loosely: a loaded
            // machine is slow; timed on the connection's event loop, not by this test task).
            let open = try #require(openFor, "the server did not close the connection")
            #expect(open >= .milliseconds(450) && open < .seconds(5))
        }
    }

    @Test("a message over 64 KiB, whole or in fragments, closes the socket with 1009; smaller ones are fine")
    func oversized() async throws {
        try await withServer { _, _, port in
            let whole = try await FaceWebSocket(port: port)
            // The server may close as soon as it reads the frame's length, before the write ends.
            try? await whole.send(Array(repeating: UInt8(ascii: " "), count: 70 * 1024))
            #expect(await whole.waitUntilClosed())
            #expect(whole.closeCode == 1009)

            let pieces = try await FaceWebSocket(port: port)
            let chunk = Array(repeating: UInt8(ascii: " "), count: 20 * 1024)
            try await pieces.send(chunk, opcode: .text, fin: false)
            // The fourth piece passes 64 KiB and the server closes; two more follow it, as from a
            // client that has not read the close yet: the server drops them (closing at once would
            // answer them with a reset, which can destroy the close frame before it is read).
            for _ in 0..<5 { try? await pieces.send(chunk, opcode: .continuation, fin: false) }
            #expect(await pieces.waitUntilClosed())
            #expect(pieces.closeCode == 1009)

            let fine = try await FaceWebSocket(port: port)
            defer { Task { await fine.close() } }
            let padding = String(repeating: " ", count: 60 * 1024)
            try await fine.send(#"{"type":"command","verb":"ping","id":"big"\#(padding)}"#)
            let answer = await fine.waitFor { $0["id"] == "big" }
            #expect(answer?["payload"]?["status"] == "ok")
        }
    }

    @Test("the client count follows connects and disconnects")
    func clientCount() async throws {
        final class Counts: Sendable { let values = Mutex<[Int]>([]) }
        let counts = Counts()
        try await withServer(clientsChanged: { count in counts.values.withLock { $0.append(count) } }) { _, _, port in
            let first = try await FaceWebSocket(port: port)
            let second = try await FaceWebSocket(port: port)
            let counted = await eventually { counts.values.withLock { $0.last } == 2 }
            #expect(counted, "counts \(counts.values.withLock { $0 }); first closed: \(first.isClosed) (\(first.closeReason ?? "-")), second closed: \(second.isClosed) (\(second.closeReason ?? "-"))")
            await first.close()
            await second.close()
            #expect(await eventually { counts.values.withLock { $0.last } == 0 })
            #expect(counts.values.withLock { $0 } == [1, 2, 1, 0])
        }
    }

    @Test("GET /static answers 304 to a matching If-None-Match")
    func notModified() async throws {
        try await withServer { _, _, port in
            let first = try await FaceHTTP.request(port: port, path: "/static/js/app.js")
            #expect(first.status == 200)
            #expect(first.header("content-type") == "text/javascript; charset=utf-8")
            let etag = try #require(first.header("etag"))
            let again = try await FaceHTTP.request(port: port, path: "/static/js/app.js", headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
        }
    }
}

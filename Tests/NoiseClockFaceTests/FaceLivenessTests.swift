import NIOCore
import NoiseClockCore
@testable import NoiseClockFace
import NoiseClockTestSupport
import Testing

/// The face server's liveness check: two pings unanswered close a WebSocket client.
@Suite("Face server in process: a client that answers no ping is closed")
struct FaceLivenessTests {
    /// `FaceServerTests.withServer` with its ping interval set.
    func withServer(pingInterval: TimeAmount, _ body: (FaceServer, Int) async throws -> Void) async throws {
        var options = FaceServer.Options()
        options.pingInterval = pingInterval
        try await FaceServerTests().withServer(options: options) { server, _, port in try await body(server, port) }
    }

    @Test("a client that answers no ping is closed after two; one that answers stays")
    func liveness() async throws {
        // The pings are sent by the test, one round at a time, each once the server has read the
        // lively client's answer to the one before: no timer, so a loaded machine (where an
        // answer can take seconds) cannot make the lively client look dead.
        try await withServer(pingInterval: .hours(1)) { server, port in
            let silent = try await FaceWebSocket(port: port)
            silent.answersPings = false
            let lively = try await FaceWebSocket(port: port)
            defer { Task { await lively.close() } }
            let clients = server.clients
            let counted = await eventually(timeout: .seconds(60)) { (try? await clients.loop.submit { clients.count }.get()) == 2 }
            let count = try await clients.loop.submit { clients.count }.get()
            #expect(counted, "\(count) clients counted; silent closed: \(silent.isClosed), lively closed: \(lively.isClosed)")
            for round in 1...3 {
                try await clients.loop.submit { clients.pingAll() }.get()
                // Waiting on events: the lively client's answer read by the server (only the
                // silent one still owes one), or the silent one closed by the third round.
                let settled = await eventually(timeout: .seconds(60)) {
                    (try? await clients.loop.submit { clients.awaitingPong }.get()) == (round < 3 ? 1 : 0)
                }
                #expect(settled, "round \(round): the lively client's answer was not read")
                #expect(lively.pingsReceived == round)
            }
            // Two pings went unanswered: the third round closed the silent client.
            #expect(await silent.waitUntilClosed(timeout: .seconds(60)))
            #expect(silent.pingsReceived == 2)
            #expect(!lively.isClosed)
            #expect(await eventually(timeout: .seconds(60)) { (try? await clients.loop.submit { clients.count }.get()) == 1 })
        }
    }

    @Test("the server's own timer pings a client")
    func pingTimer() async throws {
        try await withServer(pingInterval: .milliseconds(200)) { _, port in
            let socket = try await FaceWebSocket(port: port)
            defer { Task { await socket.close() } }
            // However late they come on a busy machine, pings come. (Whether this client stays is
            // not asked here: at 200 ms a loaded machine can delay its answers past two pings, and
            // then closing it is right; the test above keeps a lively client without a timer.)
            #expect(await eventually(timeout: .seconds(60)) { socket.pingsReceived >= 2 })
        }
    }
}

import NoiseClockHTTP
import NoiseClockTestSupport
import Testing
@testable import NoiseClockStreams

@Suite("The node's HTTP client (libcurl) against real and hostile servers")
struct HTTPClientTests {
    let client = HTTPClient()

    @Test("a body, its status and its content type")
    func body() async throws {
        let server = try FaultServer(.body("[playlist]\nFile1=http://127.0.0.1:1/a\n", contentType: "audio/x-scpls"))
        let response = try await client.fetch(server.url)
        #expect(response.status == 200)
        #expect(response.contentType == "audio/x-scpls")
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("[playlist]"))
    }

    @Test("a body over the limit fails too_large, and no more of it is kept")
    func tooLarge() async throws {
        let server = try FaultServer(.body(String(repeating: "x", count: 100_000), contentType: "text/plain"))
        await #expect(throws: HTTPError(.tooLarge, "the answer of \(server.url) is larger than 10000 bytes")) {
            try await client.fetch(server.url, limits: HTTPLimits(maxBodyBytes: 10_000))
        }
    }

    @Test("a redirect loop ends at the redirect limit")
    func redirectLoop() async throws {
        let server = try FaultServer(.redirectLoop)
        let error = await #expect(throws: HTTPError.self) { try await client.fetch(server.url) }
        #expect(error?.kind == .redirects)
        #expect(server.connectionCount == 11)
    }

    @Test("a server that never answers is given up at the timeout")
    func silent() async throws {
        let server = try FaultServer(.silent)
        let error = await #expect(throws: HTTPError.self) { try await client.fetch(server.url, limits: HTTPLimits(timeout: .seconds(1))) }
        #expect(error?.kind == .timeout)
    }

    @Test("cancelling the task ends the transfer")
    func cancel() async throws {
        let server = try FaultServer(.silent)
        let client = client
        let fetch = Task { try await client.fetch(server.url, limits: HTTPLimits(timeout: .seconds(600))) }
        #expect(await eventually { server.connectionCount > 0 })
        fetch.cancel()
        let result = await fetch.result
        #expect(throws: HTTPError(.cancelled, "the fetch of \(server.url) was cancelled")) { try result.get() }
    }

    @Test("HTTPS is checked against the CA store: a certificate it does not sign is refused, one it does is accepted")
    func tls() async throws {
        let server = try await TLSServer()
        let refused = await #expect(throws: HTTPError.self) { try await client.fetch(server.url) }
        #expect(refused?.kind == .tls)
        let response = try await client.fetch(server.url, limits: HTTPLimits(caFile: server.certificate))
        #expect(response.status == 200)
    }

    @Test("only http and https addresses are fetched")
    func schemes() async {
        let error = await #expect(throws: HTTPError.self) { try await client.fetch("file:///etc/passwd") }
        #expect(error?.kind == .invalid)
    }
}

@Suite("Resolving a station's address to its streams", .serialized)
struct StationResolverTests {
    @Test("a stream's own address is the stream: its headers are read, nothing of its audio")
    func stream() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("live", .mp3)
        let response = try await HTTPClient().fetch(icecast.url("live")) { Playlist.mayBePlaylist(contentType: $0, url: icecast.url("live")) }
        #expect(response.stoppedAtHeaders)
        #expect(response.body.isEmpty)
        #expect(try await StationResolver().streams(of: icecast.url("live")) == [icecast.url("live")])
    }

    @Test("a playlist within a playlist resolves to the streams they name, in order, each once")
    func nested() async throws {
        let inner = try FaultServer(.body("[playlist]\nFile1=http://127.0.0.1:9/one.mp3\nFile2=http://127.0.0.1:9/two.aac\n", contentType: "audio/x-scpls"))
        let outer = try FaultServer(.body("#EXTM3U\n\(inner.url).pls\nhttp://127.0.0.1:9/one.mp3\nhttp://127.0.0.1:9/three.ogg\n", contentType: "audio/x-mpegurl"))
        #expect(try await StationResolver().streams(of: outer.url) == [
            "http://127.0.0.1:9/one.mp3", "http://127.0.0.1:9/two.aac", "http://127.0.0.1:9/three.ogg",
        ])
    }

    @Test("a playlist that names itself ends with an error, not a loop")
    func selfPlaylist() async throws {
        let server = try FaultServer(.selfPlaylist)
        let error = await #expect(throws: HTTPError.self) { try await StationResolver().streams(of: server.url) }
        #expect(error?.message.contains("names itself") == true)
        #expect(server.connectionCount <= 2)
    }

    @Test("a playlist whose server cannot be reached fails with the reason")
    func unreachable() async throws {
        let port = freeLoopbackPort()
        let error = await #expect(throws: HTTPError.self) { try await StationResolver().streams(of: "http://127.0.0.1:\(port)/radio.pls") }
        #expect(error?.kind == .connect)
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

// Every form of stream SPEC §15 names, played by a whole node (a real broker, the helper, an ALSA
// file sink) from real servers: Icecast fed by ffmpeg, HLS written by ffmpeg and served by a plain
// HTTP server, playlists, HTTPS from `openssl s_server` with a CA the test made.

/// The node's environment for a raw file sink at `sink`, short fades, and more.
func streamNodeEnvironment(sink: String, _ more: [String: String] = [:]) -> [String: String] {
    ["NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "100"].merging(more) { _, new in new }
}

/// The node's file: `buffer_s` 2 and these stations.
func streamStations(_ stations: [(id: String, url: String)]) -> String {
    "radio:\n  buffer_s: 2\n  stations:\n" + stations.map { "    - {id: \($0.id), name: \"\($0.id)\", url: \"\($0.url)\"}\n" }.joined()
}

/// The first `B/radio` that `matches` since the client's inbox was last cleared.
func streamState(_ client: TestClient, _ topics: Topics, timeout: Duration = .seconds(60), where matches: @escaping @Sendable (JSONValue) -> Bool)
    async -> JSONValue?
{
    await client.waitFor(topics.state(StateTopic.radio), timeout: timeout) { message in
        (try? JSONValue.parse(message.payload)).map(matches) ?? false
    }.flatMap { try? JSONValue.parse($0.payload) }
}

/// The first `B/radio` in `state` since the client's inbox was last cleared.
func streamState(_ client: TestClient, _ topics: Topics, _ state: String, timeout: Duration = .seconds(60)) async -> JSONValue? {
    await streamState(client, topics, timeout: timeout) { $0["state"]?.stringValue == state }
}

/// Plays `payload` (`radio/play`) from a cleared inbox and returns the first `B/radio` in `state`.
func play(_ client: TestClient, _ node: NodeProcess, _ payload: String, until state: String) async throws -> JSONValue? {
    client.clear()
    let answer = try await client.request(node.topics, "radio/play", payload)
    #expect(answer["status"] == "ok", "radio/play \(payload): \(answer.serialized)")
    return await streamState(client, node.topics, state)
}

/// The pitch of the sink's next `seconds` (from where it is now), in half seconds with their level.
func heardNext(_ sink: String, seconds: Double) async -> [(pitch: Double, rms: Double)] {
    let from = samples(sink).count
    let wanted = from + Int(seconds * 88_200)
    guard await eventually(timeout: .seconds(30), { samples(sink).count >= wanted }) else { return [] }
    let audio = Array(samples(sink)[from..<wanted])
    return stride(from: 0, to: audio.count - 44_100 + 1, by: 44_100).map { start in
        let half = Array(audio[start..<(start + 44_100)])
        return (pitch(half), rms(half, from: 0, to: 0.5))
    }
}

/// Whether at least `count` half seconds carry `frequency` (within 10 Hz) at a level.
func carries(_ heard: [(pitch: Double, rms: Double)], _ frequency: Double, count: Int) -> Bool {
    heard.filter { abs($0.pitch - frequency) < 10 && $0.rms > 1_000 }.count >= count
}

/// The `noiseclock-stream` helpers the process `pid` has running now.
func streamHelpers(of pid: pid_t) -> [pid_t] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    let children = tasks.flatMap { task in
        ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { pid_t($0) }
    }
    return children.filter { child in
        let name = (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) ?? ""
        let state = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?.split(separator: ")").last?.split(separator: " ").first
        return name.hasPrefix("noiseclock-stre") && state != "Z"
    }
}

@Suite("Every stream form from real servers, played by a node into an ALSA file sink")
struct RadioStreamTests {
    @Test("Ogg Vorbis, Opus and FLAC mounts of Icecast are each heard at the sink with their codec in B/radio")
    func formats() async throws {
        let icecast = try await Icecast()
        let mounts: [(Icecast.Format, codec: String, frequency: Int)] = [(.vorbis, "vorbis", 440), (.opus, "opus", 550), (.flac, "flac", 660)]
        for (format, _, frequency) in mounts { try await icecast.feed(format.rawValue, format, frequency: frequency) }
        let directory = try makeTemporaryDirectory("radio-formats")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        let configuration = streamStations(mounts.map { ($0.0.rawValue, icecast.url($0.0.rawValue)) })
        try await withNode(environment: streamNodeEnvironment(sink: sink), configuration: configuration) { node, process, client in
            for (format, codec, frequency) in mounts {
                let playing = try await play(client, node, #"{"station":"\#(format.rawValue)","volume":100}"#, until: "playing")
                #expect(playing?["codec"]?.stringValue == codec, "B/radio: \(playing?.serialized ?? "none"); log:\n\(process.log)")
                let heard = await heardNext(sink, seconds: 3)
                #expect(carries(heard, Double(frequency), count: 3), "\(codec): \(frequency) Hz at the sink; heard \(heard)")
            }
            _ = try await client.request(node.topics, "radio/stop")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("HLS written by ffmpeg and served by a plain HTTP server plays, and keeps playing across its segments")
    func hls() async throws {
        let directory = try makeTemporaryDirectory("radio-hls")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let segments = "\(directory)/live"
        try FileManager.default.createDirectory(atPath: segments, withIntermediateDirectories: true)
        let writer = try ChildProcess(Icecast.ffmpeg, [
            "-nostdin", "-hide_banner", "-loglevel", "warning", "-re", "-f", "lavfi", "-i", "sine=frequency=550:sample_rate=44100", "-ac", "2",
            "-c:a", "aac", "-b:a", "64k", "-f", "hls", "-hls_time", "1", "-hls_list_size", "6",
            "-hls_flags", "delete_segments+temp_file", "\(segments)/live.m3u8",
        ], logPath: "\(directory)/ffmpeg.log")
        defer { writer.signal(SIGKILL) }
        #expect(await eventually(timeout: .seconds(30)) {
            ((try? String(contentsOfFile: "\(segments)/live.m3u8", encoding: .utf8)) ?? "").components(separatedBy: ".ts").count > 3
        }, "ffmpeg wrote no playlist: \(writer.log)")
        let server = try FileServer(directory: segments)
        let sink = "\(directory)/out.raw"
        try await withNode(environment: streamNodeEnvironment(sink: sink)) { node, process, client in
            let playing = try await play(client, node, #"{"url":"\#(server.url("live.m3u8"))","volume":100}"#, until: "playing")
            #expect(playing?["codec"] == "aac", "B/radio: \(playing?.serialized ?? "none"); log:\n\(process.log)")
            let fetchedBefore = Set(server.requests.filter { $0.hasSuffix(".ts") })
            let heard = await heardNext(sink, seconds: 5)
            // The first half second may be the sink's lag behind B/radio.
            #expect(carries(heard, 550, count: 8), "550 Hz all along; heard \(heard)")
            let fetched = Set(server.requests.filter { $0.hasSuffix(".ts") }).subtracting(fetchedBefore)
            #expect(fetched.count >= 3, "segments fetched while it played: \(fetched.sorted())")
            let states = client.messages(on: node.topics.state(StateTopic.radio)).compactMap { try? JSONValue.parse($0.payload)["state"]?.stringValue }
            #expect(!states.contains("retrying"), "B/radio states: \(states)")
            _ = try await client.request(node.topics, "radio/stop")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("playlists are resolved at each start: .pls, .m3u, nested ones up to 5 levels, entries in order; one that names itself, goes deeper or is huge is a clear error")
    func playlists() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("a", .mp3, frequency: 440)
        try await icecast.feed("b", .mp3, frequency: 660)
        let directory = try makeTemporaryDirectory("radio-playlists")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lists = "\(directory)/lists"
        try FileManager.default.createDirectory(atPath: lists, withIntermediateDirectories: true)
        let server = try FileServer(directory: lists)
        func write(_ name: String, _ text: String) throws { try text.write(toFile: "\(lists)/\(name)", atomically: true, encoding: .utf8) }
        let dead = "http://127.0.0.1:\(freeLoopbackPort())/dead.mp3"
        try write("a.pls", "[playlist]\nFile1=\(icecast.url("a"))\nNumberOfEntries=1\n")
        try write("changing.m3u", "#EXTM3U\n\(icecast.url("a"))\n")
        try write("order.m3u", "#EXTM3U\n\(dead)\n\(icecast.url("b"))\n\(icecast.url("a"))\n")
        try write("self.pls", "[playlist]\nFile1=\(server.url("self.pls"))\n")
        // Five levels of playlists play; six are refused.
        for level in 1...6 { try write("deep\(level).m3u", (level < 6 ? server.url("deep\(level + 1).m3u") : icecast.url("b")) + "\n") }
        try write("five.m3u", server.url("deep3.m3u") + "\n")
        // A playlist of 2 MB (SPEC §8: a feed of 100 MB) is cut at 64 KiB.
        try write("huge.m3u", "#EXTM3U\n" + String(repeating: "# \(String(repeating: "x", count: 1000))\n", count: 2_000) + icecast.url("a") + "\n")
        let sink = "\(directory)/out.raw"
        try await withNode(environment: streamNodeEnvironment(sink: sink)) { node, process, client in
            var playing = try await play(client, node, #"{"url":"\#(server.url("a.pls"))","volume":100}"#, until: "playing")
            #expect(playing != nil, "a .pls plays; log:\n\(process.log)")
            #expect(carries(await heardNext(sink, seconds: 2), 440, count: 2), "the .pls's stream at the sink")

            _ = try await play(client, node, #"{"url":"\#(server.url("changing.m3u"))"}"#, until: "playing")
            #expect(carries(await heardNext(sink, seconds: 2), 440, count: 2), "the .m3u's first stream at the sink")
            _ = try await client.request(node.topics, "radio/stop")
            try write("changing.m3u", "#EXTM3U\n\(icecast.url("b"))\n")
            _ = try await play(client, node, #"{"url":"\#(server.url("changing.m3u"))"}"#, until: "playing")
            #expect(carries(await heardNext(sink, seconds: 2), 660, count: 2), "read again at the next start: its new stream at the sink")

            // The dead first entry is tried, then the second is heard (not the third).
            playing = try await play(client, node, #"{"url":"\#(server.url("order.m3u"))"}"#, until: "playing")
            #expect(carries(await heardNext(sink, seconds: 2), 660, count: 2), "the second entry at the sink")

            playing = try await play(client, node, #"{"url":"\#(server.url("five.m3u"))"}"#, until: "playing")
            #expect(playing != nil, "five levels play")

            var failing = try await play(client, node, #"{"url":"\#(server.url("self.pls"))"}"#, until: "retrying")
            #expect(failing?["error"]?.stringValue?.contains("names itself") == true, "B/radio: \(failing?.serialized ?? "none")")
            failing = try await play(client, node, #"{"url":"\#(server.url("deep1.m3u"))"}"#, until: "retrying")
            #expect(failing?["error"]?.stringValue?.contains("more than 5 deep") == true, "B/radio: \(failing?.serialized ?? "none")")
            failing = try await play(client, node, #"{"url":"\#(server.url("huge.m3u"))"}"#, until: "retrying")
            #expect(failing?["error"]?.stringValue?.contains("larger than 65536 bytes") == true, "B/radio: \(failing?.serialized ?? "none")")

            _ = try await client.request(node.topics, "radio/stop")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("HTTPS plays with a CA the test made (SSL_CERT_FILE); a certificate it did not sign, a redirect to HTTP and a redirect loop are each refused with a clear error")
    func https() async throws {
        // Where the redirects lead: a plain HTTP server with a tone the node must not play.
        let directory = try makeTemporaryDirectory("radio-https")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (made, output) = try await runTool(Icecast.ffmpeg, [
            "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=30",
            "-c:a", "libmp3lame", "-b:a", "128k", "\(directory)/tone.mp3",
        ])
        try #require(made == 0, "ffmpeg: \(output)")
        let http = try FileServer(directory: directory)
        let plain = http.url("tone.mp3")
        let redirect = "HTTP/1.0 302 Found\r\nLocation: \(plain)\r\nContent-Length: 0\r\n\r\n"
        let trusted = try await TLSServer(responses: ["to-http.mp3": redirect, "to-http": redirect])
        let stranger = try await TLSServer()
        let loop = try FaultServer(.redirectLoop)
        let sink = "\(directory)/out.raw"
        try await withNode(environment: streamNodeEnvironment(sink: sink, ["SSL_CERT_FILE": trusted.certificate])) { node, process, client in
            let playing = try await play(client, node, #"{"url":"\#(trusted.url)","volume":100}"#, until: "playing")
            #expect(playing?["codec"] == "mp3", "B/radio: \(playing?.serialized ?? "none"); log:\n\(process.log)")
            #expect(carries(await heardNext(sink, seconds: 2), 440, count: 2), "the HTTPS stream at the sink")

            var failing = try await play(client, node, #"{"url":"\#(stranger.url)"}"#, until: "retrying")
            #expect(failing?["error"]?.stringValue?.contains("certificate could not be verified") == true, "B/radio: \(failing?.serialized ?? "none")")
            for path in ["to-http.mp3", "to-http"] {
                let url = trusted.url.replacingOccurrences(of: "tone.mp3", with: path)
                failing = try await play(client, node, #"{"url":"\#(url)"}"#, until: "retrying")
                #expect(failing?["error"]?.stringValue?.contains("HTTPS may not lead to HTTP") == true, "\(path): B/radio: \(failing?.serialized ?? "none")")
                let states = client.messages(on: node.topics.state(StateTopic.radio)).compactMap { try? JSONValue.parse($0.payload)["state"]?.stringValue }
                #expect(!states.contains("buffering") && !states.contains("playing"), "\(path): nothing of the plain HTTP server is played: \(states)")
            }
            failing = try await play(client, node, #"{"url":"\#(loop.url)"}"#, until: "retrying")
            #expect(failing?["error"]?.stringValue?.contains("more than 10 redirects") == true, "B/radio: \(failing?.serialized ?? "none")")
            #expect(loop.connectionCount <= 11)

            _ = try await client.request(node.topics, "radio/stop")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }
}

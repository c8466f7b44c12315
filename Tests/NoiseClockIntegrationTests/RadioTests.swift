import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// The environment of a node that plays into the raw file `sink`, with short fades.
private func fileSink(_ sink: String) -> [String: String] {
    ["NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "100"]
}

/// The node's file with one station per mount of `icecast`.
private func stations(_ icecast: Icecast, _ mounts: [(id: String, mount: String)]) -> String {
    "radio:\n  buffer_s: 2\n  stations:\n"
        + mounts.map { "    - {id: \($0.id), name: \"\($0.id.uppercased()) FM\", url: \"\(icecast.url($0.mount))\"}\n" }.joined()
}

/// The first `B/radio` in `state` (`nil`: any) since the client's inbox was last cleared.
private func radioState(_ client: TestClient, _ topics: Topics, _ state: String?) async -> JSONValue? {
    await client.waitFor(topics.state(StateTopic.radio)) { message in
        guard let value = try? JSONValue.parse(message.payload) else { return false }
        return state == nil || value["state"]?.stringValue == state
    }.flatMap { try? JSONValue.parse($0.payload) }
}

private func event(_ client: TestClient, _ topics: Topics, _ name: String) async -> JSONValue? {
    await client.waitFor(topics.event) { (try? JSONValue.parse($0.payload)["event"]) == .string(name) }
        .flatMap { try? JSONValue.parse($0.payload) }
}

/// The stretches of at least a second of a raw sink file that carry a steady tone (RMS above
/// `floor`): each one's pitch, in order.
private func tones(_ audio: [Int16], floor: Double = 500) -> [Double] {
    let window = 0.1, count = Int(window * 44_100) * 2
    let levels = windowedRMS(audio, window: window)
    var pitches: [Double] = [], run: [Int] = []
    func close() {
        // The middle of the run: its fades left out.
        if run.count >= 10 {
            let from = (run[2]) * count, to = (run[run.count - 3] + 1) * count
            pitches.append(pitch(Array(audio[from..<to])))
        }
        run = []
    }
    for (index, level) in levels.enumerated() {
        if level > floor { run.append(index) } else { close() }
    }
    close()
    return pitches
}

@Suite("Radio from a real Icecast, fed by ffmpeg, into an ALSA file sink", .serialized)
struct RadioTests {
    @Test("radio/play plays a station to the sink; B/radio says playing with its codec and title; radio/stop stops it; the events follow")
    func playAndStop() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3, frequency: 440, name: "Test FM")
        let directory = try makeTemporaryDirectory("radio")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        try await withNode(environment: fileSink(sink), configuration: stations(icecast, [("test", "mp3")])) { node, process, client in
            let idle = await radioState(client, node.topics, "idle")
            #expect(idle?["stations"]?.arrayCount == 1)
            #expect(idle?["stations"]?.items.first?["name"] == "TEST FM")

            let played = try await client.request(node.topics, "radio/play", #"{"station":"test","volume":100}"#)
            #expect(played["status"] == "ok", "\(played.serialized)")
            #expect(played["data"]?["station"] == "test")
            #expect(await event(client, node.topics, "radio_started")?["station"] == "test")
            let playing = await radioState(client, node.topics, "playing")
            #expect(playing?["playing"] == true)
            #expect(playing?["codec"] == "mp3")
            #expect(playing?["name"] == "TEST FM")

            try await icecast.setTitle("mp3", "Morning <i>Show</i>")
            let titled = await client.waitFor(node.topics.state(StateTopic.radio)) { message in
                (try? JSONValue.parse(message.payload))?["now_playing"]?.stringValue == "Morning Show"
            }
            #expect(titled != nil, "the ICY title reaches B/radio as plain text")

            // Two seconds of the station at the sink, counted by its samples.
            let start = samples(sink).count
            #expect(await eventually { samples(sink).count > start + 3 * 88_200 })
            let stopped = try await client.request(node.topics, "radio/stop")
            #expect(stopped["data"]?["playing"] == false)
            #expect(await event(client, node.topics, "radio_stopped")?["reason"] == "command")
            #expect(await radioState(client, node.topics, "idle") != nil)

            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
            let heard = tones(samples(sink))
            #expect(heard.contains { abs($0 - 440) < 10 }, "the station's 440 Hz at the sink; tones heard: \(heard)")
        }
    }

    @Test("radio and noise are one player: each stops the other, noise/stop and noise/toggle stop a station, noise/play radio:<id> plays it")
    func onePlayer() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3)
        try await withNode(environment: ["NOISECLOCK_AUDIO_DEVICE": "null"], configuration: stations(icecast, [("test", "mp3")])) { node, process, client in
            _ = try await client.request(node.topics, "noise/play", "pink-noise")
            var answer = try await client.request(node.topics, "radio/play", "test")
            #expect(answer["data"]?["playing"] == true)
            #expect(await event(client, node.topics, "noise_stopped")?["reason"] == "radio")
            #expect(await client.waitFor(node.topics.noise) { (try? JSONValue.parse($0.payload)["playing"]) == false } != nil)

            client.clear()
            answer = try await client.request(node.topics, "noise/play", "pink-noise")
            #expect(answer["data"]?["playing"] == true)
            #expect(await event(client, node.topics, "radio_stopped")?["reason"] == "noise")

            client.clear()
            answer = try await client.request(node.topics, "noise/play", "radio:test")
            #expect(answer["data"]?["station"] == "test", "\(answer.serialized)")
            #expect(await event(client, node.topics, "noise_stopped") != nil)
            answer = try await client.request(node.topics, "noise/sleep", "30")
            #expect(answer["data"]?["sleep_timer_ends_at"]?.stringValue != nil, "noise/sleep times the station: \(answer.serialized)")

            client.clear()
            answer = try await client.request(node.topics, "noise/stop")
            #expect(answer["status"] == "ok")
            #expect(await event(client, node.topics, "radio_stopped")?["reason"] == "command")

            _ = try await client.request(node.topics, "radio/play", "test")
            client.clear()
            _ = try await client.request(node.topics, "noise/toggle")
            #expect(await event(client, node.topics, "radio_stopped") != nil)
            #expect(await radioState(client, node.topics, "idle") != nil)

            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("a station whose source is cut is retried with backoff while B/radio says retrying, and plays again when the source is back")
    func reconnects() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3)
        try await withNode(environment: ["NOISECLOCK_AUDIO_DEVICE": "null"], configuration: stations(icecast, [("test", "mp3")])) { node, process, client in
            _ = try await client.request(node.topics, "radio/play", "test")
            #expect(await radioState(client, node.topics, "playing") != nil)
            client.clear()
            await icecast.cut("mp3")
            let retrying = await radioState(client, node.topics, "retrying")
            #expect(retrying?["playing"] == true)
            #expect(retrying?["error"]?.stringValue?.isEmpty == false, "B/radio says why: \(retrying?.serialized ?? "")")
            let ping = try await client.request(node.topics, "ping")
            #expect(ping["status"] == "ok")

            try await icecast.feed("mp3", .mp3)
            let again = await radioState(client, node.topics, "playing")
            #expect(again?["error"] == .null)
            #expect(client.messages(on: node.topics.event).allSatisfy { (try? JSONValue.parse($0.payload)["event"]) != "radio_failed" })

            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("stations added, changed and deleted at run time are kept across a restart; the file's stations cannot be changed at run time")
    func stationsKept() async throws {
        let icecast = try await Icecast()
        let directory = try makeTemporaryDirectory("radio-stations")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = stations(icecast, [("test", "mp3")])
        try await withNode(stateDirectory: directory, environment: ["NOISECLOCK_AUDIO_DEVICE": "null"], configuration: configuration) {
            node, process, client in
            var answer = try await client.request(
                node.topics, "radio/station/add", #"{"name":"Night Rain","url":"\#(icecast.url("rain"))","fallback":"test"}"#)
            #expect(answer["data"]?["id"] == "night-rain", "\(answer.serialized)")
            answer = try await client.request(node.topics, "radio/station/add", #"{"name":"Other","url":"ftp://example"}"#)
            #expect(answer["error"]?["field"] == "url")
            answer = try await client.request(node.topics, "radio/station/add", #"{"name":"night rain","url":"http://127.0.0.1:1/x"}"#)
            #expect(answer["error"]?["code"] == "conflict")
            answer = try await client.request(node.topics, "radio/station/update", #"{"id":"test","name":"Renamed"}"#)
            #expect(answer["error"]?["code"] == "conflict")
            #expect(answer["error"]?["message"]?.stringValue?.contains("configuration file") == true)
            answer = try await client.request(node.topics, "radio/station/add", #"{"name":"Gone Soon","url":"http://127.0.0.1:1/gone"}"#)
            answer = try await client.request(node.topics, "radio/station/delete", "gone-soon")
            #expect(answer["data"]?["id"] == "gone-soon")
            answer = try await client.request(node.topics, "radio/volume", "35")
            #expect(answer["data"]?["volume"] == 35)
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
        try await withNode(stateDirectory: directory, environment: ["NOISECLOCK_AUDIO_DEVICE": "null"], configuration: configuration) {
            node, process, client in
            let state = try #require(await radioState(client, node.topics, nil))
            #expect(state["stations"]?.items.compactMap { $0["id"]?.stringValue } == ["test", "night-rain"])
            #expect(state["stations"]?.items.last?["fallback"] == "test")
            #expect(state["volume"] == 35)
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test(
        "a hostile server (a web page, garbage, silence) gives a clear error in B/radio while the node answers at once",
        arguments: [(FaultServer.Fault.html, "web page"), (.garbage, "not an audio stream"), (.silent, "no answer")])
    func hostile(fault: FaultServer.Fault, says: String) async throws {
        let server = try FaultServer(fault)
        try await withNode(environment: ["NOISECLOCK_AUDIO_DEVICE": "null"]) { node, process, client in
            let answer = try await client.request(node.topics, "radio/play", #"{"url":"\#(server.url)"}"#)
            #expect(answer["status"] == "ok")
            let ping = try await client.request(node.topics, "ping")
            #expect(ping["status"] == "ok")
            let failing = await radioState(client, node.topics, "retrying")
            let error = failing?["error"]?.stringValue ?? ""
            #expect(error.contains(says), "B/radio error: \(error)")
            _ = try await client.request(node.topics, "radio/stop")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }
}


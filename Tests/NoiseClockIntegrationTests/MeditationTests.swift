import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

@Suite("Meditation sessions through a real Mosquitto into an ALSA file sink (SPEC §10)")
struct MeditationTests {
    private static func fileSink(_ sink: String) -> [String: String] {
        ["NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "100"]
    }

    private static func event(_ client: TestClient, _ topics: Topics, _ name: String, timeout: Duration = .seconds(10)) async -> JSONValue? {
        await client.waitFor(topics.event, timeout: timeout) { (try? JSONValue.parse($0.payload)["event"]) == .string(name) }
            .flatMap { try? JSONValue.parse($0.payload) }
    }

    private static func state(_ client: TestClient, _ topics: Topics, _ name: String, timeout: Duration = .seconds(10)) async -> JSONValue? {
        await client.waitFor(topics.state(StateTopic.meditation), timeout: timeout) {
            (try? JSONValue.parse($0.payload)["state"]) == .string(name)
        }.flatMap { try? JSONValue.parse($0.payload) }
    }

    @Test(
        "a one-minute session: preparing, the start gong on next_gong_at, running, a second start refused, the completion gong on ends_at; both gongs reach the sink a minute apart")
    func session() async throws {
        let directory = try makeTemporaryDirectory("meditation")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        try await withNode(environment: Self.fileSink(sink)) { node, process, client in
            // A quiet background keeps the device open between the gongs, so the sink is one
            // continuous recording from the start gong on.
            let started = try await client.request(
                node.topics, "meditation/start", #"{"minutes":1,"preparation_s":2,"background":"brown-noise","background_volume":5}"#)
            #expect(started["status"] == "ok")
            let data = try #require(started["data"])
            #expect(data["state"] == "preparing" && data["kind"] == "timed" && data["duration_s"] == 60 && data["item"] == .null)
            let gongAt = try #require(data["next_gong_at"]?.stringValue)
            let endsAt = try #require(data["ends_at"]?.stringValue)
            #expect(await Self.state(client, node.topics, "preparing") != nil)

            let begun = try #require(await Self.event(client, node.topics, "meditation_started"))
            #expect(begun["at"] == .string(gongAt) && begun["skipped"] == false)
            let running = try #require(await Self.state(client, node.topics, "running"))
            #expect(running["next_gong_at"] == .string(endsAt), "no interval: the completion is the next gong")
            let second = try await client.request(node.topics, "meditation/start", "5")
            #expect(second["error"]?["code"] == "conflict")

            let completed = try #require(await Self.event(client, node.topics, "meditation_completed", timeout: .seconds(75)))
            #expect(completed["at"] == .string(endsAt) && completed["minutes"] == 1)
            #expect(await Self.state(client, node.topics, "completed") != nil)
            let stats = await client.waitFor(node.topics.state(StateTopic.meditationStats)) { (try? JSONValue.parse($0.payload)["sessions"]) == 1 }
            #expect(stats.flatMap { try? JSONValue.parse($0.payload) } == ["sessions": 1, "minutes_total": 1, "minutes_7d": 1, "streak_days": 1])

            // The sink: the start gong from its first samples, the quiet background, the completion
            // gong 60 s later (the engine plays in real time).
            #expect(await eventually { samples(sink).count > 44_100 * 2 * 62 })
            let audio = samples(sink)
            let start = rms(audio, from: 0, to: 1)
            let before = rms(audio, from: 57, to: 59.5)
            let end = rms(audio, from: 60.2, to: 61.2)
            #expect(start > 4 * before && end > 4 * before, "gongs at 0 and 60 s: \(Int(start)), quiet \(Int(before)), \(Int(end))")
            #expect(rms(audio, from: 59.3, to: 59.8) < end / 4, "the completion gong is not early")

            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("pause, resume and stop over MQTT; stats after two sessions; every refusal is a conflict")
    func pauseResumeStopStats() async throws {
        try await withNode { node, process, client in
            let paused0 = try await client.request(node.topics, "meditation/pause")
            #expect(paused0["error"]?["code"] == "conflict")
            let started = try await client.request(node.topics, "meditation/start", #"{"minutes":5,"preparation_s":0}"#)
            #expect(started["data"]?["state"] == "running")
            #expect(await Self.event(client, node.topics, "meditation_started") != nil)
            try await Task.sleep(for: .seconds(1.2))
            let paused = try await client.request(node.topics, "meditation/pause", "PRESS")
            #expect(paused["data"]?["state"] == "paused" && paused["data"]?["ends_at"] == .null)
            let elapsed = try #require(paused["data"]?["elapsed_s"]?.intValue)
            #expect(try await client.request(node.topics, "meditation/pause")["error"]?["code"] == "conflict")
            try await Task.sleep(for: .seconds(1.5))
            let resumed = try await client.request(node.topics, "meditation/resume")
            #expect(resumed["data"]?["state"] == "running" && resumed["data"]?["elapsed_s"]?.intValue == elapsed, "paused time is not meditated")
            #expect(try await client.request(node.topics, "meditation/resume")["error"]?["code"] == "conflict")
            #expect(try await client.request(node.topics, "meditation/seek", "10")["error"]?["code"] == "conflict", "a timed session has no position")
            let stopped = try await client.request(node.topics, "meditation/stop")
            #expect(stopped["data"]?["state"] == "idle")
            let event = try #require(await Self.event(client, node.topics, "meditation_stopped"))
            #expect(event["kind"] == "timed" && event["minutes"] == 0)

            _ = try await client.request(node.topics, "meditation/start", #"{"minutes":2,"preparation_s":0}"#)
            try await Task.sleep(for: .seconds(0.5))
            _ = try await client.request(node.topics, "meditation/stop")
            let stats = await client.waitFor(node.topics.state(StateTopic.meditationStats)) { (try? JSONValue.parse($0.payload)["sessions"]) == 2 }
            #expect(stats.flatMap { try? JSONValue.parse($0.payload) } == ["sessions": 2, "minutes_total": 0, "minutes_7d": 0, "streak_days": 1])
            #expect(try await client.request(node.topics, "meditation/stop")["error"]?["code"] == "conflict")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("a guided meditation from an MP3 in meditations.dir (tagged with lame): played over MQTT, heard in the sink, completed and recorded")
    func guided() async throws {
        let directory = try makeTemporaryDirectory("guided")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = "\(directory)/meditations"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A minute long, so the checks made while it plays never race its end (on a loaded machine a
        // round trip has taken over 3 s); it is then sought to its last 3 s to complete.
        let tone = try await runToEnd("/usr/bin/sox", ["-n", "-r", "44100", "-c", "1", "\(directory)/tone.wav", "synth", "60", "sine", "440"])
        #expect(tone.code == 0, "\(tone.output)")
        let encoded = try await runToEnd(
            "/usr/bin/lame", ["--quiet", "--tt", "Evening calm", "--ta", "Ana", "\(directory)/tone.wav", "\(folder)/evening.mp3"])
        #expect(encoded.code == 0, "\(encoded.output)")
        let sink = "\(directory)/out.raw"
        var environment = Self.fileSink(sink)
        environment["NOISECLOCK_MEDITATIONS_DIR"] = folder
        try await withNode(environment: environment) { node, process, client in
            let library = try #require(await client.waitFor(node.topics.state(StateTopic.meditations)) {
                (try? JSONValue.parse($0.payload)["count"]) == 1
            })
            let item = try #require(try JSONValue.parse(library.payload)["groups"]?.items.first?["items"]?.items.first)
            #expect(item["name"] == "Evening calm" && item["teacher"] == "Ana")
            let id = try #require(item["id"]?.stringValue)

            let missing = try await client.request(node.topics, "meditation/play", "no-such-id")
            #expect(missing["error"]?["code"] == "not_found" && missing["error"]?["field"] == "id")
            let played = try await client.request(node.topics, "meditation/play", #"{"id":"\#(id)"}"#)
            #expect(played["data"]?["state"] == "running" && played["data"]?["kind"] == "guided")
            #expect(played["data"]?["item"] == ["id": .string(id), "name": "Evening calm", "teacher": "Ana", "duration_s": 60])
            let beyond = try await client.request(node.topics, "meditation/seek", "60.5")
            #expect(beyond["error"]?["code"] == "invalid_field" && beyond["error"]?["field"] == "position_s", "\(beyond.serialized)")
            let sought = try await client.request(node.topics, "meditation/seek", "57")
            #expect(sought["data"]?["state"] == "running", "\(sought.serialized)")
            let completed = try #require(await Self.event(client, node.topics, "meditation_completed", timeout: .seconds(30)))
            #expect(completed["kind"] == "guided" && completed["id"] == .string(id))
            let done = try #require(await Self.state(client, node.topics, "completed"))
            #expect(done["position_s"] == 60)
            let statsTopic = node.topics.state(StateTopic.meditationStats)
            let recorded = await eventually(timeout: .seconds(10)) {
                client.messages(on: statsTopic).contains { (try? JSONValue.parse($0.payload))?["sessions"] == 1 }
            }
            #expect(recorded, "the guided session is in the history: \(client.messages(on: statsTopic).map(\.text))")
            #expect(await eventually { samples(sink).count > 44_100 * 2 * 2 })
            #expect(rms(samples(sink), from: 0.5, to: 2.5) > 1_000, "the recording is heard")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// The environment of a node that plays into the raw file `sink`, with short fades.
private func fileSink(_ sink: String) -> [String: String] {
    ["NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "100"]
}

@Suite("Noise through a real Mosquitto into an ALSA file sink")
struct NoiseTests {
    @Test("noise/play plays rain, its level follows noise/volume, noise/stop stops it; B/noise and the events follow")
    func playVolumeStop() async throws {
        let directory = try makeTemporaryDirectory("noise")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        try await withNode(environment: fileSink(sink)) { node, process, client in
            let played = try await client.request(node.topics, "noise/play", #"{"sound":"Heavy rain","volume":100}"#)
            #expect(played["status"] == "ok")
            #expect(played["data"]?["playing"] == true)
            #expect(played["data"]?["sounds"] == [["id": "heavy-rain-white-noise", "volume": 100]])
            let state = await client.waitFor(node.topics.noise) { (try? JSONValue.parse($0.payload)["playing"]) == true }
            #expect(state != nil)
            #expect(await client.waitFor(node.topics.event) { (try? JSONValue.parse($0.payload)["event"]) == "noise_started" } != nil)

            try await Task.sleep(for: .seconds(1.5))
            let quieter = try await client.request(node.topics, "noise/volume", "20")
            #expect(quieter["data"]?["volume"] == 20)
            try await Task.sleep(for: .seconds(2))
            let stopped = try await client.request(node.topics, "noise/stop")
            #expect(stopped["data"]?["playing"] == false)
            #expect(await client.waitFor(node.topics.event) { (try? JSONValue.parse($0.payload)["event"]) == "noise_stopped" } != nil)

            // The sink is complete once the device is drained and closed.
            #expect(await eventually { samples(sink).count > 44_100 * 2 * 2 })
            try await Task.sleep(for: .milliseconds(500))
            let audio = samples(sink)
            // The file is read by its own levels, not by wall-clock positions (a loaded machine can
            // start the sink late): the loudest stretch is rain at 100; after it, before the fade-out,
            // a stretch of at least 0.5 s plays rain at 20.
            let levels = windowedRMS(audio, window: 0.1)
            let loudest = try #require(levels.indices.max { levels[$0] < levels[$1] })
            let loud = levels[loudest]
            #expect(loud > 1_000, "rain at volume 100 is not silent")
            // Volume is squared: 100 → 1.0, 20 → 0.04 (25 times quieter in RMS); the run must be at
            // least 8 times quieter and still audible.
            let soft = levels[loudest...].split { !($0 > 10 && $0 < loud / 8) }.map(\.count).max() ?? 0
            #expect(soft >= 5, "no half second of rain at volume 20 after the loud part: \(levels.map { Int($0) })")
            // After the stop, the tail of the file is the fade and then silence.
            #expect(rms(audio, from: Double(audio.count) / 88_200 - 0.05, to: Double(audio.count) / 88_200) < 50)

            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("noise playing when the node is killed plays again when it starts")
    func resumesAfterCrash() async throws {
        let directory = try makeTemporaryDirectory("noise-resume")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withNode(environment: fileSink("\(directory)/first.raw")) { node, process, client in
            _ = try await client.request(node.topics, "noise/play", #"{"sound":"pink-noise","volume":70}"#)
            _ = try await client.request(node.topics, "noise/add", #"{"sound":"brown-noise","volume":30}"#)
            process.signal(SIGKILL)
            _ = await process.waitForExit(timeout: eventHangGuard)

            let second = try NodeProcess(
                port: node.port, nodeID: node.nodeID, stateDirectory: node.stateDirectory, environment: fileSink("\(directory)/second.raw"))
            client.clear()
            try await withStopping(second) { second in
                let process = try second.start()
                let resumed = try #require(await client.waitFor(node.topics.noise) { (try? JSONValue.parse($0.payload)["playing"]) == true })
                let mix = try JSONValue.parse(resumed.payload)
                #expect(mix["sounds"] == [["id": "pink-noise", "volume": 100], ["id": "brown-noise", "volume": 30]])
                #expect(mix["volume"] == 70)
                #expect(await eventually { samples("\(directory)/second.raw").count > 44_100 })
                process.signal(SIGTERM)
                _ = await process.waitForExit(timeout: eventHangGuard)
                #expect(rms(samples("\(directory)/second.raw"), from: 0.2, to: 0.6) > 100)
            }
        }
    }

    @Test("a missing audio device is reported (B/status, audio_error) while commands are still answered")
    func missingDevice() async throws {
        try await withNode(environment: ["NOISECLOCK_AUDIO_DEVICE": "hw:97,0"]) { node, process, client in
            let answer = try await client.request(node.topics, "noise/play", "white-noise")
            #expect(answer["status"] == "ok")
            #expect(answer["data"]?["playing"] == true)
            let error = await client.waitFor(node.topics.event) { (try? JSONValue.parse($0.payload)["event"]) == "audio_error" }
            #expect(error.flatMap { try? JSONValue.parse($0.payload)["device"] } == "hw:97,0")
            let status = await client.waitFor(node.topics.status) { (try? JSONValue.parse($0.payload)["audio"]?["ok"]) == false }
            let audio = status.flatMap { try? JSONValue.parse($0.payload)["audio"] }
            #expect(audio?["error"]?.stringValue?.contains("hw:97,0") == true)
            #expect(process.isRunning)
            let stop = try await client.request(node.topics, "noise/stop")
            #expect(stop["status"] == "ok")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("noiseclock sounds lists both catalogs with their lengths")
    func soundsCommand() async throws {
        let result = try await runToEnd(NoiseClockBinary.path, ["sounds", "--config", "/dev/null"])
        #expect(result.code == 0, "\(result.output)")
        for id in ["white-noise", "heavy-rain-white-noise", "fan-white-noise-heater", "pink-noise", "brown-noise",
                   "digital-alarm", "classic-alarm", "beep-alarm", "siren-alarm", "buzzing-alarm"] {
            let line = result.output.split(separator: "\n").first { $0.hasPrefix(id + " ") }
            #expect(line != nil, "\(id) missing")
            #expect(line?.contains(" s") == true && line?.contains("unreadable") == false)
        }
    }
}

@Suite("Noise verbs over MQTT")
struct NoiseVerbTests {
    @Test("toggle, power, remove, sleep and preview answer and change B/noise as SPEC §2 says")
    func verbs() async throws {
        let directory = try makeTemporaryDirectory("noise-verbs")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withNode(environment: fileSink("\(directory)/out.raw")) { node, process, client in
            // power ON with nothing played before: the catalog's default sound.
            var answer = try await client.request(node.topics, "noise/power", "ON")
            #expect(answer["data"]?["sounds"] == [["id": "heavy-rain-white-noise", "volume": 100]])
            answer = try await client.request(node.topics, "noise/add", #"{"sound":"fan-white-noise-heater","volume":40}"#)
            #expect(answer["data"]?["sounds"]?.arrayCount == 2)
            answer = try await client.request(node.topics, "noise/remove", "heavy-rain-white-noise")
            #expect(answer["data"]?["sounds"] == [["id": "fan-white-noise-heater", "volume": 40]])
            answer = try await client.request(node.topics, "noise/sleep", "30")
            let endsAt = try #require(answer["data"]?["sleep_timer_ends_at"]?.stringValue)
            #expect(endsAt.hasSuffix("+01:00") || endsAt.hasSuffix("+02:00"), "Europe/Berlin offset in \(endsAt)")
            answer = try await client.request(node.topics, "noise/sleep", #"{"minutes":0}"#)
            #expect(answer["data"]?["sleep_timer_ends_at"] == .null)
            answer = try await client.request(node.topics, "noise/preview", "siren-alarm")
            #expect(answer["data"]?["sound"] == "siren-alarm", "\(answer.serialized)")
            answer = try await client.request(node.topics, "noise/toggle", "PRESS")
            #expect(answer["data"]?["playing"] == false)
            answer = try await client.request(node.topics, "noise/toggle")
            #expect(answer["data"]?["playing"] == true)
            #expect(answer["data"]?["sounds"] == [["id": "fan-white-noise-heater", "volume": 40]])
            answer = try await client.request(node.topics, "noise/power", "OFF")
            #expect(answer["data"]?["playing"] == false)
            let last = await client.waitFor(node.topics.noise) { (try? JSONValue.parse($0.payload)["playing"]) == false }
            #expect(last != nil)
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }
}

extension JSONValue {
    var arrayCount: Int? {
        if case .array(let items) = self { return items.count }
        return nil
    }
}

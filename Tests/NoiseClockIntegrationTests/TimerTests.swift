import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

@Suite("Countdown timers through a real Mosquitto into an ALSA file sink (SPEC §10)")
struct TimerTests {
    private static func fileSink(_ sink: String) -> [String: String] {
        ["NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "100"]
    }

    private static func timers(_ message: MQTTMessage?) -> [JSONValue] {
        guard let message, case .array(let items)? = try? JSONValue.parse(message.payload) else { return [] }
        return items
    }

    @Test("a timer started over MQTT runs in the retained B/timers, finishes with timer_finished naming it, rings into the sink, and timer/dismiss stops it")
    func startRingDismiss() async throws {
        let directory = try makeTemporaryDirectory("timer")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        try await withNode(environment: Self.fileSink(sink)) { node, process, client in
            let started = try await client.request(node.topics, "timer/start", #"{"seconds":2,"label":"Tea"}"#)
            #expect(started["status"] == "ok")
            let id = try #require(started["data"]?["id"]?.stringValue)
            let endsAt = try #require(started["data"]?["ends_at"]?.stringValue)
            let running = await client.waitFor(node.topics.state(StateTopic.timers)) { message in Self.timers(message).first?["state"] == "running" }
            #expect(Self.timers(running).first?["label"] == "Tea")

            let finished = try #require(
                await client.waitFor(node.topics.event, timeout: .seconds(10)) { (try? JSONValue.parse($0.payload)["event"]) == "timer_finished" })
            let event = try JSONValue.parse(finished.payload)
            #expect(event["timer_id"] == .string(id))
            #expect(event["label"] == "Tea")
            // Stamped on the second it was due (its fraction is not in the ISO time).
            #expect(event["at"] == .string(endsAt))
            let ringing = await client.waitFor(node.topics.state(StateTopic.timers)) { message in Self.timers(message).first?["state"] == "ringing" }
            #expect(ringing != nil)

            // The chime reaches the sink.
            #expect(await eventually { rms(samples(sink), from: 0, to: Double(samples(sink).count) / 88_200) > 100 })

            let dismissed = try await client.request(node.topics, "timer/dismiss")
            #expect(dismissed["status"] == "ok")
            #expect(dismissed["data"]?.items.first?["id"] == .string(id))
            let gone = try #require(
                await client.waitFor(node.topics.event) { (try? JSONValue.parse($0.payload)["event"]) == "timer_dismissed" })
            #expect(try JSONValue.parse(gone.payload)["reason"] == "command")
            #expect(await client.waitFor(node.topics.state(StateTopic.timers)) { message in Self.timers(message).isEmpty && message.payload == Array("[]".utf8) } != nil)

            let again = try await client.request(node.topics, "timer/dismiss")
            #expect(again["error"]?["code"] == "conflict")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("timers survive kill -9: the restarted node has the same timers with the same ends; PRESS on timer/cancel clears them all")
    func survivesRestart() async throws {
        try await withNode { node, process, client in
            let first = try await client.request(node.topics, "timer/start", #"{"minutes":30,"label":"Bread"}"#)
            let second = try await client.request(node.topics, "timer/start", #"{"minutes":45,"label":"Laundry"}"#)
            _ = try await client.request(node.topics, "timer/pause", #"{"id":"\#(second["data"]?["id"]?.stringValue ?? "")"}"#)
            process.signal(SIGKILL)
            _ = await process.waitForExit(timeout: eventHangGuard)

            let restarted = try NodeProcess(port: node.port, nodeID: node.nodeID, stateDirectory: node.stateDirectory)
            client.clear()
            try await withStopping(restarted) { restarted in
                let process = try restarted.start()
                let state = try #require(await client.waitFor(node.topics.state(StateTopic.timers)) { message in Self.timers(message).count == 2 })
                let timers = Self.timers(state)
                #expect(timers.map { $0["label"] } == ["Bread", "Laundry"])
                #expect(timers.first?["ends_at"] == first["data"]?["ends_at"])
                #expect(timers.last?["state"] == "paused")

                let cancelled = try await client.request(node.topics, "timer/cancel", "PRESS")
                #expect(cancelled["data"]?.items.count == 2)
                #expect(await client.waitFor(node.topics.state(StateTopic.timers)) { $0.payload == Array("[]".utf8) } != nil)
                process.signal(SIGTERM)
                _ = await process.waitForExit(timeout: eventHangGuard)
            }
        }
    }

    @Test("bad timer input over MQTT is answered with the field and changes nothing", arguments: [
        ("timer/start", "0", "minutes"), ("timer/start", #"{"seconds":90000}"#, "seconds"), ("timer/pause", #"{"id":"ffffffff"}"#, "id"),
    ])
    func badInput(verb: String, payload: String, field: String) async throws {
        try await withNode { node, _, client in
            let response = try await client.request(node.topics, verb, payload)
            #expect(response["status"] == "error")
            #expect(response["error"]?["field"] == .string(field))
            let state = await client.waitFor(node.topics.state(StateTopic.timers)) { _ in true }
            #expect(state?.payload == Array("[]".utf8))
        }
    }
}

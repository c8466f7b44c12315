import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// Hostile streams (SPEC §8) between a whole node and a real Icecast: a proxy that stalls, cuts,
// trickles, or answers a web page, garbage or a header without end. Each gets a clear `state` and
// `error` in B/radio while the node's other work stays on time, and leaves no helper behind.

/// What a case does to the stream, and what B/radio must then say.
struct StreamFault: Sendable, CustomTestStringConvertible {
    var name: String
    /// The proxy's mode from the start (nil: it passes until the station plays, then `fault`).
    var initial: FaultProxy.Mode?
    var fault: @Sendable (FaultProxy) -> Void
    /// A piece of B/radio's `error` while it retries (one of them).
    var says: [String]
    /// Whether the proxy heals after it and the station must play again.
    var heals: Bool

    var testDescription: String { name }

    static let all: [StreamFault] = [
        StreamFault(name: "stall", initial: nil, fault: { $0.set(.stall) }, says: ["sent nothing in time"], heals: true),
        StreamFault(name: "cut", initial: nil, fault: { $0.cut() }, says: ["broke off"], heals: true),
        // A quarter of the stream's 16 kB/s, once it plays (from the start, the open itself may time out first).
        StreamFault(name: "trickle", initial: nil, fault: { $0.set(.trickle(bytesPerSecond: 4_000)) }, says: ["slower than it plays"], heals: false),
        StreamFault(name: "html", initial: .html, fault: { _ in }, says: ["web page"], heals: false),
        // What FFmpeg makes of it is not audio, or (on a loaded machine) not made out within the open timeout.
        StreamFault(
            name: "garbage", initial: .garbage, fault: { _ in }, says: ["not an audio stream", "too little to recognise"], heals: false),
        StreamFault(name: "endless header", initial: .endlessHeader, fault: { _ in }, says: ["Too large response headers"], heals: false),
    ]
}

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

@Suite("Hostile streams through a fault proxy in front of a real Icecast")
struct RadioFaultTests {
    @Test("each fault gives B/radio a clear state and error; ping is answered at once, a timer fires on time; no helper is left", arguments: StreamFault.all)
    func fault(_ fault: StreamFault) async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3)
        let proxy = try FaultProxy(upstreamPort: icecast.port, mode: fault.initial ?? .pass)
        let environment = ["NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_AUDIO_FADE_MS": "100"]
        try await withNode(environment: environment, configuration: streamStations([("proxied", proxy.url("mp3"))])) { node, process, client in
            let stamps = try await StampedSubscriber(brokerPort: node.port, topics: [node.topics.event])
            if fault.initial == nil {
                #expect(try await play(client, node, "proxied", until: "playing") != nil, "log:\n\(process.log)")
                client.clear()
                fault.fault(proxy)
            } else {
                client.clear()
                #expect(try await client.request(node.topics, "radio/play", "proxied")["status"] == "ok")
            }
            // Due while the stream is in trouble.
            let timer = try await client.request(node.topics, "timer/start", #"{"seconds":3,"label":"Tea"}"#)
            try #require(timer["status"] == "ok", "\(timer.serialized)")
            let retrying = await streamState(client, node.topics, "retrying")
            let error = retrying?["error"]?.stringValue ?? ""
            #expect(fault.says.contains { error.contains($0) }, "B/radio: \(retrying?.serialized ?? "none"); log:\n\(process.log)")
            #expect(retrying?["playing"] == true)

            // The node's loop is not held up by the stream.
            let asked = ContinuousClock.now
            #expect(try await client.request(node.topics, "ping")["status"] == "ok")
            // A loop held by the stream would answer after its 10 s timeouts, never sooner; one that
            // is not answers at once (the limit is that timeout, so a loaded machine cannot fail it).
            #expect(ContinuousClock.now - asked < .seconds(10), "ping took \(ContinuousClock.now - asked)")
            #expect(await client.waitFor(node.topics.event, timeout: .seconds(30)) { json($0)?["event"] == "timer_finished" } != nil)
            let late = StampedSubscriber.lateness(try await stamps.finish(), field: "at") { $0.payload["event"] == "timer_finished" }
            // `at` is the due second without its fraction: up to 1000 ms of it is no lateness.
            #expect(late.count == 1 && late.allSatisfy { $0 >= 0 && $0 < 2_000 }, "timer_finished late by \(late) ms")
            _ = try await client.request(node.topics, "timer/dismiss")

            if fault.heals {
                proxy.set(.pass)
                let again = await streamState(client, node.topics, "playing")
                #expect(again != nil && again?["error"] == .null, "plays again once healed: \(again?.serialized ?? "none")")
            }
            #expect(client.messages(on: node.topics.event).allSatisfy { json($0)?["event"] != "radio_failed" })
            _ = try await client.request(node.topics, "radio/stop")
            #expect(await eventually(timeout: .seconds(10)) { streamHelpers(of: process.pid).isEmpty }, "helpers left: \(streamHelpers(of: process.pid))")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("a node killed while its helper waits for a server that never answers leaves no helper behind")
    func killedNode() async throws {
        let server = try FaultServer(.silent)
        try await withNode(environment: ["NOISECLOCK_AUDIO_DEVICE": "null"]) { node, process, client in
            _ = try await client.request(node.topics, "radio/play", #"{"url":"\#(server.url).mp3"}"#)
            #expect(await eventually(timeout: .seconds(10)) { server.connectionCount > 0 && streamHelpers(of: process.pid).count == 1 })
            let helpers = streamHelpers(of: process.pid)
            process.signal(SIGKILL)
            _ = await process.waitForExit(timeout: eventHangGuard)
            // Gone well before its open timeout (10 s) would have ended it.
            #expect(await eventually(timeout: .seconds(3)) {
                helpers.allSatisfy { helper in
                    let state = (try? String(contentsOfFile: "/proc/\(helper)/stat", encoding: .utf8))?.split(separator: ")").last?.split(separator: " ").first
                    return state == nil || state == "Z"
                }
            }, "the helper \(helpers) outlived its node")
        }
    }

    @Test("an alarm whose station stalls while it rings falls back to its tone within start_timeout_s, and the tone is heard")
    func alarmFallsBack() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("a", .mp3, frequency: 440)
        let proxy = try FaultProxy(upstreamPort: icecast.port)
        let directory = try makeTemporaryDirectory("radio-stall-alarm")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        let clock = try await FakeTime(at: isoDate("2026-06-15T07:00:00+02:00"))
        let environment = clock.environment.merging(streamNodeEnvironment(sink: sink, ["NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin"])) { _, new in new }
        let configuration = "radio:\n  buffer_s: 2\n  start_timeout_s: 10\n  stations:\n    - {id: a, name: A, url: \"\(proxy.url("a"))\"}\n"
        try await withNode(environment: environment, configuration: configuration) { node, process, client in
            let added = try await client.request(node.topics, "alarm/add", #"{"time":"07:30","sound":"radio:a","fade_in_s":0,"volume":100}"#)
            let id = try #require(added["data"]?["id"]?.stringValue, "\(added.serialized)")
            // Within the minute before: the station connects ahead, through the proxy.
            try clock.set(to: isoDate("2026-06-15T07:29:30+02:00"))
            #expect(await eventually(timeout: .seconds(20)) { process.log.contains("alarm station ready ahead") }, "log:\n\(process.log)")
            try clock.set(to: isoDate("2026-06-15T07:29:59+02:00"))
            #expect(await client.waitFor(node.topics.event, timeout: .seconds(30)) { json($0)?["event"] == "alarm_ringing" } != nil, "log:\n\(process.log)")
            let station = await heardNext(sink, seconds: 3)
            #expect(carries(station, 440, count: 2), "the station at the sink: \(station)")

            proxy.set(.stall)
            let stalled = ContinuousClock.now
            let fallback = try #require(
                await client.waitFor(node.topics.event, timeout: .seconds(30)) { json($0)?["event"] == "alarm_fallback" }.flatMap(json), "log:\n\(process.log)")
            #expect(fallback["alarm_id"]?.stringValue == id)
            #expect(fallback["from"] == "radio:a")
            #expect(fallback["to"] == "tone")
            #expect(fallback["reason"]?.stringValue?.isEmpty == false, "\(fallback.serialized)")
            // The stall is seen after buffer_s (2 s); the tone comes at most start_timeout_s (10 s) later.
            #expect(ContinuousClock.now - stalled < .seconds(2 + 10 + 3), "the fallback came \(ContinuousClock.now - stalled) after the stall")
            let tone = await heardNext(sink, seconds: 3)
            #expect(tone.filter { $0.rms > 1_000 && abs($0.pitch - 440) > 100 }.count >= 2, "the tone at once: \(tone)")
            _ = try await client.request(node.topics, "dismiss")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }
}

private func isoDate(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

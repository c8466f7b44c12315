import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

@Suite("Commands over a real Mosquitto")
struct CommandTests {
    @Test("settings change round-trips, reaches B/clock and survives a restart")
    func settingsRoundTripPersisted() async throws {
        let broker = try await Broker()
        let node = try NodeProcess(port: broker.port)
        var process = try node.start()
        let client = try await TestClient(port: broker.port, subscriptions: ["\(node.topics.node)/#"])
        _ = await client.waitFor(node.topics.availability) { $0.text == "online" }

        let answer = try await client.request(node.topics, "settings", #"{"time_format":"12h","timezone":"America/New_York","transaction":"t-1"}"#)
        #expect(answer["status"] == "ok")
        #expect(answer["transaction"] == "t-1")
        #expect(answer["data"]?["time_format"] == "12h")
        let clock = await client.waitFor(node.topics.clock) {
            (try? JSONValue.parse($0.payload)["timezone"]) == "America/New_York"
        }
        let time = try #require(clock.flatMap { try? JSONValue.parse($0.payload)["time"]?.stringValue })
        #expect(time.hasSuffix(" AM") || time.hasSuffix(" PM"))

        process.signal(SIGTERM)
        #expect(await process.waitForExit(timeout: .seconds(3)) == 0)
        client.clear()
        process = try node.start()
        let settings = try #require(await client.waitFor(node.topics.settings))
        let restored = try JSONValue.parse(settings.payload)
        #expect(restored["time_format"] == "12h")
        #expect(restored["timezone"] == "America/New_York")
        process.signal(SIGTERM)
        _ = await process.waitForExit(timeout: .seconds(3))
        await client.stop()
    }

    @Test("malformed payloads are answered with errors naming the field, and the node keeps serving")
    func malformedPayloads() async throws {
        let broker = try await Broker()
        let node = try NodeProcess(port: broker.port)
        let process = try node.start()
        let client = try await TestClient(port: broker.port, subscriptions: ["\(node.topics.node)/#"])
        _ = await client.waitFor(node.topics.availability) { $0.text == "online" }

        let cases: [(verb: String, payload: [UInt8], code: String, field: String?)] = [
            ("settings", Array(#"{"time_format":"#.utf8), "invalid_json", "payload"),
            ("settings", [0x7B, 0xFF, 0xFE, 0x7D], "invalid_json", "payload"),
            ("settings", Array(repeating: 0x20, count: 64 * 1024 + 1), "too_large", "payload"),
            ("settings", Array(#"{"show_seconds":"maybe"}"#.utf8), "invalid_field", "show_seconds"),
            ("settings", Array(#"{"timezone":"Mars/Olympus"}"#.utf8), "invalid_field", "timezone"),
            ("settings", Array(#"{"colour":"red"}"#.utf8), "invalid_field", "colour"),
            ("settings", Array("[1,2]".utf8), "invalid_json", "payload"),
            ("ping", Array(#"{"extra":1}"#.utf8), "invalid_field", "extra"),
            ("no/such/verb", [], "unknown_verb", nil),
        ]
        for item in cases {
            client.clear()
            client.publish(node.topics.command(item.verb), bytes: item.payload)
            let message = await client.waitFor(node.topics.response(item.verb))
            let answer = try #require(message.flatMap { try? JSONValue.parse($0.payload) }, "no answer to \(item.verb)")
            #expect(answer["status"] == "error")
            #expect(answer["error"]?["code"]?.stringValue == item.code, "\(item.verb) \(item.payload.prefix(30))")
            #expect(answer["error"]?["field"]?.stringValue == item.field)
        }
        // Nothing changed, and the node still answers.
        let settings = try await client.request(node.topics, "settings", "{}")
        #expect(settings["data"]?["show_seconds"] == false)
        #expect(settings["data"]?["timezone"] == "Europe/Berlin")
        #expect(process.isRunning)
        process.signal(SIGTERM)
        _ = await process.waitForExit(timeout: .seconds(3))
        await client.stop()
    }

    @Test("a command on <base_topic>/all/cmd reaches the node, which answers on its own response topic")
    func allNodesCommand() async throws {
        let broker = try await Broker()
        let first = try NodeProcess(port: broker.port)
        let second = try NodeProcess(port: broker.port)
        let processes = [try first.start(), try second.start()]
        let client = try await TestClient(port: broker.port, subscriptions: ["noiseclock/#"])
        for node in [first, second] {
            _ = await client.waitFor(node.topics.availability) { $0.text == "online" }
        }
        client.publish(first.topics.allCommand("ping"), "PRESS")
        for node in [first, second] {
            let answer = await client.waitFor(node.topics.response("ping"))
            #expect(answer.flatMap { try? JSONValue.parse($0.payload)["status"] } == "ok", "\(node.nodeID) did not answer")
        }
        for process in processes { process.signal(SIGTERM) }
        for process in processes { _ = await process.waitForExit(timeout: .seconds(3)) }
        await client.stop()
    }

    @Test("an MQTT 5 request is answered on its Response Topic with its Correlation Data, not on B/response")
    func responseTopicAndCorrelation() async throws {
        let broker = try await Broker()
        let node = try NodeProcess(port: broker.port)
        let process = try node.start()
        let client = try await TestClient(port: broker.port, subscriptions: ["\(node.topics.node)/#", "elsewhere/#"])
        _ = await client.waitFor(node.topics.availability) { $0.text == "online" }
        let correlation: [UInt8] = [0, 1, 2, 250, 251]
        client.client.publish(
            .init(topic: node.topics.command("ping"), payload: [], responseTopic: "elsewhere/inbox", correlationData: correlation))
        let answer = try #require(await client.waitFor("elsewhere/inbox"))
        #expect(answer.correlationData == correlation)
        #expect(try JSONValue.parse(answer.payload)["status"] == "ok")
        try await Task.sleep(for: .milliseconds(200))
        #expect(client.messages(on: node.topics.response("ping")).isEmpty)
        process.signal(SIGTERM)
        _ = await process.waitForExit(timeout: .seconds(3))
        await client.stop()
    }

    @Test("noiseclock ctl prints the answer and exits 0, 1 on an error answer, 2 when no node answers")
    func ctlExitCodes() async throws {
        let broker = try await Broker()
        let node = try NodeProcess(port: broker.port)
        let process = try node.start()
        let watcher = try await TestClient(port: broker.port, subscriptions: [node.topics.availability])
        _ = await watcher.waitFor(node.topics.availability) { $0.text == "online" }

        let ping = try await node.ctl(["ping"])
        #expect(ping.code == 0)
        #expect(try JSONValue.parse(Array(ping.output.utf8))["status"] == "ok")

        let bad = try await node.ctl(["settings", #"{"time_format":"25h"}"#])
        #expect(bad.code == 1)
        #expect(bad.output.contains("time_format"))

        let v311 = try await runToEnd(
            NoiseClockBinary.path, ["ctl", "ping", "--config", "/dev/null"],
            environment: node.environment.merging(["NOISECLOCK_MQTT_PROTOCOL": "311"]) { _, new in new })
        #expect(v311.code == 0, "\(v311.output)")

        process.signal(SIGTERM)
        _ = await process.waitForExit(timeout: .seconds(3))
        let none = try await node.ctl(["ping", "--timeout", "1"])
        #expect(none.code == 2)
        await watcher.stop()
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// A malformed command and the error it must be answered with.
struct MalformedCommand: Sendable, CustomTestStringConvertible {
    var verb: String
    var payload: [UInt8]
    var code: String
    var field: String?
    /// The payload in the test's name (the oversized one is not printed whole).
    var summary: String

    init(_ verb: String, _ payload: [UInt8], _ code: String, _ field: String?, summary: String? = nil) {
        self.verb = verb
        self.payload = payload
        self.code = code
        self.field = field
        self.summary = summary ?? String(decoding: payload, as: UTF8.self)
    }

    var testDescription: String { "\(verb) \(summary)" }

    static let all = [
        MalformedCommand("settings", Array(#"{"time_format":"#.utf8), "invalid_json", "payload"),
        MalformedCommand("settings", [0x7B, 0xFF, 0xFE, 0x7D], "invalid_json", "payload", summary: "{ FF FE } (not UTF-8)"),
        MalformedCommand(
            "settings", Array(repeating: 0x20, count: 64 * 1024 + 1), "too_large", "payload", summary: "64 KiB + 1 byte of spaces"),
        MalformedCommand("settings", Array(#"{"show_seconds":"maybe"}"#.utf8), "invalid_field", "show_seconds"),
        MalformedCommand("settings", Array(#"{"timezone":"Mars/Olympus"}"#.utf8), "invalid_field", "timezone"),
        MalformedCommand("settings", Array(#"{"colour":"red"}"#.utf8), "invalid_field", "colour"),
        MalformedCommand("settings", Array("[1,2]".utf8), "invalid_json", "payload"),
        MalformedCommand("ping", Array(#"{"extra":1}"#.utf8), "invalid_field", "extra"),
        MalformedCommand("no/such/verb", [], "unknown_verb", nil, summary: "(empty)"),
    ]
}

@Suite("Commands over a real Mosquitto")
struct CommandTests {
    @Test("settings change round-trips, reaches B/clock and survives a restart")
    func settingsRoundTripPersisted() async throws {
        try await withNode { node, process, client in
            let answer = try await client.request(
                node.topics, "settings", #"{"time_format":"12h","timezone":"America/New_York","transaction":"t-1"}"#)
            #expect(answer["status"] == "ok")
            #expect(answer["transaction"] == "t-1")
            #expect(answer["data"]?["time_format"] == "12h")
            let clock = await client.waitFor(node.topics.clock) {
                (try? JSONValue.parse($0.payload)["timezone"]) == "America/New_York"
            }
            let time = try #require(clock.flatMap { try? JSONValue.parse($0.payload)["time"]?.stringValue })
            #expect(time.hasSuffix(" AM") || time.hasSuffix(" PM"))

            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
            client.clear()
            try node.start()
            let settings = try #require(await client.waitFor(node.topics.settings))
            let restored = try JSONValue.parse(settings.payload)
            #expect(restored["time_format"] == "12h")
            #expect(restored["timezone"] == "America/New_York")
        }
    }

    @Test("a malformed payload is answered with an error naming the field, and the node keeps serving", arguments: MalformedCommand.all)
    func malformedPayload(_ command: MalformedCommand) async throws {
        try await withNode { node, process, client in
            client.publish(node.topics.command(command.verb), bytes: command.payload)
            let message = await client.waitFor(node.topics.response(command.verb))
            let answer = try #require(message.flatMap { try? JSONValue.parse($0.payload) }, "no answer to \(command.verb)")
            #expect(answer["status"] == "error")
            #expect(answer["error"]?["code"]?.stringValue == command.code)
            #expect(answer["error"]?["field"]?.stringValue == command.field)

            // Nothing changed, and the node still answers.
            let settings = try await client.request(node.topics, "settings", "{}")
            #expect(settings["data"]?["show_seconds"] == false)
            #expect(settings["data"]?["timezone"] == "Europe/Berlin")
            #expect(process.isRunning)
        }
    }

    @Test("a command on <base_topic>/all/cmd reaches the node, which answers on its own response topic")
    func allNodesCommand() async throws {
        try await withBroker { broker in
            try await withNode(on: broker, subscriptions: { _ in ["noiseclock/#"] }) { first, _, client in
                try await withStopping(NodeProcess(port: broker.port)) { second in
                    try await second.startOnline(seenBy: client)
                    client.publish(first.topics.allCommand("ping"), "PRESS")
                    for node in [first, second] {
                        let answer = await client.waitFor(node.topics.response("ping"))
                        #expect(answer.flatMap { try? JSONValue.parse($0.payload)["status"] } == "ok", "\(node.nodeID) did not answer")
                    }
                }
            }
        }
    }

    @Test("an MQTT 5 request is answered on its Response Topic with its Correlation Data, not on B/response")
    func responseTopicAndCorrelation() async throws {
        try await withNode(subscriptions: { ["\($0.node)/#", "elsewhere/#"] }) { node, _, client in
            let correlation: [UInt8] = [0, 1, 2, 250, 251]
            client.client.publish(
                .init(topic: node.topics.command("ping"), payload: [], responseTopic: "elsewhere/inbox", correlationData: correlation))
            let answer = try #require(await client.waitFor("elsewhere/inbox"))
            #expect(answer.correlationData == correlation)
            #expect(try JSONValue.parse(answer.payload)["status"] == "ok")
            try await Task.sleep(for: .milliseconds(200))
            #expect(client.messages(on: node.topics.response("ping")).isEmpty)
        }
    }

    @Test("noiseclock ctl prints the answer and exits 0, 1 on an error answer, 2 when no node answers")
    func ctlExitCodes() async throws {
        try await withNode(subscriptions: { [$0.availability] }) { node, process, _ in
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
            _ = await process.waitForExit(timeout: eventHangGuard)
            let none = try await node.ctl(["ping", "--timeout", "1"])
            #expect(none.code == 2)
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockMQTT
import Testing

@testable import NoiseClockNode

@Suite("CommandService")
struct CommandServiceTests {
    @Test("a command is answered on B/response/VERB, not retained")
    func answersOnResponseTopic() async throws {
        let fixture = try NodeFixture()

        await fixture.commandService().handle(MQTTMessage(topic: "noiseclock/kitchen/cmd/ping", text: ""))

        let responses = fixture.transport.published
        #expect(responses.count == 1)
        let response = try #require(responses.first)
        #expect(response.topic == "noiseclock/kitchen/response/ping")
        #expect(!response.retain)
        #expect(response.json?["status"] == "ok")
        #expect(response.json?["data"]?["version"] == .string(NodeStatus.version))
    }

    @Test("an error response carries the code, the field and the request's transaction")
    func errorResponse() async throws {
        let fixture = try NodeFixture()

        await fixture.commandService().handle(
            MQTTMessage(topic: "noiseclock/kitchen/cmd/settings", text: #"{"time_format":"13h","transaction":"abc-1"}"#))

        let response = try #require(fixture.transport.published.first)
        #expect(fixture.transport.published.count == 1)
        #expect(response.topic == "noiseclock/kitchen/response/settings")
        #expect(
            response.json?["error"]?.objectValue?.filter { $0.key != "message" }
                == ["code": "invalid_field", "field": "time_format"])
        #expect(response.json?["status"] == "error")
        #expect(response.json?["transaction"] == "abc-1")
    }

    @Test("an MQTT 5 request with a Response Topic is answered there, with its Correlation Data")
    func answersOnRequestedTopic() async throws {
        let fixture = try NodeFixture(supportsProperties: true)
        let correlation: [UInt8] = [0x00, 0xFF, 0x10, 0x42]

        await fixture.commandService().handle(
            MQTTMessage(
                topic: "noiseclock/kitchen/cmd/ping", payload: [], responseTopic: "clients/ctl/7f3a",
                correlationData: correlation))

        let responses = fixture.transport.published
        #expect(responses.count == 1)
        #expect(responses.first?.topic == "clients/ctl/7f3a")
        #expect(responses.first?.correlationData == correlation)
        #expect(responses.first?.json?["status"] == "ok")
        #expect(fixture.transport.published(on: "noiseclock/kitchen/response/ping").isEmpty)
    }

    @Test("without MQTT 5 properties a Response Topic is ignored and the answer goes to B/response/VERB")
    func responseTopicIgnoredWithoutProperties() async throws {
        let fixture = try NodeFixture(supportsProperties: false)

        await fixture.commandService().handle(
            MQTTMessage(
                topic: "noiseclock/kitchen/cmd/ping", payload: [], responseTopic: "clients/ctl/7f3a",
                correlationData: [1, 2, 3]))

        let responses = fixture.transport.published
        #expect(responses.count == 1)
        #expect(responses.first?.topic == "noiseclock/kitchen/response/ping")
        #expect(responses.first?.correlationData == nil)
    }

    @Test("an empty Response Topic falls back to B/response/VERB")
    func emptyResponseTopic() async throws {
        let fixture = try NodeFixture(supportsProperties: true)
        await fixture.commandService().handle(
            MQTTMessage(topic: "noiseclock/kitchen/cmd/ping", payload: [], responseTopic: ""))
        #expect(fixture.transport.published.map(\.topic) == ["noiseclock/kitchen/response/ping"])
    }

    @Test("a retained command is old by definition: ignored, nothing changed or published, a warning logged")
    func retainedCommandIgnored() async throws {
        let fixture = try NodeFixture()
        let logs = LogRecorder()

        await fixture.commandService(logger: logs).handle(
            MQTTMessage(topic: "noiseclock/kitchen/cmd/settings", text: #"{"time_format":"12h"}"#, retain: true))

        #expect(fixture.transport.published.isEmpty)
        #expect(fixture.settings.timeFormat == .twentyFourHour)
        #expect(fixture.store.saves == 0)
        #expect(logs.entries.contains { $0.level == .warning && $0.metadata["topic"] == "noiseclock/kitchen/cmd/settings" })
    }

    @Test("a command to all nodes is answered on this node's own response topic")
    func allNodesCommand() async throws {
        let fixture = try NodeFixture()

        await fixture.commandService().handle(MQTTMessage(topic: "noiseclock/all/cmd/ping", text: "PRESS"))

        #expect(fixture.transport.published.map(\.topic) == ["noiseclock/kitchen/response/ping"])
        #expect(fixture.transport.published.first?.json?["status"] == "ok")
    }

    @Test(
        "a message on a topic that is not a command for this node is ignored",
        arguments: [
            "noiseclock/kitchen/settings", "noiseclock/hall/cmd/ping", "noiseclock/kitchen/cmd/",
            "noiseclock/kitchen/cmdping", "noiseclock/all/cmd/", "other/kitchen/cmd/ping", "noiseclock/kitchen/response/ping",
        ])
    func nonCommandTopicIgnored(topic: String) async throws {
        let fixture = try NodeFixture()
        await fixture.commandService().handle(MQTTMessage(topic: topic, text: ""))
        #expect(fixture.transport.published.isEmpty)
    }

    @Test("run subscribes to the node's and the all-nodes command topics and answers every command, a change after its states")
    func runAnswersInjectedCommands() async throws {
        let fixture = try NodeFixture()
        let service = fixture.commandService()
        let task = Task { try await service.run() }

        fixture.transport.inject(MQTTMessage(topic: "noiseclock/kitchen/cmd/settings", text: #"{"time_format":"12h"}"#))
        fixture.transport.inject(MQTTMessage(topic: "noiseclock/all/cmd/ping", text: ""))
        fixture.transport.inject(MQTTMessage(topic: "noiseclock/kitchen/cmd/nope", text: ""))
        // settings publishes B/settings and B/clock before its response: 3 + 2 messages in all.
        let published = await fixture.transport.waitForPublished(count: 5)
        task.cancel()
        _ = await task.result

        #expect(fixture.transport.subscriptions.sorted() == ["noiseclock/all/cmd/#", "noiseclock/kitchen/cmd/#"])
        // Commands run side by side (a change waits for its write, a ping does not): every one is
        // answered, and a change's states go out before its answer.
        let topics = published.map(\.topic)
        #expect(topics.sorted() == [
            "noiseclock/kitchen/clock", "noiseclock/kitchen/response/nope", "noiseclock/kitchen/response/ping",
            "noiseclock/kitchen/response/settings", "noiseclock/kitchen/settings",
        ])
        #expect(topics.filter { $0.hasPrefix("noiseclock/kitchen/settings") || $0.hasSuffix("clock") || $0.hasSuffix("/settings") } == [
            "noiseclock/kitchen/settings", "noiseclock/kitchen/clock", "noiseclock/kitchen/response/settings",
        ])
        #expect(published.first { $0.topic.hasSuffix("/nope") }?.json?["error"]?["code"] == "unknown_verb")
    }
}

@Suite("ConnectionEventsService")
struct ConnectionEventsServiceTests {
    @Test("each connect publishes a fresh retained status; other connection events publish nothing")
    func statusOnConnect() async throws {
        let fixture = try NodeFixture()
        let service = ConnectionEventsService(
            transport: fixture.transport, status: fixture.node.status, logger: fixture.logs.logger())
        let task = Task { try await service.run() }

        fixture.transport.send(.connected)
        let first = await fixture.transport.waitForPublished(count: 1)
        await fixture.clock.advance(by: .seconds(42))
        fixture.transport.send(.subscribed)
        fixture.transport.send(.disconnected(reason: "broker went away"))
        fixture.transport.send(.connected)
        // Events are handled in order: anything published for `subscribed` or `disconnected` would come
        // before the second status.
        let published = await fixture.transport.waitForPublished(count: 2)
        task.cancel()
        _ = await task.result

        #expect(first.first?.topic == "noiseclock/kitchen/status")
        #expect(published.map(\.topic) == ["noiseclock/kitchen/status", "noiseclock/kitchen/status"])
        #expect(published.allSatisfy { $0.retain })
        #expect(published.map { $0.json?["uptime_s"] } == [0, 42])
        #expect(fixture.logs.entries.contains { $0.level == .warning && $0.metadata["reason"] == "broker went away" })
    }
}

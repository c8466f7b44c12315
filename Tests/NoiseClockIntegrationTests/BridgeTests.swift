import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

/// A node on a floor broker, seen and driven from the office broker through the example bridge of
/// `deploy/mosquitto-bridge` (SPEC §7, "many nodes": a broker per floor, one in the office).
@Suite("A node behind the example Mosquitto bridge, driven from the office broker")
struct BridgeTests {
    @Test("retained state, availability and discovery reach the office, also for a late subscriber; so does the last will on SIGKILL")
    func stateAndLastWillCross() async throws {
        try await withBridgedBrokers { brokers in
            try await withStopping(NodeProcess(port: brokers.floor.port)) { node in
                let topics = node.topics
                let discoveryTopic = "homeassistant/device/\(node.nodeID)/config"
                let retainedTopics = [topics.availability, topics.status, topics.settings, discoveryTopic]
                try await withClient(port: brokers.office.port, subscriptions: retainedTopics) { office in
                    // `online` as sent (not retained): it came through the bridge while the office listened.
                    let process = try await node.startOnline(seenBy: office)
                    for topic in retainedTopics {
                        #expect(await office.waitFor(topic) != nil, "\(topic) did not reach the office")
                    }

                    // Subscribed once the office has passed them on: what it gets is the office's retained copy.
                    try await withClient(port: brokers.office.port, subscriptions: ["\(topics.node)/#", discoveryTopic]) { late in
                        let availability = await late.waitFor(topics.availability) { $0.retain }
                        #expect(availability?.text == "online")
                        let status = await late.waitFor(topics.status) { $0.retain }
                        let statusJSON = try #require(status.flatMap { try? JSONValue.parse($0.payload) }, "no retained status on the office")
                        #expect(statusJSON["version"]?.stringValue?.isEmpty == false)
                        let settings = await late.waitFor(topics.settings) { $0.retain }
                        let settingsJSON = try #require(settings.flatMap { try? JSONValue.parse($0.payload) }, "no retained settings")
                        #expect(settingsJSON["show_seconds"] == false)

                        let discovery = await late.waitFor(discoveryTopic) { $0.retain }
                        let config = try #require(discovery.flatMap { try? JSONValue.parse($0.payload) }, "no retained discovery")
                        guard case .array(let availabilities)? = config["avty"] else {
                            Issue.record("no avty in \(config.serialized)")
                            return
                        }
                        #expect(availabilities.first?["t"]?.stringValue == topics.availability)
                        #expect(config["cmps"]?.objectValue?.isEmpty == false)
                    }

                    // The floor broker publishes the will; the bridge carries it up, retained.
                    process.signal(SIGKILL)
                    let offline = await office.waitFor(topics.availability, timeout: .seconds(15)) { $0.text == "offline" }
                    #expect(offline != nil, "no offline on the office after SIGKILL")
                    try await withClient(port: brokers.office.port, subscriptions: [topics.availability]) { late in
                        let retained = await late.waitFor(topics.availability) { $0.retain }
                        #expect(retained?.text == "offline")
                    }
                }
            }
        }
    }

    @Test("commands from the office are answered through the bridge: MQTT 5 Response Topic with Correlation Data, B/response, all/cmd")
    func commandsCross() async throws {
        try await withBridgedBrokers { brokers in
            try await withStopping(NodeProcess(port: brokers.floor.port)) { node in
                let topics = node.topics
                try await withClient(port: brokers.office.port, subscriptions: ["noiseclock/#"]) { office in
                    try await node.startOnline(seenBy: office)

                    // MQTT 5: the answer comes on the request's own Response Topic (under noiseclock/,
                    // which the bridge carries up) with its Correlation Data, bytes that are not UTF-8 too.
                    let inbox = "\(topics.node)/response/office/\(UUID().uuidString.prefix(8))"
                    let correlation: [UInt8] = [0, 1, 2, 0xFE, 0xFF]
                    office.client.publish(
                        MQTTMessage(topic: topics.command("ping"), payload: [], responseTopic: inbox, correlationData: correlation))
                    let answer = try #require(await office.waitFor(inbox), "no answer on the Response Topic")
                    #expect(answer.correlationData == correlation)
                    let pong = try JSONValue.parse(answer.payload)
                    #expect(pong["status"] == "ok")
                    #expect(pong["data"]?["version"]?.stringValue?.isEmpty == false)

                    // MQTT 3.1.1 (no properties): the answer on B/response/VERB, the request's transaction echoed.
                    let replies = [topics.response("settings")]
                    try await withClient(port: brokers.office.port, subscriptions: replies, protocolVersion: .v311) { old in
                        old.publish(topics.command("settings"), #"{"show_seconds":true,"transaction":"office-311"}"#)
                        let reply = await old.waitFor(topics.response("settings")) { $0.text.contains("office-311") }
                        let json = try #require(reply.flatMap { try? JSONValue.parse($0.payload) }, "no answer on B/response/settings")
                        #expect(json["status"] == "ok")
                        #expect(json["data"]?["show_seconds"] == true)
                    }

                    // The change is seen on the office side, in B/settings and B/clock.
                    #expect(await office.latest(topics.settings) { $0["show_seconds"] == true } != nil, "B/settings unchanged on the office")
                    #expect(await office.latest(topics.clock) { $0["show_seconds"] == true } != nil, "B/clock unchanged on the office")
                    // The bridge did not send the command back up: a copy would have come before the answer.
                    _ = await office.waitFor(topics.response("settings")) { $0.text.contains("office-311") }
                    #expect(office.messages(on: topics.command("settings")).count == 1)

                    // Every node: <base>/all/cmd/VERB, answered on the node's own B/response/VERB.
                    office.publish(topics.allCommand("ping"), #"{"transaction":"office-all"}"#)
                    let all = await office.waitFor(topics.response("ping")) { $0.text.contains("office-all") }
                    #expect(all.flatMap { try? JSONValue.parse($0.payload)["status"] } == "ok", "no answer to all/cmd/ping")
                    // The first ping was answered on its Response Topic alone: a B/response/ping copy of
                    // that answer would have come before this one.
                    #expect(office.messages(on: topics.response("ping")).allSatisfy { $0.text.contains("office-all") })
                }
            }
        }
    }

    @Test("a command published on the floor is answered once: it goes up to the office but does not come back down")
    func floorCommandDoesNotLoop() async throws {
        try await withBridgedBrokers { brokers in
            try await withStopping(NodeProcess(port: brokers.floor.port)) { node in
                let topics = node.topics
                try await withClient(port: brokers.office.port, subscriptions: ["noiseclock/#"]) { office in
                    try await node.startOnline(seenBy: office)
                    try await withClient(port: brokers.floor.port, subscriptions: []) { floor in
                        floor.publish(topics.command("ping"), #"{"transaction":"floor-1"}"#)
                        #expect(await office.waitFor(topics.command("ping")) != nil, "the floor's command did not go up")
                        #expect(await office.waitFor(topics.response("ping")) { $0.text.contains("floor-1") } != nil)
                    }
                    // A looped copy would reach the node ahead of this one (same bridge, same order).
                    office.publish(topics.command("ping"), #"{"transaction":"marker"}"#)
                    #expect(await office.waitFor(topics.response("ping")) { $0.text.contains("marker") } != nil)
                    #expect(office.messages(on: topics.response("ping")).filter { $0.text.contains("floor-1") }.count == 1)
                }
            }
        }
    }

    @Test("Home Assistant's online on the office reaches the node, which sends discovery again; a cut-off floor shows in the bridge's state")
    func homeAssistantBirthCrosses() async throws {
        try await withBridgedBrokers { brokers in
            try await withStopping(NodeProcess(port: brokers.floor.port)) { node in
                let topics = node.topics
                let discoveryTopic = "homeassistant/device/\(node.nodeID)/config"
                let subscriptions = [topics.availability, discoveryTopic, "homeassistant/status", brokers.bridgeStateTopic]
                try await withClient(port: brokers.office.port, subscriptions: subscriptions) { office in
                    let process = try await node.startOnline(seenBy: office)
                    #expect(await office.waitFor(discoveryTopic) != nil, "no discovery at start")
                    let announcedBefore = process.log.components(separatedBy: "Home Assistant announced itself").count

                    office.clear()
                    office.publish("homeassistant/status", "online")
                    #expect(await office.waitFor(discoveryTopic) != nil, "discovery not sent again")
                    #expect(await eventually { process.log.components(separatedBy: "Home Assistant announced itself").count > announcedBefore })
                    // Not sent back up by the bridge: a copy would have come before the discovery.
                    #expect(office.messages(on: "homeassistant/status").count == 1)

                    // The floor broker goes away with the node still running: the office learns it from
                    // the bridge's state (its last will), while the node's availability stays as it was.
                    await brokers.floor.kill()
                    let down = await office.waitFor(brokers.bridgeStateTopic, timeout: .seconds(15)) { $0.text == "0" }
                    #expect(down != nil, "the bridge's state did not turn 0 on the office")
                    #expect(office.messages(on: topics.availability).allSatisfy { $0.text == "online" })
                    process.signal(SIGKILL)
                }
            }
        }
    }
}

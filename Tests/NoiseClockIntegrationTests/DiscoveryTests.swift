import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

@Suite("Home Assistant discovery through a real Mosquitto")
struct DiscoveryTests {
    @Test("discovery is retained at start; online on homeassistant/status brings it and every retained state again")
    func birthRepublishes() async throws {
        try await withNode(environment: ["NOISECLOCK_NODE_NAME": "Guest room"], subscriptions: { [$0.availability] }) { node, _, _ in
            let configTopic = "homeassistant/device/\(node.nodeID)/config"
            // Subscribed once the node is online: everything it published comes from the broker's retained copies.
            try await withClient(port: node.port, subscriptions: ["\(node.topics.node)/#", "homeassistant/device/#"]) { watcher in
                let retained = await watcher.waitFor(configTopic)
                #expect(retained?.retain == true)
                let discovery = try #require(retained.flatMap { try? JSONValue.parse($0.payload) })
                #expect(discovery.objectValue?["dev"]?.objectValue?["name"] == "Guest room")
                for topic in [node.topics.status, node.topics.alarms, node.topics.alarmNext, node.topics.noise] {
                    #expect(await watcher.waitFor(topic) != nil, "no retained \(topic)")
                }

                watcher.clear()
                watcher.publish("homeassistant/status", "online")
                // A subscriber that is already subscribed gets the re-sent values as live messages.
                // Waited for as events: how fast they come is no test's business (one loaded run
                // took 3.06 s for all of them; the command and wake-up latencies are in `make bench`).
                let again = await watcher.waitFor(configTopic)
                #expect(again != nil, "discovery not sent again")
                for topic in [node.topics.availability, node.topics.status, node.topics.settings, node.topics.clock, node.topics.alarms,
                              node.topics.alarmNext, node.topics.alarmState, node.topics.noise] {
                    #expect(await watcher.waitFor(topic) != nil, "\(topic) not sent again")
                }

                watcher.clear()
                watcher.publish("homeassistant/status", "offline")
                try await Task.sleep(for: .milliseconds(500))
                #expect(watcher.messages(on: configTopic).isEmpty, "offline must not trigger a re-send")
            }
        }
    }

    @Test("the Radio select offers the file's stations from the start; a station added, renamed or deleted over MQTT republishes the discovery; its off option stops the radio")
    func radioStations() async throws {
        let configuration = "radio:\n  stations:\n    - {id: test, name: \"Test FM\", url: \"http://127.0.0.1:1/test\"}\n"
        try await withNode(
            environment: ["NOISECLOCK_AUDIO_DEVICE": "null"], configuration: configuration,
            subscriptions: { [$0.availability, $0.state(StateTopic.radio), "homeassistant/device/#"] }
        ) { node, _, watcher in
            let configTopic = "homeassistant/device/\(node.nodeID)/config"
            @Sendable func options(_ message: MQTTMessage) -> [String] {
                (try? JSONValue.parse(message.payload))?["cmps"]?["radio"]?["options"]?.items.compactMap(\.stringValue) ?? []
            }
            func waitForOptions(_ expected: [String]) async -> Bool {
                await watcher.waitFor(configTopic) { options($0) == expected } != nil
            }
            // A step that fails ends the test: the ones after it build on it.
            try #require(await waitForOptions(["Off", "Test FM"]), "discovery: \(watcher.messages(on: configTopic).map(options))")

            let added = try await watcher.request(node.topics, "radio/station/add", #"{"name":"Night Rain","url":"http://127.0.0.1:1/rain"}"#)
            #expect(added["status"] == "ok", "\(added.serialized)")
            try #require(await waitForOptions(["Off", "Test FM", "Night Rain"]))
            let renamed = try await watcher.request(node.topics, "radio/station/update", #"{"id":"night-rain","name":"Rain"}"#)
            #expect(renamed["status"] == "ok", "\(renamed.serialized)")
            try #require(await waitForOptions(["Off", "Test FM", "Rain"]))

            // What the select sends: the chosen station's id, and for off a null station.
            let discovery = try #require(watcher.messages(on: configTopic).last.flatMap { try? JSONValue.parse($0.payload) })
            let template = try #require(discovery["cmps"]?["radio"]?["command_template"]?.stringValue)
            #expect(template.contains("'Rain': 'night-rain'") && template.contains("'Off': none"), "\(template)")
            let playing = try await watcher.request(node.topics, "radio/play", #"{"station":"night-rain"}"#)
            #expect(playing["data"]?["station"] == "night-rain", "\(playing.serialized)")
            let stopped = try await watcher.request(node.topics, "radio/play", #"{"station":null}"#)
            #expect(stopped["status"] == "ok" && stopped["data"]?["playing"] == false, "\(stopped.serialized)")
            #expect(await watcher.latest(node.topics.state(StateTopic.radio)) { $0["state"] == "idle" } != nil)

            let deleted = try await watcher.request(node.topics, "radio/station/delete", "night-rain")
            #expect(deleted["status"] == "ok", "\(deleted.serialized)")
            #expect(await waitForOptions(["Off", "Test FM"]))
        }
    }

    @Test("with NOISECLOCK_MQTT_DISCOVERY=false nothing is published under homeassistant/")
    func discoveryOff() async throws {
        try await withNode(
            environment: ["NOISECLOCK_MQTT_DISCOVERY": "false"], subscriptions: { ["homeassistant/#", $0.availability] }
        ) { node, _, watcher in
            #expect(await watcher.waitFor(node.topics.availability) { $0.text == "online" } != nil)
            watcher.publish("homeassistant/status", "online")
            try await Task.sleep(for: .milliseconds(700))
            #expect(watcher.messages.filter { $0.topic.hasPrefix("homeassistant/device/") }.isEmpty)
        }
    }
}

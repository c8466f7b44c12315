import FoundationEssentials
import NoiseClockCore
import NoiseClockMQTT
import Testing

@testable import NoiseClockNode

@Suite("The MQTT publisher: the hub's first subscriber")
struct MQTTStatePublisherTests {
    @Test("the node's publisher goes through the hub: what MQTT gets is what the hub holds, under B/")
    func publisherThroughHub() async throws {
        let fixture = try NodeFixture()
        await fixture.node.publishStartStates()
        let hub = fixture.node.hub
        #expect(hub.snapshot.map(\.topic) == ["status", "settings", "clock"])
        for (topic, value) in hub.snapshot {
            let message = try #require(fixture.transport.published(on: "noiseclock/kitchen/\(topic)").last)
            #expect(message.retain)
            #expect(message.json == value)
        }
        fixture.node.hub.emit(fixture.node.time.event("battery_low", ["percentage": 9]))
        let event = try #require(fixture.transport.published(on: "noiseclock/kitchen/event").last)
        #expect(!event.retain)
        #expect(event.json?["event"] == "battery_low")
    }
}

@Suite("The MQTT publisher's QoS")
struct MQTTStatePublisherQoSTests {
    @Test("B/clock and B/alarm/next, sent again every minute, go at QoS 0; every other state and every event at QoS 1, all states retained; events are written at once")
    func qualityOfService() async throws {
        let f = try await AlarmFixture()
        try await f.add(#"{"time":"07:30","days":["mon","tue"]}"#)
        await f.advance(to: f.now.addingTimeInterval(61))
        await f.node.publishStartStates()
        f.node.hub.emit(f.node.time.event("battery_low", ["percentage": 9]))

        let node = f.topics.node + "/"
        let states = f.transport.published.filter { $0.topic.hasPrefix(node) && $0.topic != f.topics.event && $0.retain }
        let topics = Set(states.map { String($0.topic.dropFirst(node.count)) })
        // Enough of the node's states to mean something: both refreshed ones and several others.
        #expect(topics.isSuperset(of: ["clock", "alarm/next", "alarms", "alarm/state", "status", "settings"]), "\(topics.sorted())")
        for message in states {
            let topic = String(message.topic.dropFirst(node.count))
            #expect(message.qos == (["clock", "alarm/next"].contains(topic) ? 0 : 1), "\(topic) at QoS \(message.qos)")
        }
        let events = f.transport.published(on: f.topics.event)
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.qos == 1 && !$0.retain })
        // Events are written at once (subscribers time a ring by its event), states at the turn's end.
        #expect(f.transport.publishedNow == events.map(\.topic), "written at once: \(f.transport.publishedNow)")
        #expect(MQTTStatePublisher.qos(ofState: "alarm/state") == 1 && MQTTStatePublisher.qos(ofState: "clock") == 0)
    }
}

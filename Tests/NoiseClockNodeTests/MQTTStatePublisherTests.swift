import NoiseClockCore
import Testing

@testable import NoiseClockNode

@Suite("The MQTT publisher: the hub's first subscriber")
struct MQTTStatePublisherTests {
    @Test("the node's publisher goes through the hub: what MQTT gets is what the hub holds, under B/")
    func publisherThroughHub() throws {
        let fixture = try NodeFixture()
        fixture.node.publishStartStates()
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

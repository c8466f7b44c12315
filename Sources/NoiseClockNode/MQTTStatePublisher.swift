import NoiseClockCore
import NoiseClockMQTT

/// The hub's MQTT subscriber: each retained state to `B/<topic>` (retained, QoS 1), each event
/// to `B/event`. The client keeps the latest retained value of each topic and sends it again
/// after every reconnect.
public struct MQTTStatePublisher: Sendable {
    let transport: any MQTTTransport
    let topics: Topics

    public init(transport: any MQTTTransport, topics: Topics) {
        self.transport = transport
        self.topics = topics
    }

    public func handle(_ change: StateChange) {
        switch change {
        case .state(let topic, let value):
            transport.publish(MQTTMessage(topic: "\(topics.node)/\(topic)", payload: value.serializedBytes, qos: 1, retain: true))
        case .event(let event):
            transport.publish(MQTTMessage(topic: topics.event, payload: event.serializedBytes, qos: 1))
        }
    }
}

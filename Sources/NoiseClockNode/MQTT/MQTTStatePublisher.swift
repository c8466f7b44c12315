import NoiseClockCore
import NoiseClockHub
import NoiseClockMQTT

/// The hub's MQTT subscriber: each retained state to `B/<topic>` (retained), each event to
/// `B/event` (QoS 1). The client keeps the latest retained value of each topic and sends it again
/// after every reconnect.
///
/// States go out at QoS 1, except the two the node sends again at least once a minute whatever
/// happens (`refreshedEveryMinute`): at QoS 0 they cost the broker no PUBACK, which on an idle node
/// was a wake-up of the node's loop each minute for each. What QoS 1 would add for them is
/// nothing a minute does not make good: a copy lost with a dropped connection is sent again after
/// the reconnect (the client's table of latest values), and a subscriber that misses one (QoS 0 is
/// not queued for an offline persistent session) gets a whole new value within the minute. The
/// other states change only on an event (an alarm, a setting, the battery) and may not be sent
/// again for hours, so they keep QoS 1, and so do events, which are not retained.
///
/// An event is written at once (`publishNow`), not at the end of the node's turn: subscribers time
/// a ring by its event, and the turn that rings goes on to start the tone and publish the alarm
/// topics. Events are few, so the extra TCP segment they may cost is nothing.
public struct MQTTStatePublisher: Sendable {
    /// Hub topics published at each minute boundary (or second) as well as on a change: `clock`
    /// (ClockService) and `alarm/next` (its `in_s`, AlarmScheduler).
    public static let refreshedEveryMinute: Set<String> = ["clock", "alarm/next"]

    let transport: any MQTTTransport
    let topics: Topics

    public init(transport: any MQTTTransport, topics: Topics) {
        self.transport = transport
        self.topics = topics
    }

    /// The QoS of a retained state on `topic` (relative to `B`).
    public static func qos(ofState topic: String) -> Int {
        refreshedEveryMinute.contains(topic) ? 0 : 1
    }

    public func handle(_ change: StateChange) {
        switch change {
        case .state(let topic, let value):
            transport.publish(
                MQTTMessage(topic: "\(topics.node)/\(topic)", payload: value.serializedBytes, qos: Self.qos(ofState: topic), retain: true))
        case .event(let event):
            transport.publishNow(MQTTMessage(topic: topics.event, payload: event.serializedBytes, qos: 1))
        }
    }
}

/// Every MQTT topic the node uses, built from `mqtt.base_topic` and `node.id` (B = base/node).
public struct Topics: Sendable, Hashable {
    public let base: String
    public let nodeID: String

    public init(base: String, nodeID: String) {
        self.base = base
        self.nodeID = nodeID
    }

    /// `B`, the node's own prefix.
    public var node: String { "\(base)/\(nodeID)" }
    public var availability: String { "\(node)/availability" }
    public var status: String { "\(node)/status" }
    public var clock: String { "\(node)/clock" }
    public var settings: String { "\(node)/settings" }
    public var event: String { "\(node)/event" }
    public var battery: String { "\(node)/battery" }
    public var noise: String { "\(node)/noise" }
    public var alarms: String { "\(node)/alarms" }
    public var alarmNext: String { "\(node)/alarm/next" }
    public var alarmState: String { "\(node)/alarm/state" }

    public var commandPrefix: String { "\(node)/cmd/" }
    public var allCommandPrefix: String { "\(base)/all/cmd/" }
    /// The subscriptions that carry commands to this node.
    public var commandFilters: [String] { [commandPrefix + "#", allCommandPrefix + "#"] }

    public func command(_ verb: String) -> String { commandPrefix + verb }
    public func allCommand(_ verb: String) -> String { allCommandPrefix + verb }
    public func response(_ verb: String) -> String { "\(node)/response/\(verb)" }

    /// The verb carried by a command topic (`B/cmd/alarm/add` → `alarm/add`), or nil for any other topic.
    public func verb(inCommandTopic topic: String) -> String? {
        for prefix in [commandPrefix, allCommandPrefix] where topic.hasPrefix(prefix) {
            let verb = String(topic.dropFirst(prefix.count))
            return verb.isEmpty ? nil : verb
        }
        return nil
    }
}

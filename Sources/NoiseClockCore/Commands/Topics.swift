/// Every MQTT topic the node uses, built from `mqtt.base_topic` and `node.id` (B = base/node).
public struct Topics: Sendable, Hashable {
    public let base: String
    public let nodeID: String
    /// `B`, the node's own prefix.
    public let node: String
    /// Made once: every command's topic is matched against them.
    public let commandPrefix: String
    public let allCommandPrefix: String

    public init(base: String, nodeID: String) {
        self.base = base
        self.nodeID = nodeID
        node = "\(base)/\(nodeID)"
        commandPrefix = "\(base)/\(nodeID)/cmd/"
        allCommandPrefix = "\(base)/all/cmd/"
    }

    public var availability: String { "\(node)/availability" }
    public var status: String { state(StateTopic.status) }
    public var clock: String { state(StateTopic.clock) }
    public var settings: String { state(StateTopic.settings) }
    public var event: String { "\(node)/event" }
    /// `B/<topic>` for a retained state's topic relative to `B` (`StateTopic`).
    public func state(_ topic: String) -> String { "\(node)/\(topic)" }
    public var battery: String { state(StateTopic.battery) }
    public var noise: String { state(StateTopic.noise) }
    public var alarms: String { state(StateTopic.alarms) }
    public var alarmNext: String { state(StateTopic.alarmNext) }
    public var alarmState: String { state(StateTopic.alarmState) }
    public var display: String { state(StateTopic.display) }

    /// The subscriptions that carry commands to this node.
    public var commandFilters: [String] { [commandPrefix + "#", allCommandPrefix + "#"] }

    public func command(_ verb: String) -> String { commandPrefix + verb }
    public func allCommand(_ verb: String) -> String { allCommandPrefix + verb }
    public func response(_ verb: String) -> String { node + "/response/" + verb }

    /// The verb carried by a command topic (`B/cmd/alarm/add` → `alarm/add`), or nil for any other topic.
    public func verb(inCommandTopic topic: String) -> String? {
        let prefix: String
        if topic.hasPrefix(commandPrefix) {
            prefix = commandPrefix
        } else if topic.hasPrefix(allCommandPrefix) {
            prefix = allCommandPrefix
        } else {
            return nil
        }
        let verb = String(topic.utf8.dropFirst(prefix.utf8.count))
        return verb.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// The retained states of the node, by their topic relative to `B` (what the `StateHub` keys them
/// by; the MQTT publisher puts `B/` in front, the WebSocket sends them as they are).
public enum StateTopic {
    public static let status = "status"
    public static let clock = "clock"
    public static let settings = "settings"
    public static let battery = "battery"
    public static let noise = "noise"
    public static let alarms = "alarms"
    public static let alarmNext = "alarm/next"
    public static let alarmState = "alarm/state"
    /// The screen: night or day, the effective theme, the brightness (SPEC §9).
    public static let display = "display"
    /// Countdown timers (SPEC §10).
    public static let timers = "timers"
    /// The meditation session, the guided library and the history (SPEC §10).
    public static let meditation = "meditation"
    public static let meditations = "meditations"
    public static let meditationStats = "meditation/stats"
    /// The next twelve months of public holidays and days off, and the vacation (SPEC §12).
    public static let holidays = "holidays"
    /// Where a waking up is: idle, sunrise, ringing, snoozed or awake (SPEC §12).
    public static let wake = "wake"
    /// Bedtime: idle, reminder or winding_down, the next bedtime, the wind-down's end (SPEC §13).
    public static let bedtime = "bedtime"
    /// The kids' clock: off, sleep, almost or ok, and when that changes next (SPEC §13).
    public static let kids = "kids"
    /// The night light: on or off, its colour, brightness and end (SPEC §13).
    public static let nightLight = "nightlight"
    /// The radio: what plays, its state and title, the stations (SPEC §15).
    public static let radio = "radio"
    /// What the clock says and what waits to be said (SPEC §16).
    public static let speech = "speech"
    /// The weather now and today (SPEC §17).
    public static let weather = "weather"
    /// The calendars' next seven days (SPEC §17).
    public static let calendar = "calendar"
}

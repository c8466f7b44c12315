/// What `B/battery` says of the battery's charge (SPEC §2).
public enum BatteryState: String, Sendable, Hashable, CaseIterable {
    case charging
    case discharging
    case full
    case notCharging = "not_charging"
    case unknown

    /// UPower's `State` property: 1 charging, 2 discharging, 3 empty, 4 fully charged,
    /// 5 pending charge (on mains, not charging yet), 6 pending discharge (about to discharge).
    public init(upowerState: UInt32) {
        switch upowerState {
        case 1: self = .charging
        case 2, 3: self = .discharging
        case 4: self = .full
        case 5, 6: self = .notCharging
        default: self = .unknown
        }
    }

    /// The kernel's `status` file under /sys/class/power_supply/BAT*/.
    public init(sysfsStatus: String) {
        switch sysfsStatus.trimmingWhitespace().lowercased() {
        case "charging": self = .charging
        case "discharging": self = .discharging
        case "full": self = .full
        case "not charging": self = .notCharging
        default: self = .unknown
        }
    }
}

/// The colour band of a charge: green 50-100 %, yellow 20-49, orange 10-19, red below 10.
public enum BatteryLevel: String, Sendable, Hashable, CaseIterable {
    case green, yellow, orange, red

    public init(percentage: Double) {
        switch percentage {
        case 50...: self = .green
        case 20..<50: self = .yellow
        case 10..<20: self = .orange
        default: self = .red
        }
    }
}

/// One reading of the battery, from whichever source the node uses.
public struct BatteryReading: Sendable, Hashable {
    public var present: Bool
    public var percentage: Double?
    public var state: BatteryState
    public var timeToEmptySeconds: Int?
    public var timeToFullSeconds: Int?
    /// `upower`, `sysfs` or `none`.
    public var source: String

    public init(
        present: Bool, percentage: Double? = nil, state: BatteryState = .unknown, timeToEmptySeconds: Int? = nil,
        timeToFullSeconds: Int? = nil, source: String
    ) {
        self.present = present
        self.percentage = percentage
        self.state = state
        self.timeToEmptySeconds = timeToEmptySeconds
        self.timeToFullSeconds = timeToFullSeconds
        self.source = source
    }

    /// No battery known to `source` (a desktop, a Pi on mains, UPower gone).
    public static func absent(source: String) -> BatteryReading {
        BatteryReading(present: false, source: source)
    }

    public var level: BatteryLevel? { present ? percentage.map(BatteryLevel.init(percentage:)) : nil }

    public var json: JSONValue {
        [
            "present": .bool(present),
            "percentage": percentage.map { .number(($0 * 10).rounded() / 10) } ?? .null,
            "state": .string(state.rawValue),
            "charging": .bool(state == .charging),
            "level": level.map { .string($0.rawValue) } ?? .null,
            "time_to_empty_s": timeToEmptySeconds.map { .number(Double($0)) } ?? .null,
            "time_to_full_s": timeToFullSeconds.map { .number(Double($0)) } ?? .null,
            "source": .string(source),
        ]
    }
}

/// `battery_low` once when a discharging battery falls below the threshold; armed again only when
/// the charge is back at threshold + 5 points, so a charge hovering at the threshold warns once.
public struct LowBatteryWarning: Sendable, Hashable {
    public let threshold: Double
    public private(set) var armed = true

    public static let rearmMargin = 5.0

    public init(threshold: Double) {
        self.threshold = threshold
    }

    /// True when this reading should send `battery_low`.
    public mutating func shouldWarn(for reading: BatteryReading) -> Bool {
        guard reading.present, let percentage = reading.percentage else { return false }
        if !armed {
            if percentage >= threshold + Self.rearmMargin { armed = true }
            return false
        }
        if reading.state == .discharging, percentage < threshold {
            armed = false
            return true
        }
        return false
    }
}

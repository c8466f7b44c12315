/// The hours in which normal announcements wait (SPEC §16): from `start` up to `end`, minutes of
/// the local day; across midnight when `end` is earlier than `start`.
public struct QuietHours: Sendable, Hashable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// Minutes of the day of "HH:MM"; nil for anything else.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    /// Whether minute `minute` of the local day (0-1439) is quiet.
    public func contains(minute: Int) -> Bool {
        start < end ? (start..<end).contains(minute) : minute >= start || minute < end
    }

    /// Minutes from minute `minute` of the day until the quiet hours end (0 when they are not on).
    public func minutesLeft(at minute: Int) -> Int {
        guard contains(minute: minute) else { return 0 }
        return (end - minute + 1440) % 1440
    }

    public var json: JSONValue { ["start": .string(Self.text(start)), "end": .string(Self.text(end))] }

    static func text(_ minutes: Int) -> String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0\(h)" : "\(h)") + ":" + (m < 10 ? "0\(m)" : "\(m)")
    }
}

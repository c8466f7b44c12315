import FoundationEssentials

/// Whether it is night on the face (SPEC §9 `settings.face.night`), and when that changes next.
/// Pure: the sun's times come from the caller (`SunTimes` with the node's latitude and longitude).
public enum NightSchedule {
    /// The sun's rise or set on a local day, or nil when it does not happen that day (polar day
    /// or night) or the node has no position.
    public typealias SunEvent = @Sendable (_ edge: FaceStyle.NightEdge, _ day: CivilDate) -> Date?

    public struct State: Sendable, Hashable {
        public var isNight: Bool
        /// The next instant at which night starts or ends; nil when it never does (the schedule is
        /// off, or an edge depends on a sun that does not rise or set for days).
        public var nextChange: Date?

        public init(isNight: Bool, nextChange: Date?) {
            self.isNight = isNight
            self.nextChange = nextChange
        }
    }

    /// The night runs from `start` to the next `end`: the latest edge at or before `now` says
    /// whether it is night. Edges are looked for two local days either side of `now`, so a night
    /// that crosses midnight, and an edge a daylight-saving change moves, are both seen.
    public static func state(at now: Date, night: FaceStyle.Night, zone: Zone, sun: SunEvent) -> State {
        guard night.enabled, night.start != night.end else { return State(isNight: false, nextChange: nil) }
        let today = LocalTime(now, in: zone).date
        var edges: [(instant: Date, isStart: Bool)] = []
        for offset in -2...2 {
            let day = CivilDate(daysSinceEpoch: today.daysSinceEpoch + Int64(offset))
            if let start = instant(of: night.start, on: day, zone: zone, sun: sun) { edges.append((start, true)) }
            if let end = instant(of: night.end, on: day, zone: zone, sun: sun) { edges.append((end, false)) }
        }
        edges.sort { ($0.instant, $0.isStart ? 1 : 0) < ($1.instant, $1.isStart ? 1 : 0) }
        let isNight = edges.last { $0.instant <= now }?.isStart ?? false
        let next = edges.first { $0.instant > now && $0.isStart != isNight }?.instant
        return State(isNight: isNight, nextChange: next)
    }

    /// The first end of the night (`night.end`: a time, or the sunrise) after `instant`, whether
    /// the schedule is on or not: the morning a wind-down's night lasts until (SPEC §13). Nil
    /// when the sun does not rise for days.
    public static func nextEnd(after instant: Date, night: FaceStyle.Night, zone: Zone, sun: SunEvent) -> Date? {
        let today = LocalTime(instant, in: zone).date
        for offset in 0...3 {
            let day = CivilDate(daysSinceEpoch: today.daysSinceEpoch + Int64(offset))
            if let end = self.instant(of: night.end, on: day, zone: zone, sun: sun), end > instant { return end }
        }
        return nil
    }

    static func instant(of edge: FaceStyle.NightEdge, on day: CivilDate, zone: Zone, sun: SunEvent) -> Date? {
        switch edge {
        case .time(let time): AlarmSchedule.occurrence(of: time, on: day, in: zone)
        case .sunset, .sunrise: sun(edge, day)
        }
    }
}

import FoundationEssentials
import NoiseClockCore

/// The node's wall clock with the zone in force (`clock.timezone`, else the system's): what a
/// service needs to read the time, format it, and stamp its events.
public struct NodeTime: Sendable {
    public let clock: NodeClock
    public let settings: SettingsModel

    public init(clock: NodeClock, settings: SettingsModel) {
        self.clock = clock
        self.settings = settings
    }

    public func now() -> Date { clock.now() }

    /// The zone in force, without building a whole ClockFace.
    public func zone() -> Zone { settings.zone(system: clock.systemTimeZone()) }

    public func face() -> ClockFace { ClockFace(settings: settings.current, systemZone: clock.systemTimeZone()) }

    /// `instant` as SPEC §2 writes times: ISO 8601 with the offset of the zone in force.
    public func iso(_ instant: Date) -> String { ISOTime.string(instant, in: zone()) }

    /// The `B/event` object for `name`: its details, the name and the time now.
    public func event(_ name: String, _ details: [String: JSONValue] = [:]) -> JSONValue {
        var members = details
        members["event"] = .string(name)
        members["at"] = .string(iso(now()))
        return .object(members)
    }
}


import FoundationEssentials
import NoiseClockCore

/// Time as the node sees it, injected so tests can cross a minute, a day or a DST change at once.
public struct NodeClock: Sendable {
    /// The wall clock; read again after every sleep, because it can jump.
    public var now: @Sendable () -> Date
    /// Sleeps on a monotonic clock.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// The zone used when `clock.timezone` is empty.
    public var systemTimeZone: @Sendable () -> Zone

    public init(
        now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void,
        systemTimeZone: @escaping @Sendable () -> Zone
    ) {
        self.now = now
        self.sleep = sleep
        self.systemTimeZone = systemTimeZone
    }

    public static let live = NodeClock(
        now: { Date() },
        // A small explicit tolerance, so the system may not defer an alarm's wake-up to coalesce
        // it with other timers (measured here, the default was as punctual; this makes it a promise).
        sleep: { try await ContinuousClock().sleep(for: $0, tolerance: .milliseconds(1)) },
        systemTimeZone: { Zone.system })

    /// A clock driven by any `Clock` (a test clock), starting at the wall-clock instant `start`.
    public static func driven<C: Clock>(by clock: C, startingAt start: Date, timeZone: Zone) -> NodeClock
    where C.Duration == Duration, C: Sendable {
        let origin = clock.now
        return NodeClock(
            now: {
                let elapsed = origin.duration(to: clock.now)
                return start.addingTimeInterval(
                    Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            },
            sleep: { try await clock.sleep(for: $0) },
            systemTimeZone: { timeZone })
    }
}

import FoundationEssentials
import NoiseClockCore
import NoiseClockSystem

/// Time as the node sees it, injected so tests can cross a minute, a day or a DST change at once.
public struct NodeClock: Sendable {
    /// The wall clock; read again after every sleep, because it can jump.
    public var now: @Sendable () -> Date
    /// Sleeps on a monotonic clock.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// Sleeps until the wall clock reads an instant, or less when the wall clock is set meanwhile:
    /// the caller reads `now` again and decides anew. Nothing polls the wall clock.
    public var sleepUntil: @Sendable (Date) async throws -> Void
    /// The zone used when `clock.timezone` is empty.
    public var systemTimeZone: @Sendable () -> Zone

    /// Without `sleepUntil`, a wall-clock sleep is a monotonic sleep of the distance `now` gives
    /// (what a test clock needs: its wall clock changes only when the test says so).
    public init(
        now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void,
        sleepUntil: (@Sendable (Date) async throws -> Void)? = nil, systemTimeZone: @escaping @Sendable () -> Zone
    ) {
        self.now = now
        self.sleep = sleep
        self.sleepUntil = sleepUntil ?? { deadline in
            let seconds = deadline.timeIntervalSince(now())
            guard seconds > 0 else { return try Task.checkCancellation() }
            try await sleep(.microseconds(Int64((seconds * 1_000_000).rounded(.up))))
        }
        self.systemTimeZone = systemTimeZone
    }

    /// The real clocks, through the process's one `TimeSource` (timerfds: the node wakes when
    /// something is due, and at once when the wall clock is set).
    public static let live = NodeClock(
        now: { Date() },
        sleep: { try await TimeSource.shared.sleep(for: $0) },
        sleepUntil: { try await TimeSource.shared.sleep(untilWall: $0) },
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

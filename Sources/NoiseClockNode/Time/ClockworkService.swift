import FoundationEssentials
import NoiseClockCore
import ServiceLifecycle
import NoiseClockSystem

/// A feature driven by the wall clock: the alarms, the countdown timers, a meditation session,
/// bedtime, the kids' clock and the night light. Its owner says what is due; `ClockworkService`
/// runs the one loop they all share.
@NodeActor
public protocol Clockwork: AnyObject, Sendable {
    /// Publishes the feature's topics and goes on with what was stored (a ring that had not timed
    /// out rings again, a timer that ended while the node was down rings or is missed).
    func start() async
    /// Does whatever has come due and returns the wall-clock instant to look again (nil: nothing
    /// is timed; a verb or a change of the wall clock wakes it).
    func look() async -> Date?
    /// Sleeps until `deadline`, or less when a verb changes what is timed or the wall clock is set.
    nonisolated func sleep(until deadline: Date?) async
}

/// What the owner of a clockwork keeps between its looks, written once for all of them: whether
/// it has started (its `start` runs once, however often it is called), and the wall clock at its
/// last look, which a clockwork's step compares with now: a later look that reads earlier means
/// the wall clock was set back.
struct Looks {
    private(set) var last: Date?
    private var started = false

    /// True the first time only.
    mutating func start() -> Bool {
        defer { started = true }
        return !started
    }

    /// A look at `now` is done.
    mutating func record(_ now: Date) { last = now }
}

/// Drives a `Clockwork`: starts it, then looks at each instant it names and sleeps in between. At a
/// due instant its work comes before the minute's other work (`runUrgently`).
public struct ClockworkService<Feature: Clockwork>: Service, CustomStringConvertible {
    public let description: String
    let feature: Feature

    public nonisolated init(_ name: String, _ feature: Feature) {
        description = name
        self.feature = feature
    }

    public func run() async {
        await feature.start()
        await cancelWhenGracefulShutdown {
            await runUrgently {
                while !Task.isCancelled {
                    let next = await feature.look()
                    await feature.sleep(until: next)
                }
            }
        }
    }
}

/// Alarms: the next fire, snooze end, ring timeout or announcement, or the next minute
/// (`B/alarm/next` counts down in minutes).
extension AlarmScheduler: Clockwork {
    public func look() async -> Date? { advance() }

    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }
}

/// Timers: the next end or ring timeout; with no timer running or ringing, no deadline.
extension TimerScheduler: Clockwork {
    public func look() async -> Date? { advance() }
}

/// A meditation: the next gong, the end of a guided meditation or its next position update, the
/// end of a gong's ring-out, or the midnight that changes the stats.
extension MeditationSession: Clockwork {
    public func look() async -> Date? { advance() }
}

import NoiseClockCore
import ServiceLifecycle

/// Drives the alarm schedule: publishes the alarm topics at start, then sleeps until the next
/// instant at which something is due (or a verb or a change of the wall clock wakes it) to ring,
/// report and announce.
public struct AlarmService: Service, CustomStringConvertible {
    public var description: String { "AlarmService" }
    let scheduler: AlarmScheduler

    public func run() async {
        await scheduler.start()
        await cancelWhenGracefulShutdown {
            // At a due instant its work comes before the minute's other work (`runUrgently`).
            await runUrgently {
                while !Task.isCancelled {
                    let next = await scheduler.advance()
                    await scheduler.sleep(until: next)
                }
            }
        }
    }
}

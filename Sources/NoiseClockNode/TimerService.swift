import NoiseClockCore
import ServiceLifecycle

/// Drives the countdown timers: publishes `B/timers` at start, then sleeps until the next end or
/// ring timeout (or until a verb or a change of the wall clock wakes it). With no timer running or
/// ringing it sleeps without a deadline.
public struct TimerService: Service, CustomStringConvertible {
    public var description: String { "TimerService" }
    let scheduler: TimerScheduler

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

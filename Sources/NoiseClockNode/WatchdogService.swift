import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import ServiceLifecycle

/// systemd's watchdog: `WATCHDOG=1` every half `WatchdogSec`, but only while the node works —
/// the MQTT network thread goes round its loop, and the Swift side (this task, and the alarm
/// scheduler's actor) gets to run. A hung node stops sending, and systemd restarts it.
public struct WatchdogService: Service, CustomStringConvertible {
    public var description: String { "WatchdogService" }
    let notifier: SystemdNotifier
    let interval: Duration
    /// When the MQTT network thread was last seen alive.
    let heartbeat: @Sendable () -> ContinuousClock.Instant
    let scheduler: AlarmScheduler
    let logger: Logger

    public func run() async {
        await cancelWhenGracefulShutdown {
            var warned = false
            while !Task.isCancelled {
                _ = await scheduler.responsive()
                let age = ContinuousClock.now - heartbeat()
                if age < .seconds(10) {
                    notifier.watchdog()
                    warned = false
                } else if !warned {
                    logger.error("the MQTT network thread has not run for \(age); holding back the watchdog")
                    warned = true
                }
                try? await TimeSource.shared.sleep(for: interval)
            }
        }
    }
}

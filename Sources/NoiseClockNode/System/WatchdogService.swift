import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import ServiceLifecycle

/// systemd's watchdog: `WATCHDOG=1` every half `WatchdogSec`, but only while the node works —
/// its event loop gets to run this task and the alarm scheduler, and no attempt to connect to the
/// broker has hung (a connect stuck in DNS or a TLS handshake). A hung node stops sending, and
/// systemd restarts it.
public struct WatchdogService: Service, CustomStringConvertible {
    public var description: String { "WatchdogService" }
    let notifier: SystemdNotifier
    let interval: Duration
    /// When the MQTT connection was last seen in working order (`MQTTClient.lastHeartbeat`).
    let heartbeat: @Sendable () -> ContinuousClock.Instant
    let scheduler: AlarmScheduler
    /// The node's clock (`NodeClock.sleep`).
    let sleep: @Sendable (Duration) async throws -> Void
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
                    logger.error("an attempt to connect to the MQTT broker has hung for \(age); holding back the watchdog")
                    warned = true
                }
                try? await sleep(interval)
            }
        }
    }
}

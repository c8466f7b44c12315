import NoiseClockCore
import ServiceLifecycle

/// Drives the screen over time: at each night start and end, when a touch's 30 s are over, and at
/// once when the settings, a verb or a ringing alarm change what it should show.
public struct DisplayService: Service, CustomStringConvertible {
    public var description: String { "DisplayService" }
    let display: DisplayController
    let clock: NodeClock

    public func run() async {
        display.watchSignals()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let next = await display.update().next
                await display.wakeUp.sleep(until: next, on: clock)
            }
        }
    }
}

import FoundationEssentials
import NoiseClockCore
import NoiseClockHub
import ServiceLifecycle

/// Publishes `B/clock` when the displayed time changes: at each wall-clock minute (or second)
/// boundary, aligned, never drifting. Between boundaries it sleeps: the settings signal wakes it,
/// and so does a change of the wall clock (the time source's `timerfd` sees it at once).
public struct ClockService: Service, CustomStringConvertible {
    public var description: String { "ClockService" }
    let hub: StateHub
    let time: NodeTime
    /// Woken by a settings change: `publish_seconds` changes how long it may sleep.
    let wakeUp = WakeUp()

    public init(hub: StateHub, time: NodeTime) {
        self.hub = hub
        self.time = time
        let wakeUp = wakeUp
        hub.signals.subscribe { signal in if case .settings = signal { wakeUp.wake() } }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await tick() }
    }

    private func tick() async {
        var published: (tick: Int64, settings: ClockSettings)?
        while !Task.isCancelled {
            let now = time.now()
            let face = time.face()
            let tick = face.tick(at: now)
            if published?.tick != tick || published?.settings != face.settings {
                hub.publish(StateTopic.clock, face.state(at: now).json)
                published = (tick, face.settings)
            }
            await wakeUp.sleep(until: face.nextTick(after: now), on: time.clock)
        }
    }
}

import NoiseClockAudio
import NoiseClockCore
import ServiceLifecycle

/// Resumes the stored noise at start, then drives the sleep timer and previews: it sleeps until
/// the player's next timed instant, and without a timer while nothing is timed, so an idle node
/// is not woken for the noise.
public struct NoiseService: Service, CustomStringConvertible {
    public var description: String { "NoiseService" }
    let player: NoisePlayer
    let clock: NodeClock

    public func run() async {
        await player.resume()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await player.tick()
                await player.wakeUp.sleep(until: await player.nextTick, on: clock)
            }
        }
    }
}

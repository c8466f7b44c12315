import NoiseClockCore
import ServiceLifecycle

/// Drives the meditation session: publishes `B/meditation` and its stats at start, then sleeps
/// until the next gong, the end of a guided meditation or its next position update, the end of a
/// gong's ring-out, or the midnight that changes the stats; a verb, a change of the higher audio
/// sources and a change of the wall clock wake it. Idle (or paused) it sleeps without a timer
/// unless the stats change at the next midnights.
public struct MeditationService: Service, CustomStringConvertible {
    public var description: String { "MeditationService" }
    let session: MeditationSession

    public func run() async {
        await session.start()
        await cancelWhenGracefulShutdown {
            // At a due instant its work comes before the minute's other work (`runUrgently`).
            await runUrgently {
                while !Task.isCancelled {
                    let next = await session.advance()
                    await session.sleep(until: next)
                }
            }
        }
    }
}

import NoiseClockAudio
import ServiceLifecycle

/// Runs the audio thread for the node's life and stops it on shutdown; carries the engine's
/// status changes (which it reports on its own thread, into `changes`) to `B/status` and the
/// `audio_error` event.
public struct AudioService: Service, CustomStringConvertible {
    public var description: String { "AudioService(\(engine.device))" }
    let engine: AudioEngine
    let changes: AsyncStream<AudioStatus>
    let status: StatusBoard

    public func run() async throws {
        engine.start()
        await cancelWhenGracefulShutdown {
            for await change in changes { status.audioChanged(change) }
        }
        engine.stop()
    }
}

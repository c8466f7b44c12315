import NoiseClockAudio
import ServiceLifecycle

/// Runs the audio thread for the node's life and stops it on shutdown.
public struct AudioService: Service, CustomStringConvertible {
    public var description: String { "AudioService(\(engine.device))" }
    let engine: AudioEngine

    public func run() async throws {
        engine.start()
        try? await gracefulShutdown()
        engine.stop()
    }
}

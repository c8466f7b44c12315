import ServiceLifecycle

/// Scans the guided meditations once at start (publishing `B/meditations`), then waits for the
/// shutdown without a timer: later scans come from `meditation/rescan`.
public struct MeditationLibraryService: Service, CustomStringConvertible {
    public var description: String { "MeditationLibraryService" }
    let library: MeditationLibrary

    public func run() async {
        _ = await library.rescan()
        try? await gracefulShutdown()
    }
}

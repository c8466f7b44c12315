import NoiseClockCore

/// The bedtime verbs (SPEC §13): `bedtime/start` (the face, Home Assistant's "Wind down" button,
/// a smart button) and `bedtime/stop`, both answered with `B/bedtime` as it is then.
struct BedtimeCommands: CommandGroup {
    let bedtime: BedtimeScheduler

    func addCommands(to router: inout CommandRouter) {
        router.add("bedtime/start") { _ in try await bedtime.windDown() }
        router.add("bedtime/stop") { _ in try await bedtime.stopWindDown() }
    }
}

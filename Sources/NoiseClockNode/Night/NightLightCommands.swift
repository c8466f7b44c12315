import NoiseClockCore

/// The night light's verb (SPEC §13): `nightlight` with `on`, `color`, `brightness` and
/// `off_after_min`, or Home Assistant's JSON light (`state`, `color` as `{"r","g","b"}`); a bare
/// `ON`/`OFF` turns it on or off. Answered with `B/nightlight` as it is after the change.
struct NightLightCommands: CommandGroup {
    let light: NightLightController

    func addCommands(to router: inout CommandRouter) {
        router.add("nightlight", shape: .object(bareValue: "on")) { arguments in try await light.set(arguments) }
    }
}

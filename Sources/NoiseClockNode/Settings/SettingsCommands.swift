import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem

/// `settings` (SPEC §2): a partial settings object, decoded into a `SettingsPatch` and stored. The
/// settings model emits `B/settings` and the settings signal, which wakes the services that depend
/// on them (the clock's `publish_seconds`, the screen's night schedule, a session's settings);
/// `B/clock` in the new format follows before the answer.
struct SettingsCommands: CommandGroup {
    let settings: SettingsModel
    let time: NodeTime
    let hub: StateHub
    /// `settings.meditation`'s sounds are resolved against it: no unknown sound is stored.
    var catalog = SoundCatalog(sounds: [])
    /// `settings.bedtime.sounds` and `settings.wake.sound` may name one of these (`radio:<id>`).
    var stations: @NodeActor @Sendable () -> RadioStations = { RadioStations() }

    func addCommands(to router: inout CommandRouter) {
        router.add("settings", shape: .object(bareValue: nil)) { arguments in
            var patch = try SettingsPatch(arguments)
            if let meditation = patch.meditation { patch.meditation = try MeditationSettings.resolvingSounds(meditation, in: catalog) }
            if let wake = patch.wake { patch.wake = try WakeSettings.resolvingSound(wake, in: catalog, stations: await stations()) }
            if let bedtime = patch.bedtime { patch.bedtime = try BedtimeSettings.resolvingSounds(bedtime, in: catalog, stations: await stations()) }
            let before = settings.current
            let after = try await settings.change(patch)
            if after != before {
                // The woken clock service finds this clock already sent (the hub sends on change).
                hub.publish(StateTopic.clock, time.face().state(at: time.now()).json)
            }
            return after.json
        }
    }
}

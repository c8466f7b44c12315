import NoiseClockCore

/// `settings` (SPEC §2): a partial settings object, decoded into a `SettingsPatch` and stored. The
/// settings model emits `B/settings`; `B/clock` in the new format follows before the answer, and
/// the services that depend on the settings (the clock's `publish_seconds`, the screen's night
/// schedule and theme) are woken.
struct SettingsCommands: CommandGroup {
    let settings: SettingsModel
    let time: NodeTime
    let hub: StateHub
    let wakeUps: [WakeUp]
    /// `settings.meditation`'s sounds are resolved against it: no unknown sound is stored.
    var catalog = SoundCatalog(sounds: [])

    func addCommands(to router: inout CommandRouter) {
        router.add("settings", shape: .object(bareValue: nil)) { arguments in
            var patch = try SettingsPatch(arguments)
            if let meditation = patch.meditation { patch.meditation = try MeditationSettings.resolvingSounds(meditation, in: catalog) }
            let before = settings.current
            let after = try await settings.change(patch)
            if after != before {
                // The woken clock service finds this clock already sent (the hub sends on change).
                hub.publish(StateTopic.clock, time.face().state(at: time.now()).json)
                for wakeUp in wakeUps { wakeUp.wake() }
            }
            return after.json
        }
    }
}

import NoiseClockCore

/// `settings` (SPEC §2): a partial settings object, decoded into a `SettingsPatch` and stored. The
/// settings model emits `B/settings`; `B/clock` in the new format follows before the answer, and
/// the clock service is woken to sleep by the new settings (`publish_seconds`).
struct SettingsCommands: CommandGroup {
    let settings: SettingsModel
    let time: NodeTime
    let hub: StateHub
    let clockWakeUp: WakeUp

    func addCommands(to router: inout CommandRouter) {
        router.add("settings", shape: .object(bareValue: nil)) { arguments in
            let patch = try SettingsPatch(arguments)
            let before = settings.current
            let after = try settings.change(patch)
            if after != before {
                // The woken clock service finds this clock already sent (the hub sends on change).
                hub.publish(StateTopic.clock, time.face().state(at: time.now()).json)
                clockWakeUp.wake()
            }
            return after.json
        }
    }
}

import NoiseClockCore

/// `wake/days_off` and `vacation` (SPEC §12): changes of `settings.wake`, stored like any setting
/// and answered with the new `settings.wake`. The alarm scheduler follows the settings signal.
struct WakeCommands: CommandGroup {
    let settings: SettingsModel
    let time: NodeTime

    func addCommands(to router: inout CommandRouter) {
        // {"add":[dates],"remove":[dates]}: days off already past are dropped on the way.
        router.add("wake/days_off", shape: .object(bareValue: nil)) { arguments in
            try arguments.allowOnly(["add", "remove"])
            guard arguments.values["add"] != nil || arguments.values["remove"] != nil else {
                throw CommandError.invalidField("add", "give add or remove, each a list of dates such as [\"2026-12-24\"]")
            }
            let add = try arguments.values["add"].map { value throws(CommandError) in try WakeSettings.dates(value, field: "add") } ?? []
            let remove = try arguments.values["remove"].map { value throws(CommandError) in try WakeSettings.dates(value, field: "remove") } ?? []
            let today = LocalTime(time.now(), in: time.zone()).date.daysSinceEpoch
            let after = try await settings.change { current throws(CommandError) in
                let days = Set(current.wake.daysOff).union(add).subtracting(remove).filter { $0.daysSinceEpoch >= today }
                guard days.count <= DaysOff.maximumCount else {
                    throw .invalidField("add", "at most \(DaysOff.maximumCount) days off; this would make \(days.count)")
                }
                let sorted = days.sorted { $0.daysSinceEpoch < $1.daysSinceEpoch }
                return SettingsPatch(wake: ["days_off": .array(sorted.map { .string($0.iso) })])
            }
            return after.wake.json
        }
        // {"until":"YYYY-MM-DD"} pauses every alarm through that date; {"until":null} ends it. A bare
        // date is the same.
        router.add("vacation", shape: .object(bareValue: "until")) { arguments in
            try arguments.allowOnly(["until"])
            guard let value = arguments.values["until"] else {
                throw CommandError.invalidField("until", "give the vacation's last day, YYYY-MM-DD, or null to end it")
            }
            if value != .null {
                guard let text = value.stringValue, let date = CivilDate(iso: text) else {
                    throw CommandError.invalidField("until", "must be a date YYYY-MM-DD or null, not \(value.serialized)")
                }
                let today = LocalTime(time.now(), in: time.zone()).date
                guard date.daysSinceEpoch >= today.daysSinceEpoch else {
                    throw CommandError.invalidField("until", "must be today (\(today.iso)) or later, not \(text)")
                }
            }
            let after = try await settings.change(SettingsPatch(wake: ["vacation_until": value]))
            return after.wake.json
        }
    }
}

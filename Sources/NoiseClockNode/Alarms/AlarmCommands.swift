import NoiseClockCore

/// The alarm verbs (SPEC §2): `alarm/*` and `snooze` (`dismiss`, shared with the timers, is in `DismissCommands`).
struct AlarmCommands: CommandGroup {
    static let idRequired = "the id of an alarm is required"
    let scheduler: AlarmScheduler
    let language: NodeLanguage

    func addCommands(to router: inout CommandRouter) {
        router.add("alarm/add", shape: .object(bareValue: "time")) { arguments in
            var draft = try AlarmDraft(arguments)
            // An alarm added without a label is called what the language in force calls one ("Wecker").
            if draft.fields.label == nil { draft.fields.label = language.catalog.text("label.alarm") }
            return try await scheduler.add(draft)
        }
        router.add("alarm/update", shape: .object(bareValue: nil)) { arguments in
            try await scheduler.update(try AlarmPatch(arguments))
        }
        router.add("alarm/delete", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.delete(try Self.id(arguments))
        }
        router.add("alarm/duplicate", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.duplicate(try Self.id(arguments))
        }
        router.add("alarm/enable", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.setEnabled(try Self.id(arguments), true)
        }
        router.add("alarm/disable", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.setEnabled(try Self.id(arguments), false)
        }
        router.add("alarm/skip_next", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.skipNext(try Self.id(arguments))
        }
        router.add("alarm/unskip", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.unskip(try Self.id(arguments))
        }
        // A Home Assistant switch per alarm: `B/cmd/alarm/ID/enabled` with ON or OFF.
        router.add("alarm/{id}/enabled", shape: .object(bareValue: "state")) { arguments in
            try arguments.allowOnly(["state"])
            guard let on = try arguments.bool("state") else { throw CommandError.invalidField("state", "ON or OFF is required") }
            return try await scheduler.setEnabled(arguments.path["id"] ?? "", on)
        }
        // Home Assistant's per-alarm time: `B/cmd/alarm/ID/time` with `07:30` (a `text` entity) or
        // `07:30:00` (the `time` platform, which always sends seconds; alarms keep whole minutes).
        router.add("alarm/{id}/time", shape: .object(bareValue: "time")) { arguments in
            try arguments.allowOnly(["time"])
            let text = try arguments.requiredString("time", "a time HH:MM is required")
            return try await scheduler.update(AlarmPatch(id: arguments.path["id"] ?? "", AlarmFields(time: try Self.time(text))))
        }
        router.add("snooze", shape: .object(bareValue: "minutes")) { arguments in
            try arguments.allowOnly(["minutes"])
            return try await scheduler.snooze(minutes: try arguments.int("minutes", in: 1...60))
        }
    }

    /// `HH:MM`, or `HH:MM:SS` with seconds `00`.
    static func time(_ text: String) throws(CommandError) -> AlarmTime {
        var minutes = Substring(text)
        if text.count == 8, text.hasSuffix(":00") { minutes = text.dropLast(3) }
        guard let time = AlarmTime(String(minutes)) else {
            throw .invalidField("time", "must be HH:MM (00:00 to 23:59), or HH:MM:00, not \"\(text)\"")
        }
        return time
    }

    private static func id(_ arguments: CommandArguments) throws(CommandError) -> String {
        try arguments.allowOnly(["id"])
        return try arguments.requiredString("id", idRequired)
    }
}

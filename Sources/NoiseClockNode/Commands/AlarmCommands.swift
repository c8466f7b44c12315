import NoiseClockCore

/// The alarm verbs (SPEC §2): `alarm/*`, `snooze` and `dismiss`.
struct AlarmCommands: CommandGroup {
    static let idRequired = "the id of an alarm is required"
    let scheduler: AlarmScheduler

    func addCommands(to router: inout CommandRouter) {
        router.add("alarm/add", shape: .object(bareValue: "time")) { arguments in
            try await scheduler.add(try AlarmDraft(arguments))
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
        router.add("snooze", shape: .object(bareValue: "minutes")) { arguments in
            try arguments.allowOnly(["minutes"])
            return try await scheduler.snooze(minutes: try arguments.int("minutes", in: 1...60))
        }
        router.add("dismiss") { _ in try await scheduler.dismiss() }
    }

    private static func id(_ arguments: CommandArguments) throws(CommandError) -> String {
        try arguments.allowOnly(["id"])
        return try arguments.requiredString("id", idRequired)
    }
}

import NoiseClockCore

/// The countdown timer verbs (SPEC §10): `timer/*`.
struct TimerCommands: CommandGroup {
    static let idRequired = "the id of a timer is required"
    let timers: TimerScheduler
    let language: NodeLanguage

    func addCommands(to router: inout CommandRouter) {
        router.add("timer/start", shape: .object(bareValue: "minutes")) { arguments in
            var draft = try TimerDraft(arguments)
            if draft.label == nil { draft.label = language.catalog.text("label.timer") }
            return try await timers.start(draft)
        }
        router.add("timer/pause", shape: .object(bareValue: "id")) { arguments in
            try await timers.pause(try Self.id(arguments))
        }
        router.add("timer/resume", shape: .object(bareValue: "id")) { arguments in
            try await timers.resume(try Self.id(arguments))
        }
        router.add("timer/extend", shape: .object(bareValue: nil)) { arguments in
            try arguments.allowOnly(["id", "seconds"])
            let id = try arguments.requiredString("id", Self.idRequired)
            let seconds = try arguments.int("seconds", in: 1...CountdownTimer.durations.upperBound) ?? 60
            return try await timers.extend(id, seconds: seconds)
        }
        // Without an id (`PRESS`, Home Assistant's "Cancel timers"): every timer.
        router.add("timer/cancel", shape: .object(bareValue: "id")) { arguments in
            try await timers.cancel(try Self.optionalID(arguments))
        }
        // Without an id: every ringing timer.
        router.add("timer/dismiss", shape: .object(bareValue: "id")) { arguments in
            try await timers.dismiss(try Self.optionalID(arguments))
        }
    }

    private static func id(_ arguments: CommandArguments) throws(CommandError) -> String {
        try arguments.allowOnly(["id"])
        return try arguments.requiredString("id", idRequired)
    }

    private static func optionalID(_ arguments: CommandArguments) throws(CommandError) -> String? {
        try arguments.allowOnly(["id"])
        guard let id = try arguments.string("id") else { return nil }
        guard !id.isEmpty else { throw .invalidField("id", "must name a timer") }
        return id
    }
}

/// `dismiss` (SPEC §2, §10): stops the ringing alarm; else the ringing timers; else cancels a
/// pending snooze. What is heard goes first.
struct DismissCommands: CommandGroup {
    let alarms: AlarmScheduler
    let timers: TimerScheduler

    func addCommands(to router: inout CommandRouter) {
        router.add("dismiss") { _ in
            // Both look at the time first: a ring may have begun or ended since their loops last
            // ran, and the choice must be made on what rings now.
            _ = await alarms.advance()
            if await alarms.ringingPhase != .ringing, await timers.ringsNow() {
                return ["timers": try await timers.dismiss(nil)]
            }
            return try await alarms.dismiss()
        }
    }
}

import NoiseClockCore
import ServiceLifecycle

/// Drives the alarm schedule: publishes the alarm topics at start, then sleeps until the next
/// instant at which something is due (or a verb or a change of the wall clock wakes it) to ring,
/// report and announce.
public struct AlarmService: Service, CustomStringConvertible {
    public var description: String { "AlarmService" }
    let scheduler: AlarmScheduler

    public func run() async {
        await scheduler.start()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let next = await scheduler.advance()
                await scheduler.sleep(until: next)
            }
        }
    }
}

/// The alarm verbs (SPEC §2): `alarm/*`, `snooze` and `dismiss`.
enum AlarmCommands {
    static let idRequired = "the id of an alarm is required"

    static func add(to router: inout CommandRouter, scheduler: AlarmScheduler) {
        router.add("alarm/add", shape: .object(bareValue: "time")) { arguments in
            try await scheduler.add(arguments)
        }
        router.add("alarm/update", shape: .object(bareValue: nil)) { arguments in
            try await scheduler.update(arguments)
        }
        router.add("alarm/delete", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.delete(try id(arguments))
        }
        router.add("alarm/duplicate", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.duplicate(try id(arguments))
        }
        router.add("alarm/enable", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.setEnabled(try id(arguments), true)
        }
        router.add("alarm/disable", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.setEnabled(try id(arguments), false)
        }
        router.add("alarm/skip_next", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.skipNext(try id(arguments))
        }
        router.add("alarm/unskip", shape: .object(bareValue: "id")) { arguments in
            try await scheduler.unskip(try id(arguments))
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

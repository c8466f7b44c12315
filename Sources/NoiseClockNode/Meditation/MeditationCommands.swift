import NoiseClockCore

/// The meditation verbs (SPEC §10): `meditation/start`, `pause`, `resume`, `stop`, and for guided
/// meditations `play` and `seek`.
struct MeditationCommands: CommandGroup {
    let session: MeditationSession

    func addCommands(to router: inout CommandRouter) {
        // Nothing, `PRESS` or `{}`: every member from `settings.meditation`; a bare number: minutes.
        router.add("meditation/start", shape: .object(bareValue: "minutes")) { arguments in
            try await session.start(try MeditationDraft(arguments))
        }
        router.add("meditation/pause") { _ in try await session.pause() }
        router.add("meditation/resume") { _ in try await session.resume() }
        router.add("meditation/stop") { _ in try await session.stop() }
        router.add("meditation/play", shape: .object(bareValue: "id")) { arguments in
            try arguments.allowOnly(["id"])
            let id = try arguments.requiredString("id", "the id of a guided meditation is required")
            guard !id.isEmpty else { throw CommandError.invalidField("id", "must name a guided meditation") }
            return try await session.play(id)
        }
        router.add("meditation/seek", shape: .object(bareValue: "position_s")) { arguments in
            try arguments.allowOnly(["position_s"])
            guard let value = arguments.values["position_s"] else { throw CommandError.invalidField("position_s", "the position in seconds is required") }
            let position: Double
            switch value {
            case .number(let number): position = number
            case .string(let text) where Double(text) != nil: position = Double(text) ?? 0
            default: throw CommandError.invalidField("position_s", "must be a number of seconds, not \(value.serialized)")
            }
            guard position.isFinite else { throw CommandError.invalidField("position_s", "must be a number of seconds") }
            return try await session.seek(position)
        }
    }
}

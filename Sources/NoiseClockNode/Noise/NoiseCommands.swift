import NoiseClockCore

/// The `noise/*` verbs (SPEC §2).
struct NoiseCommands: CommandGroup {
    static let soundRequired = "a sound id or catalog name is required"
    let player: NoisePlayer

    func addCommands(to router: inout CommandRouter) {
        router.add("noise/play", shape: .object(bareValue: "sound")) { arguments in
            try arguments.allowOnly(["sound", "volume", "sleep_min"])
            let sound = try arguments.requiredString("sound", Self.soundRequired)
            return try await player.play(
                [(sound, nil)], volume: try arguments.int("volume", in: 0...100),
                sleepMinutes: try arguments.int("sleep_min", in: 0...720))
        }
        router.add("noise/add", shape: .object(bareValue: "sound")) { arguments in
            try arguments.allowOnly(["sound", "volume"])
            let sound = try arguments.requiredString("sound", Self.soundRequired)
            return try await player.add(sound, volume: try arguments.int("volume", in: 0...100))
        }
        router.add("noise/remove", shape: .object(bareValue: "sound")) { arguments in
            try arguments.allowOnly(["sound"])
            let sound = try arguments.requiredString("sound", Self.soundRequired)
            return try await player.remove(sound)
        }
        router.add("noise/stop") { _ in try await player.stop() }
        router.add("noise/toggle") { _ in try await player.toggle() }
        router.add("noise/power", shape: .object(bareValue: "state")) { arguments in
            try arguments.allowOnly(["state"])
            guard let on = try arguments.bool("state") else { throw CommandError.invalidField("state", "ON or OFF is required") }
            return try await player.power(on: on)
        }
        router.add("noise/volume", shape: .object(bareValue: "volume")) { arguments in
            try arguments.allowOnly(["volume"])
            let volume = try arguments.requiredInt("volume", in: 0...100, "a volume from 0 to 100 is required")
            return try await player.setVolume(volume)
        }
        router.add("noise/sleep", shape: .object(bareValue: "minutes")) { arguments in
            try arguments.allowOnly(["minutes"])
            let minutes = try arguments.requiredInt("minutes", in: 0...720, "minutes from 0 (cancel) to 720 are required")
            return try await player.setSleepTimer(minutes: minutes)
        }
        router.add("noise/preview", shape: .object(bareValue: "sound")) { arguments in
            try arguments.allowOnly(["sound"])
            let sound = try arguments.requiredString("sound", Self.soundRequired)
            return try await player.preview(sound)
        }
    }
}

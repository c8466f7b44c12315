import NoiseClockAudio
import NoiseClockCore
import ServiceLifecycle

/// Resumes the stored noise at start, then drives the sleep timer and previews: it sleeps until
/// the player's next timed instant, and without a timer while nothing is timed, so an idle node
/// is not woken for the noise.
public struct NoiseService: Service, CustomStringConvertible {
    public var description: String { "NoiseService" }
    let player: NoisePlayer
    let clock: NodeClock

    public func run() async {
        await player.resume()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await player.tick()
                await player.wakeUp.sleep(until: await player.nextTick, on: clock)
            }
        }
    }
}

/// The `noise/*` verbs (SPEC §2).
enum NoiseCommands {
    static let soundRequired = "a sound id or catalog name is required"

    static func add(to router: inout CommandRouter, player: NoisePlayer) {
        router.add("noise/play", shape: .object(bareValue: "sound")) { arguments in
            try arguments.allowOnly(["sound", "volume", "sleep_min"])
            let sound = try arguments.requiredString("sound", soundRequired)
            return try await player.play(
                [(sound, nil)], volume: try arguments.int("volume", in: 0...100),
                sleepMinutes: try arguments.int("sleep_min", in: 0...720))
        }
        router.add("noise/add", shape: .object(bareValue: "sound")) { arguments in
            try arguments.allowOnly(["sound", "volume"])
            let sound = try arguments.requiredString("sound", soundRequired)
            return try await player.add(sound, volume: try arguments.int("volume", in: 0...100))
        }
        router.add("noise/remove", shape: .object(bareValue: "sound")) { arguments in
            try arguments.allowOnly(["sound"])
            let sound = try arguments.requiredString("sound", soundRequired)
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
            let sound = try arguments.requiredString("sound", soundRequired)
            return try await player.preview(sound)
        }
    }
}

import NoiseClockCore

/// The `radio/*` verbs (SPEC §15).
struct RadioCommands: CommandGroup {
    let player: RadioPlayer

    func addCommands(to router: inout CommandRouter) {
        router.add("radio/play", shape: .object(bareValue: "station")) { arguments in
            try arguments.allowOnly(["station", "url", "volume", "sleep_min"])
            let station = try arguments.string("station"), url = try arguments.string("url")
            if station != nil && url != nil { throw CommandError.invalidField("url", "give a station or a url, not both") }
            return try await player.play(
                station: station, url: url, volume: try arguments.int("volume", in: 0...100),
                sleepMinutes: try arguments.int("sleep_min", in: 0...720))
        }
        router.add("radio/stop") { _ in try await player.stop() }
        router.add("radio/volume", shape: .object(bareValue: "volume")) { arguments in
            try arguments.allowOnly(["volume"])
            return try await player.setVolume(try arguments.requiredInt("volume", in: 0...100, "a volume from 0 to 100 is required"))
        }
        router.add("radio/sleep", shape: .object(bareValue: "minutes")) { arguments in
            try arguments.allowOnly(["minutes"])
            return try await player.setSleepTimer(
                minutes: try arguments.requiredInt("minutes", in: 0...720, "minutes from 0 (cancel) to 720 are required"))
        }
        router.add("radio/search", shape: .object(bareValue: "query")) { arguments in
            try arguments.allowOnly(["query", "country", "limit"])
            let search = try RadioSearch(
                query: try arguments.requiredString("query", "a query is required"), country: try arguments.string("country"),
                limit: try arguments.int("limit", in: RadioSearch.limits))
            return try await player.search(search)
        }
        router.add("radio/station/add", shape: .object(bareValue: nil)) { arguments in
            try arguments.allowOnly(["id", "name", "url", "fallback"])
            return try await player.addStation(arguments)
        }
        router.add("radio/station/update", shape: .object(bareValue: nil)) { arguments in
            try arguments.allowOnly(["id", "name", "url", "fallback"])
            return try await player.updateStation(arguments)
        }
        router.add("radio/station/delete", shape: .object(bareValue: "id")) { arguments in
            try arguments.allowOnly(["id"])
            return try await player.deleteStation(id: try arguments.requiredString("id", "a station id is required"))
        }
    }
}

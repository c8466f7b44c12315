import Testing
@testable import NoiseClockCore

@Suite("Radio stations: the favourites' rules (SPEC §15)")
struct RadioStationTests {
    func arguments(_ values: [String: JSONValue]) -> CommandArguments { CommandArguments(values) }

    @Test("a station added by name gets an id made from it, and is found by id or by name in any case")
    func add() throws {
        var stations = RadioStations()
        let added = try stations.add(arguments(["name": "SomaFM Drone Zone", "url": "https://somafm.example/dronezone.pls"]))
        #expect(added.id == "somafm-drone-zone")
        #expect(stations.station(named: "somafm-drone-zone") == added)
        #expect(stations.station(named: "somafm drone ZONE") == added)
        #expect(stations.station(named: "nothing") == nil)
        #expect(added.json == ["id": "somafm-drone-zone", "name": "SomaFM Drone Zone", "url": "https://somafm.example/dronezone.pls", "fallback": .null])
    }

    @Test("bad input names its field and changes nothing", arguments: [
        (["url": "http://a.example/s"], "name"),
        (["name": "A"], "url"),
        (["name": "A", "url": "ftp://a.example/s"], "url"),
        (["name": "A", "url": "file:///etc/passwd"], "url"),
        (["name": "A", "url": "http://a.example/s s"], "url"),
        (["name": "A", "url": "http:///nohost"], "url"),
        (["name": "", "url": "http://a.example/s"], "name"),
        (["name": "A\u{7}", "url": "http://a.example/s"], "name"),
        (["name": .string(String(repeating: "x", count: 65)), "url": "http://a.example/s"], "name"),
        (["name": "A", "url": "http://a.example/s", "id": "../etc"], "id"),
        (["name": "A", "url": "http://a.example/s", "fallback": "nowhere"], "fallback"),
        (["name": "A", "url": .number(5)], "url"),
    ] as [([String: JSONValue], String)])
    func refused(values: [String: JSONValue], field: String) {
        var stations = RadioStations([RadioStation(id: "dlf", name: "Deutschlandfunk", url: "https://dlf.example/s.mp3")])
        let before = stations
        #expect(throws: CommandError.self) { try stations.add(arguments(values)) }
        do {
            _ = try stations.add(arguments(values))
        } catch {
            #expect(error.field == field, "\(error)")
        }
        #expect(stations == before)
    }

    @Test("ids and names are unique; at most 100 stations")
    func unique() throws {
        var stations = RadioStations([RadioStation(id: "dlf", name: "Deutschlandfunk", url: "https://dlf.example/s.mp3")])
        #expect(throws: CommandError(.conflict, "a station with the id dlf exists", field: "id")) {
            try stations.add(arguments(["id": "dlf", "name": "Other", "url": "http://o.example/"]))
        }
        #expect(throws: CommandError(.conflict, "a station named DEUTSCHLANDFUNK exists", field: "name")) {
            try stations.add(arguments(["name": "DEUTSCHLANDFUNK", "url": "http://o.example/"]))
        }
        for n in 1..<RadioStation.maximumCount { _ = try stations.add(arguments(["name": .string("Station \(n)"), "url": "http://s.example/"])) }
        #expect(stations.stations.count == 100)
        #expect(throws: CommandError(.conflict, "at most 100 stations")) {
            try stations.add(arguments(["name": "One more", "url": "http://s.example/"]))
        }
    }

    @Test("a fallback names another station, never itself; deleting a station removes it as a fallback")
    func fallbacks() throws {
        var stations = RadioStations()
        _ = try stations.add(arguments(["name": "Backup", "url": "http://b.example/"]))
        let main = try stations.add(arguments(["name": "Main", "url": "http://m.example/", "fallback": "backup"]))
        #expect(main.fallback == "backup")
        #expect(throws: CommandError.invalidField("fallback", "a station cannot fall back to itself")) {
            try stations.update(arguments(["id": "main", "fallback": "Main"]))
        }
        #expect(try stations.update(arguments(["id": "main", "fallback": .null])).fallback == nil)
        _ = try stations.update(arguments(["id": "main", "fallback": "backup"]))
        _ = try stations.delete(id: "backup")
        #expect(stations.station(named: "main")?.fallback == nil)
        #expect(throws: CommandError(.notFound, "no station backup", field: "id")) { try stations.delete(id: "backup") }
    }

    @Test("an alarm's chain follows the fallbacks, each station once, at most three")
    func chain() throws {
        let stations = RadioStations([
            RadioStation(id: "a", name: "A", url: "http://a.example/", fallback: "b"),
            RadioStation(id: "b", name: "B", url: "http://b.example/", fallback: "c"),
            RadioStation(id: "c", name: "C", url: "http://c.example/", fallback: "a"),
            RadioStation(id: "d", name: "D", url: "http://d.example/", fallback: "e"),
            RadioStation(id: "e", name: "E", url: "http://e.example/", fallback: "d"),
        ])
        #expect(stations.chain(from: "a").map(\.id) == ["a", "b", "c"])
        #expect(stations.chain(from: "d").map(\.id) == ["d", "e"])
        #expect(stations.chain(from: "x").isEmpty)
    }
}

@Suite("Radio configuration: radio.* and the file's stations (SPEC §15)")
struct RadioConfigurationTests {
    func resolve(_ file: [String: String]) throws(ConfigurationError) -> ResolvedConfiguration {
        try ConfigurationSchema.resolve(file: file, fileName: "test.yaml", environment: [:], hostname: "host")
    }

    @Test("stations come from the list, a fallback may name one further down, and the keys have their defaults")
    func stations() throws {
        let resolved = try resolve([
            "radio.stations[0].name": "Deutschlandfunk", "radio.stations[0].url": "https://dlf.example/stream.mp3",
            "radio.stations[0].fallback": "soma",
            "radio.stations[1].id": "soma", "radio.stations[1].name": "SomaFM", "radio.stations[1].url": "https://soma.example/drone.pls",
        ])
        let radio = resolved.configuration.radio
        #expect(radio.stations.map(\.id) == ["deutschlandfunk", "soma"])
        #expect(radio.stations.first?.fallback == "soma")
        #expect(radio.startTimeoutSeconds == 10)
        #expect(radio.bufferSeconds == 4)
        #expect(radio.directory == "")
        #expect(resolved.unknownKeys.isEmpty, "\(resolved.unknownKeys)")
    }

    @Test("a bad station is an error naming its item's key; an unknown field is an unknown key", arguments: [
        (["radio.stations[0].name": "A", "radio.stations[0].url": "ftp://a.example"], "radio.stations[0].url"),
        (["radio.stations[0].url": "http://a.example/s"], "radio.stations[0].name"),
        (["radio.stations[0].name": "A", "radio.stations[0].url": "http://a.example/s", "radio.stations[0].fallback": "b"], "radio.stations[0].fallback"),
        (["radio.stations[0].name": "A", "radio.stations[0].url": "http://a.example/s",
          "radio.stations[1].name": "a", "radio.stations[1].url": "http://b.example/s"], "radio.stations[1].name"),
        (["radio.stations[0]": "just a string"], "radio.stations[0]"),
        (["radio.start_timeout_s": "1"], "radio.start_timeout_s"),
        (["radio.directory": "not a url"], "radio.directory"),
    ])
    func errors(file: [String: String], key: String) {
        #expect(throws: ConfigurationError.self) { try resolve(file) }
        do { _ = try resolve(file) } catch { #expect(error.key == key, "\(error)") }
    }

    @Test("the file's stations come first and cannot be changed at run time; a stored one the file took is left out")
    func fixed() throws {
        let file = [RadioStation(id: "dlf", name: "Deutschlandfunk", url: "https://dlf.example/s.mp3")]
        let added = [
            RadioStation(id: "night", name: "Night FM", url: "http://n.example/s", fallback: "gone"),
            RadioStation(id: "dlf", name: "Other", url: "http://o.example/s"),
        ]
        var stations = RadioStations(file: file, added: added)
        #expect(stations.stations.map(\.id) == ["dlf", "night"])
        #expect(stations.stations.last?.fallback == nil, "a fallback that names no station is dropped")
        #expect(stations.added.map(\.id) == ["night"])
        #expect(throws: CommandError.self) { try stations.update(CommandArguments(["id": "dlf", "name": "X"])) }
        do { _ = try stations.delete(id: "dlf") } catch { #expect(error.code == .conflict && error.message.contains("radio.stations")) }
        #expect(stations.stations.count == 2, "nothing changed")
    }
}

import Testing
@testable import NoiseClockCore

@Suite("radio/search: the directory's query and its answer read defensively (SPEC §15)")
struct RadioDirectoryTests {
    @Test("the query is the radio-browser search: by name, percent-encoded, the country in upper case, working stations, most listened first")
    func query() throws {
        let search = try RadioSearch(query: "  Deutschlandfunk Kultur & mehr ", country: "de", limit: 5)
        #expect(search.query == "Deutschlandfunk Kultur & mehr")
        #expect(
            search.url(directory: "https://de1.api.radio-browser.info/")
                == "https://de1.api.radio-browser.info/json/stations/search?name=Deutschlandfunk%20Kultur%20%26%20mehr&countrycode=DE"
                + "&hidebroken=true&order=clickcount&reverse=true&limit=5")
        let plain = try RadioSearch(query: "Café", country: nil, limit: nil)
        #expect(plain.limit == RadioSearch.defaultLimit)
        #expect(plain.url(directory: "http://127.0.0.1:8080").hasPrefix("http://127.0.0.1:8080/json/stations/search?name=Caf%C3%A9&hidebroken"))
    }

    @Test("bad input names its field", arguments: [
        ("", nil as String?, nil as Int?, "query"),
        ("   ", nil, nil, "query"),
        (String(repeating: "x", count: 101), nil, nil, "query"),
        ("a\u{1}b", nil, nil, "query"),
        ("jazz", "DEU", nil, "country"),
        ("jazz", "1A", nil, "country"),
        ("jazz", nil, 0, "limit"),
        ("jazz", nil, 51, "limit"),
    ])
    func refused(query: String, country: String?, limit: Int?, field: String) {
        #expect(throws: CommandError.self) { try RadioSearch(query: query, country: country, limit: limit) }
        do {
            _ = try RadioSearch(query: query, country: country, limit: limit)
        } catch {
            #expect(error.field == field)
        }
    }

    @Test("an answer's stations: the resolved stream first, plain bounded text, only http(s), each address once, at most the limit")
    func answer() throws {
        let search = try RadioSearch(query: "jazz", country: nil, limit: 3)
        let body = """
            [
              {"name":" Jazz\\u0007 FM ","url":"http://jazz.example/jazz.pls","url_resolved":"http://jazz.example/live.mp3",
               "codec":"MP3","bitrate":128,"countrycode":"de","tags":"jazz,smooth"},
              {"name":"Evil","url":"javascript:alert(1)","url_resolved":"file:///etc/passwd"},
              {"name":"","url":"http://empty.example/s"},
              {"name":"Twice","url":"http://jazz.example/live.mp3"},
              {"name":"Only url","url":"https://only.example/a.aac","bitrate":-5,"countrycode":"Germany","codec":""},
              "not an object",
              {"name":"Third","url":"http://third.example/s","bitrate":64},
              {"name":"Fourth, past the limit","url":"http://fourth.example/s"}
            ]
            """
        let found = try search.stations(in: Array(body.utf8))
        #expect(found.map(\.name) == ["Jazz FM", "Only url", "Third"])
        #expect(found[0].url == "http://jazz.example/live.mp3")
        #expect(found[0].json == [
            "name": "Jazz FM", "url": "http://jazz.example/live.mp3", "codec": "mp3", "bitrate_kbps": 128, "country": "DE",
            "tags": "jazz,smooth",
        ])
        #expect(found[1].json == ["name": "Only url", "url": "https://only.example/a.aac", "codec": .null, "bitrate_kbps": .null, "country": .null, "tags": .null])
    }

    @Test("an answer that is not a list of stations is unavailable, with why", arguments: ["<html>busy</html>", "{\"error\":1}", ""])
    func notAList(body: String) throws {
        let search = try RadioSearch(query: "jazz", country: nil, limit: nil)
        do {
            _ = try search.stations(in: Array(body.utf8))
            Issue.record("\(body) was read as stations")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("not a list of stations"))
        }
    }

    @Test("settings.wake.sound: null, a tone or a station; anything else names wake.sound and changes nothing")
    func wakeSound() throws {
        let settings = WakeSettings()
        #expect(settings.json["sound"] == .null)
        let set = try settings.applying(["sound": "radio:dlf"])
        #expect(set.sound == "radio:dlf")
        #expect(set.json["sound"] == "radio:dlf")
        #expect(try set.applying(["sound": .null]).sound == nil)
        for bad: JSONValue in [5, "", .string(String(repeating: "x", count: 129)), ["radio:dlf"]] {
            do {
                _ = try set.applying(["sound": bad])
                Issue.record("\(bad.serialized) was taken")
            } catch {
                #expect(error.field == "wake.sound")
            }
        }
        let stations = RadioStations(file: [RadioStation(id: "dlf", name: "Deutschlandfunk", url: "https://dlf.example/s.mp3")], added: [])
        let catalog = SoundCatalog(sounds: [])
        #expect(try WakeSettings.resolvingSound(["sound": "radio:Deutschlandfunk"], in: catalog, stations: stations)["sound"] == "radio:dlf")
        do {
            _ = try WakeSettings.resolvingSound(["sound": "radio:nowhere"], in: catalog, stations: stations)
            Issue.record("an unknown station was taken")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.field == "wake.sound")
        }
        do {
            _ = try WakeSettings.resolvingSound(["sound": "no-such-tone"], in: catalog, stations: stations)
            Issue.record("an unknown tone was taken")
        } catch {
            #expect(error.field == "wake.sound")
        }
    }
}

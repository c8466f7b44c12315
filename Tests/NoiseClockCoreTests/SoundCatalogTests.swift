import Foundation
import NoiseClockCore
import Testing

@Suite("Sound catalog")
struct SoundCatalogTests {
    private func parse(_ text: String, kind: Sound.Kind = .noise) throws(SoundCatalog.LoadError) -> [Sound] {
        try SoundCatalog.entries(json: Array(text.utf8), kind: kind, catalog: "sounds.json")
    }

    /// The LoadError `text` is rejected with; nil when it is accepted.
    private func rejection(_ text: String) -> SoundCatalog.LoadError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    private let catalog = SoundCatalog(sounds: [
        Sound(id: "rain", name: "Heavy rain", file: "rain.mp3", category: "rain", kind: .noise),
        Sound(id: "white", name: "White noise", file: "white.mp3", category: "noise", isDefault: true, kind: .noise),
        Sound(id: "beep", name: "Beeps", file: "beep.mp3", category: "alarm", kind: .alarm),
        Sound(id: "bell", name: "Classic bell", file: "bell.mp3", category: "alarm", isDefault: true, kind: .alarm),
        Sound(id: "chime", name: "Timer chime", file: "chime.mp3", category: "timer", kind: .gong),
        Sound(id: "bowl", name: "Singing bowl", file: "bowl.mp3", category: "gong", isDefault: true, kind: .gong),
    ])

    // MARK: entries(json:)

    @Test("a valid catalog parses every field, with category defaulting to the kind and default to false")
    func validCatalog() throws {
        let sounds = try parse(
            #"""
            [
              {"id": "rain", "name": "Heavy rain", "file": "rain.mp3", "category": "rain", "description": "A downpour.", "default": true},
              {"id": "white", "name": "White noise", "file": "white.mp3"}
            ]
            """#)

        #expect(sounds.count == 2)
        let rain = try #require(sounds.first)
        #expect(rain.id == "rain")
        #expect(rain.name == "Heavy rain")
        #expect(rain.file == "rain.mp3")
        #expect(rain.category == "rain")
        #expect(rain.description == "A downpour.")
        #expect(rain.isDefault)
        #expect(rain.kind == .noise)

        let white = try #require(sounds.last)
        #expect(white.id == "white")
        #expect(white.category == "noise")
        #expect(white.description == "")
        #expect(!white.isDefault)
    }

    @Test("entries take the kind they are parsed as")
    func kindOfEntries() throws {
        let sounds = try parse(#"[{"id": "beep", "name": "Beeps", "file": "beep.mp3"}]"#, kind: .alarm)
        #expect(sounds.map(\.kind) == [.alarm])
        #expect(sounds.first?.category == "alarm")
    }

    @Test("a gong catalog parses as kind gong, keeping each entry's category (gong or timer); category defaults to gong")
    func gongCatalog() throws {
        let sounds = try parse(
            #"""
            [
              {"id": "singing-bowl", "name": "Singing bowl", "file": "singing-bowl.mp3", "category": "gong", "default": true},
              {"id": "timer-chime", "name": "Timer chime", "file": "timer-chime.mp3", "category": "timer"},
              {"id": "plain", "name": "Plain", "file": "plain.mp3"}
            ]
            """#, kind: .gong)
        #expect(sounds.map(\.kind) == [.gong, .gong, .gong])
        #expect(sounds.map(\.category) == ["gong", "timer", "gong"])
        #expect(sounds.map(\.isDefault) == [true, false, false])
        #expect(sounds.first?.json.objectValue?["kind"] == .string("gong"))
        #expect(Sound.Kind(rawValue: "gong") == .gong)
    }

    @Test("an empty array is an empty catalog")
    func emptyArray() throws {
        #expect(try parse("[]").isEmpty)
    }

    @Test(
        "JSON that is not an array is rejected",
        arguments: [#"{"id": "rain", "name": "Rain", "file": "rain.mp3"}"#, #""rain""#, "42", "null", "not json", ""])
    func notAnArray(text: String) {
        let error = rejection(text)
        #expect(error != nil)
        #expect(error?.catalog == "sounds.json")
    }

    @Test(
        "an entry without a string id, name or file is rejected",
        arguments: [
            #"[{"name": "Rain", "file": "rain.mp3"}]"#,
            #"[{"id": "rain", "file": "rain.mp3"}]"#,
            #"[{"id": "rain", "name": "Rain"}]"#,
            #"[{"id": 7, "name": "Rain", "file": "rain.mp3"}]"#,
            #"[{"id": "rain", "name": null, "file": "rain.mp3"}]"#,
            #"["rain"]"#,
        ])
    func missingField(text: String) {
        #expect(rejection(text) != nil)
    }

    @Test("a duplicate id is rejected, naming it")
    func duplicateIDs() {
        let error = rejection(
            #"""
            [
              {"id": "rain", "name": "Rain", "file": "rain.mp3"},
              {"id": "rain", "name": "More rain", "file": "rain2.mp3"}
            ]
            """#)
        #expect(error != nil)
        #expect(error?.reason.contains("rain") == true)
    }

    @Test("a file that is not a plain name is rejected", arguments: ["../../etc/passwd", "/etc/passwd", ".hidden", "a/b", #"a\\b"#, "..", ""])
    func fileNotPlain(file: String) {
        #expect(rejection(#"[{"id": "rain", "name": "Rain", "file": "\#(file)"}]"#) != nil)
    }

    @Test("an id that is not a plain name is rejected", arguments: ["../../etc/passwd", "/etc/passwd", ".hidden", "a/b", #"a\\b"#, "..", ""])
    func idNotPlain(id: String) {
        #expect(rejection(#"[{"id": "\#(id)", "name": "Rain", "file": "rain.mp3"}]"#) != nil)
    }

    @Test("plain names stay in their folder", arguments: [
        ("rain.mp3", true), ("heavy-rain-white-noise", true), ("a b.mp3", true), ("x..y.mp3", true),
        ("../../etc/passwd", false), ("/etc/passwd", false), (".hidden", false), ("a/b", false), ("a\\b", false),
        (".", false), ("..", false), ("", false), ("a\0b", false),
    ])
    func plainNames(name: String, plain: Bool) {
        #expect(SoundCatalog.isPlainName(name) == plain)
    }

    // MARK: Look-ups

    @Test("sound(named:) finds a sound by its id")
    func byID() {
        #expect(catalog.sound(named: "rain")?.name == "Heavy rain")
        #expect(catalog.sound(named: "beep")?.kind == .alarm)
    }

    @Test("sound(named:) finds a sound by its name in any case", arguments: ["Heavy rain", "heavy rain", "HEAVY RAIN", "hEaVy RaIn"])
    func byName(name: String) {
        #expect(catalog.sound(named: name)?.id == "rain")
    }

    @Test("sound(named:) is nil for an unknown reference, a part of a name, or a file name", arguments: ["snow", "Heavy", "rain.mp3", ""])
    func unknown(reference: String) {
        #expect(catalog.sound(named: reference) == nil)
    }

    @Test("defaultSound(of:) is the entry marked default of that kind")
    func defaults() {
        #expect(catalog.defaultSound(of: .noise)?.id == "white")
        #expect(catalog.defaultSound(of: .alarm)?.id == "bell")
        #expect(catalog.defaultSound(of: .gong)?.id == "bowl")
    }

    @Test("defaultSound(of:) falls back to the first sound of the kind, and is nil when there is none")
    func defaultFallback() {
        let noDefaults = SoundCatalog(sounds: [
            Sound(id: "beep", name: "Beeps", file: "beep.mp3", category: "alarm", kind: .alarm),
            Sound(id: "rain", name: "Rain", file: "rain.mp3", category: "rain", kind: .noise),
            Sound(id: "fan", name: "Fan", file: "fan.mp3", category: "fan", kind: .noise),
        ])
        #expect(noDefaults.defaultSound(of: .noise)?.id == "rain")
        #expect(noDefaults.defaultSound(of: .alarm)?.id == "beep")
        #expect(SoundCatalog(sounds: []).defaultSound(of: .noise) == nil)
        #expect(SoundCatalog(sounds: noDefaults.sounds(of: .noise)).defaultSound(of: .alarm) == nil)
    }

    @Test("sounds(of:) keeps the catalog order of one kind")
    func soundsOfKind() {
        #expect(catalog.sounds(of: .noise).map(\.id) == ["rain", "white"])
        #expect(catalog.sounds(of: .alarm).map(\.id) == ["beep", "bell"])
        #expect(catalog.sounds(of: .gong).map(\.id) == ["chime", "bowl"])
    }

    // MARK: NoiseMix

    @Test("B/noise has exactly playing, sounds as [{id, volume}], volume and sleep_timer_ends_at")
    func mixJSON() throws {
        let mix = NoiseMix(
            playing: true, layers: [.init(id: "rain", volume: 60), .init(id: "fan", volume: 100)], volume: 50,
            sleepTimerEndsAt: 1_800_000_000)
        let json = mix.json { "t\(Int($0))" }
        let members = try #require(json.objectValue)

        #expect(Set(members.keys) == ["playing", "sounds", "volume", "sleep_timer_ends_at"])
        #expect(members["playing"] == true)
        #expect(members["volume"] == 50)
        #expect(members["sleep_timer_ends_at"] == "t1800000000")
        #expect(members["sounds"] == [["id": "rain", "volume": 60], ["id": "fan", "volume": 100]])
    }

    @Test("B/noise of a stopped mix without a timer has an empty sounds list and a null sleep_timer_ends_at")
    func stoppedMixJSON() {
        let json = NoiseMix().json { _ in Issue.record("no time to format"); return "" }
        #expect(json == ["playing": false, "sounds": [], "volume": 50, "sleep_timer_ends_at": nil])
    }

    @Test("B/noise formats the timer's end with the given function, from seconds since 1970")
    func mixJSONTime() {
        let json = NoiseMix(playing: true, layers: [.init(id: "rain", volume: 100)], sleepTimerEndsAt: 0)
            .json { ISOTime.string(Date(timeIntervalSince1970: $0), in: .utc) }
        #expect(json[member: "sleep_timer_ends_at"] == "1970-01-01T00:00:00+00:00")
    }

    @Test(
        "the stored mix reads back equal",
        arguments: [
            NoiseMix(),
            NoiseMix(playing: true, layers: [.init(id: "rain", volume: 60)], volume: 35),
            NoiseMix(
                playing: true, layers: [.init(id: "rain", volume: 0), .init(id: "brown", volume: 100)], volume: 100,
                sleepTimerEndsAt: 1_773_126_240.5),
            NoiseMix(playing: false, layers: [.init(id: "pink", volume: 10)], volume: 0),
        ])
    func storedRoundTrip(mix: NoiseMix) {
        #expect(NoiseMix(stored: mix.stored) == mix)
    }

    @Test("the stored mix survives serialization to text and back")
    func storedThroughText() throws {
        let mix = NoiseMix(playing: true, layers: [.init(id: "rain", volume: 60)], volume: 35, sleepTimerEndsAt: 1_773_126_240)
        let text = mix.stored.serializedBytes
        #expect(NoiseMix(stored: try JSONValue.parse(text)) == mix)
    }

    @Test(
        "a garbage stored value reads as nil",
        arguments: [
            JSONValue.null, "noise", 42, [], [:],
            ["playing": true, "volume": 50],
            ["playing": true, "sounds": []],
            ["volume": 50, "sounds": []],
            ["playing": "yes", "volume": 50, "sounds": []],
            ["playing": true, "volume": 150, "sounds": []],
            ["playing": true, "volume": -1, "sounds": []],
            ["playing": true, "volume": 50.5, "sounds": []],
            ["playing": true, "volume": "50", "sounds": []],
            ["playing": true, "volume": 50, "sounds": "rain"],
            ["playing": true, "volume": 50, "sounds": ["rain"]],
            ["playing": true, "volume": 50, "sounds": [["id": "rain"]]],
            ["playing": true, "volume": 50, "sounds": [["volume": 60]]],
            ["playing": true, "volume": 50, "sounds": [["id": "rain", "volume": 101]]],
            ["playing": true, "volume": 50, "sounds": [["id": 3, "volume": 60]]],
        ] as [JSONValue])
    func garbageStored(value: JSONValue) {
        #expect(NoiseMix(stored: value) == nil)
    }
}

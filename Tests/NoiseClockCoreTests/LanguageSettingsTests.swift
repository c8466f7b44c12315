import Foundation
import NoiseClockCore
import Testing

/// `node.language`, the settings' `language`, and the sound catalogs' names per language (SPEC §11).
@Suite("The language as configured, as a setting, and in the sound catalogs")
struct LanguageSettingsTests {
    private func resolve(_ file: [String: String], environment: [String: String] = [:]) throws(ConfigurationError) -> ResolvedConfiguration {
        try ConfigurationSchema.resolve(file: file, fileName: "noiseclock.yaml", environment: environment, hostname: "host")
    }

    @Test("node.language defaults to clock.locale's language, shown as derived by check-config", arguments: [
        ("de_DE", Language.de), ("de-AT", .de), ("en_GB", .en), ("fr_FR", .en),
    ])
    func derivedFromLocale(locale: String, expected: Language) throws {
        let resolved = try resolve(["clock.locale": locale])
        #expect(resolved.configuration.clock.language == expected)
        let value = try #require(resolved.values.first { $0.key.path == "node.language" })
        #expect(value.value == expected.rawValue)
        #expect(value.source == "default")
    }

    @Test("node.language set in the file or the environment wins over the locale")
    func explicit() throws {
        #expect(try resolve(["clock.locale": "de_DE", "node.language": "en"]).configuration.clock.language == .en)
        #expect(try resolve(["clock.locale": "en_US"], environment: ["NOISECLOCK_NODE_LANGUAGE": "de"]).configuration.clock.language == .de)
        #expect(try resolve([:]).configuration.clock.language == .en)
    }

    @Test("an unknown node.language is an error naming the key", arguments: ["fr", "DE", "german", ""])
    func unknown(value: String) throws {
        let error = try #require(throws: ConfigurationError.self) { try resolve(["node.language": value]) }
        #expect(error.key == "node.language")
        #expect(error.reason.contains("en") && error.reason.contains("de"))
    }

    @Test("the settings verb takes language en or de, and stores it in its patch")
    func settingsPatch() throws {
        let patch = try SettingsPatch(CommandArguments(["language": "de"]))
        #expect(patch.language == .de)
        #expect(patch.json == ["language": "de"])
        #expect(ClockSettings().applying(patch).language == .de)
        #expect(ClockSettings(language: .de).applying(SettingsPatch(showSeconds: true)).language == .de)
        #expect(SettingsPatch(language: .de).merging(SettingsPatch(language: .en)).language == .en)
        #expect(SettingsPatch(language: .de).merging(SettingsPatch(showSeconds: true)).language == .de)
    }

    @Test("a language the node does not speak is refused naming the field", arguments: [
        JSONValue.string("fr"), .string("Deutsch"), .number(1), .null,
    ])
    func settingsRefused(value: JSONValue) throws {
        let error = try #require(throws: CommandError.self) { try SettingsPatch(CommandArguments(["language": value])) }
        #expect(error.field == "language")
    }

    @Test("a sound's name and description may be given per language; English is required, others fall back to it")
    func soundNames() throws {
        let text = #"""
            [{"id": "rain", "name": {"en": "Heavy rain", "de": "Starker Regen"}, "file": "rain.mp3",
              "description": {"en": "A downpour.", "de": "Ein Wolkenbruch."}},
             {"id": "white", "name": "White noise", "file": "white.mp3"}]
            """#
        let sounds = try SoundCatalog.entries(json: Array(text.utf8), kind: .noise, catalog: "sounds.json")
        #expect(sounds[0].name == "Heavy rain" && sounds[0].name(in: .de) == "Starker Regen" && sounds[0].name(in: .en) == "Heavy rain")
        #expect(sounds[0].description(in: .de) == "Ein Wolkenbruch." && sounds[0].description == "A downpour.")
        #expect(sounds[1].name(in: .de) == "White noise")
        let catalog = SoundCatalog(sounds: sounds)
        #expect(catalog.sound(named: "starker regen")?.id == "rain")
        #expect(catalog.sound(named: "Heavy rain")?.id == "rain")
    }

    @Test("a name per language without English, or with a language the node does not know, is refused", arguments: [
        #"[{"id": "a", "name": {"de": "Regen"}, "file": "a.mp3"}]"#,
        #"[{"id": "a", "name": {"en": "Rain", "xx": "?"}, "file": "a.mp3"}]"#,
        #"[{"id": "a", "name": {"en": "Rain", "de": 3}, "file": "a.mp3"}]"#,
        #"[{"id": "a", "name": "Rain", "file": "a.mp3", "description": {"de": "Regen"}}]"#,
    ])
    func soundNamesRefused(text: String) throws {
        let error = try #require(throws: SoundCatalog.LoadError.self) {
            try SoundCatalog.entries(json: Array(text.utf8), kind: .noise, catalog: "sounds.json")
        }
        #expect(error.reason.contains("entry 0"))
    }

    @Test("every shipped sound, alarm tone, gong and timer tone has a German name and description of its own")
    func shippedSounds() throws {
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources").path
        for (file, kind) in [("sounds.json", Sound.Kind.noise), ("alarm-sounds.json", .alarm), ("gong-sounds.json", .gong)] {
            let data = try #require(FileManager.default.contents(atPath: "\(resources)/\(file)"))
            for sound in try SoundCatalog.entries(json: Array(data), kind: kind, catalog: file) {
                let german = try #require(sound.names[.de], "\(file): \(sound.id) has no German name")
                #expect(german != sound.name, "\(file): \(sound.id)")
                #expect(sound.descriptions[.de].map { $0 != sound.description && !$0.isEmpty } == true, "\(file): \(sound.id)")
            }
        }
    }
}

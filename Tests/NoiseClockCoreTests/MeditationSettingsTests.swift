import Foundation
import NoiseClockCore
import Testing

@Suite("settings.meditation and meditation/start's members")
struct MeditationSettingsTests {
    static let catalog = SoundCatalog(sounds: [
        Sound(id: "brown-noise", name: "Brown noise", file: "b.mp3", category: "noise", kind: .noise),
        Sound(id: "digital-alarm", name: "Digital alarm", file: "d.mp3", category: "alarm", kind: .alarm),
        Sound(id: "singing-bowl", name: "Singing bowl", file: "s.mp3", category: "gong", isDefault: true, kind: .gong),
        Sound(id: "soft-bell", name: "Soft bell", file: "b.mp3", category: "gong", kind: .gong),
    ])

    static func patch(_ members: [String: JSONValue]) throws(CommandError) -> SettingsPatch {
        try SettingsPatch(CommandArguments(["meditation": .object(members)]))
    }

    @Test("the defaults are SPEC §10's, and B/settings carries them under meditation")
    func defaults() {
        let json = ClockSettings().json
        #expect(json[member: "meditation"] == [
            "minutes": 10, "preparation_s": 15, "interval_min": 0, "background": "silent", "background_volume": 15,
            "gong": "singing-bowl", "volume": 70,
        ])
    }

    @Test("a partial object changes only its members, and two patches merge member by member")
    func partial() throws {
        let first = try Self.patch(["minutes": 20, "interval_min": 5])
        let second = try Self.patch(["interval_min": 10, "volume": 40])
        let merged = first.merging(second)
        #expect(merged.meditation == ["minutes": 20, "interval_min": 10, "volume": 40])
        let settings = ClockSettings().applying(merged)
        #expect(settings.meditation.minutes == 20 && settings.meditation.intervalMinutes == 10 && settings.meditation.volume == 40)
        #expect(settings.meditation.preparationSeconds == 15 && settings.meditation.gong == "singing-bowl")
        // What is stored reads back as the same patch.
        #expect(try SettingsPatch(CommandArguments(merged.json.objectValue ?? [:])) == merged)
    }

    @Test(
        "every bad member is refused naming it by its path",
        arguments: [
            (["minutes": 0], "meditation.minutes"), (["minutes": 181], "meditation.minutes"), (["minutes": "ten"], "meditation.minutes"),
            (["preparation_s": -1], "meditation.preparation_s"), (["preparation_s": 301], "meditation.preparation_s"),
            (["interval_min": 4], "meditation.interval_min"), (["interval_min": 15], "meditation.interval_min"),
            (["background": "../etc"], "meditation.background"), (["background": ""], "meditation.background"),
            (["background_volume": 101], "meditation.background_volume"), (["gong": 3], "meditation.gong"),
            (["volume": -5], "meditation.volume"), (["colour": "red"], "meditation.colour"),
        ] as [([String: JSONValue], String)])
    func refused(members: [String: JSONValue], field: String) {
        #expect(throws: CommandError.self) { try Self.patch(members) }
        do {
            _ = try Self.patch(members)
        } catch {
            #expect(error.field == field && error.code == .invalidField)
        }
    }

    @Test("meditation must be an object")
    func notAnObject() {
        #expect(throws: CommandError.invalidField("meditation", "must be a JSON object")) {
            try SettingsPatch(CommandArguments(["meditation": 5]))
        }
    }

    @Test("sounds resolve to catalog ids by id or name; silent stays; another kind or an unknown sound is not_found")
    func sounds() throws {
        let resolved = try MeditationSettings.resolvingSounds(["background": "BROWN NOISE", "gong": "Soft bell", "minutes": 5], in: Self.catalog)
        #expect(resolved == ["background": "brown-noise", "gong": "soft-bell", "minutes": 5])
        #expect(try MeditationSettings.resolvingSounds(["background": "Silent"], in: Self.catalog) == ["background": "silent"])
        for (members, field) in [
            (["background": "digital-alarm"], "meditation.background"), (["background": "rain"], "meditation.background"),
            (["gong": "brown-noise"], "meditation.gong"), (["gong": "gong"], "meditation.gong"),
        ] as [([String: JSONValue], String)] {
            do {
                _ = try MeditationSettings.resolvingSounds(members, in: Self.catalog)
                Issue.record("\(members) was accepted")
            } catch {
                #expect(error.code == .notFound && error.field == field)
            }
        }
    }

    @Test("meditation/start's members name fields as sent, and lay over the defaults")
    func draft() throws {
        let draft = try MeditationDraft(CommandArguments(["minutes": "25", "gong": "soft-bell"]))
        var defaults = MeditationSettings()
        defaults.intervalMinutes = 5
        let session = try draft.session(over: defaults, catalog: Self.catalog)
        #expect(session.minutes == 25 && session.gong == "soft-bell" && session.intervalMinutes == 5 && session.volume == 70)
        #expect(try MeditationDraft(CommandArguments()).session(over: defaults, catalog: Self.catalog) == defaults)
        #expect(throws: CommandError.invalidField("interval_min", "must be 0 (no interval gongs), 3, 5 or 10, not 7")) {
            try MeditationDraft(CommandArguments(["interval_min": 7]))
        }
        do {
            _ = try MeditationDraft(CommandArguments(["background": "rain"])).session(over: defaults, catalog: Self.catalog)
            Issue.record("an unknown background was accepted")
        } catch {
            #expect(error.code == .notFound && error.field == "background")
        }
    }
}

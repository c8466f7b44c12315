import Foundation
import NoiseClockCore
import Testing

@testable import NoiseClockNode

/// The language in force at the node (SPEC §11): default labels, the sounds verb, the setting.
@Suite("The node's language: labels, sound names and the language setting")
struct LanguageCommandTests {
    private static let sounds = SoundLibrary(
        catalog: SoundCatalog(sounds: [
            Sound(
                id: "rain", name: "Heavy rain", names: [.de: "Starker Regen"], file: "rain.mp3", category: "rain",
                description: "A downpour.", descriptions: [.de: "Ein Wolkenbruch."], isDefault: true, kind: .noise),
            Sound(id: "bell", name: "Classic bell", names: [.de: "Klassische Glocke"], file: "bell.mp3", category: "alarm", kind: .alarm),
        ]),
        folders: [:])

    @Test("an alarm added without a label is called Alarm in English and Wecker in German; a given label is kept")
    func alarmLabels() async throws {
        let english = try NodeFixture()
        #expect(await english.respond("alarm/add", "06:45").data?["label"] == "Alarm")
        let german = try NodeFixture(configuration: ["clock.locale": "de_DE"])
        #expect(german.settings.language == .de)
        #expect(await german.respond("alarm/add", "06:45").data?["label"] == "Wecker")
        #expect(await german.respond("alarm/add", #"{"time":"07:00","label":"Arbeit"}"#).data?["label"] == "Arbeit")
    }

    @Test("changing the language at run time names the next alarm in it, leaves the existing ones, and publishes B/settings")
    func switchLanguage() async throws {
        let f = try NodeFixture()
        let first = await f.respond("alarm/add", "06:45").data
        #expect(await f.respond("settings", #"{"language":"de"}"#).data?["language"] == "de")
        #expect(f.transport.published(on: f.topics.state("settings")).last?.json?["language"] == "de")
        #expect(f.store.document(SettingsModel.documentName)?["language"] == "de")
        #expect(await f.respond("alarm/add", "07:45").data?["label"] == "Wecker")
        let alarms = f.transport.published(on: f.topics.state("alarms")).last?.json
        #expect(alarms?.items.count == 2)
        #expect(alarms?.items.first { $0["id"] == first?["id"] }?["label"] == "Alarm")
    }

    @Test("a timer started without a label gets the catalog's label; one with a label keeps it")
    func timerLabels() async throws {
        let german = try NodeFixture(configuration: ["node.language": "de"])
        #expect(await german.respond("timer/start", "5").data?["label"] == "Timer")
        #expect(await german.respond("timer/start", #"{"minutes":3,"label":"Tee"}"#).data?["label"] == "Tee")
    }

    @Test("the sounds verb names sounds in the language in force, or in the one asked for")
    func soundNames() async throws {
        let f = try NodeFixture(configuration: ["node.language": "de"], sounds: Self.sounds)
        let german = await f.respond("sounds").data
        #expect(german?["noise"]?.items.first?["name"] == "Starker Regen")
        #expect(german?["noise"]?.items.first?["description"] == "Ein Wolkenbruch.")
        #expect(german?["alarm"]?.items.first?["name"] == "Klassische Glocke")
        let english = await f.respond("sounds", #"{"language":"en"}"#).data
        #expect(english?["noise"]?.items.first?["name"] == "Heavy rain")
        #expect(await f.respond("sounds", "fr").error?.field == "language")
    }

    @Test("an unknown language changes nothing and names the field")
    func refused() async throws {
        let f = try NodeFixture()
        let response = await f.respond("settings", #"{"language":"fr","show_seconds":true}"#)
        #expect(response.error?.code == .invalidField && response.error?.field == "language")
        #expect(f.settings.language == .en && f.settings.showSeconds == false)
    }
}

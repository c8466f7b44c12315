import Foundation
import NoiseClockCore
import Testing

private let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Resources").path

/// The shipped catalog of `language`, read from the checkout's `Resources/i18n`.
private func shipped(_ language: Language) throws -> Catalog {
    let data = try #require(FileManager.default.contents(atPath: "\(resources)/i18n/\(language.rawValue).json"))
    return try Catalog(language: language, json: Array(data))
}

@Suite("Languages and message catalogs (SPEC §11)")
struct LanguageTests {
    private func parse(_ text: String, _ language: Language = .de) throws(Catalog.LoadError) -> Catalog {
        try Catalog(language: language, json: Array(text.utf8))
    }

    @Test("a locale's language is spoken when the node speaks it, else English", arguments: [
        ("de_DE", Language.de), ("de-AT", .de), ("de_CH.UTF-8", .de), ("de", .de), ("DE_de", .de),
        ("en_US", .en), ("en_GB", .en), ("fr_FR", .en), ("", .en), ("_DE", .en),
    ])
    func fromLocale(locale: String, expected: Language) {
        #expect(Language(locale: locale) == expected)
    }

    @Test("texts fill their placeholders; an unknown placeholder stays visible; a missing key answers itself")
    func placeholders() throws {
        let catalog = try parse(#"{"next": "Nächster Wecker {label} um {time}", "odd": "{a}{b} {", "plain": "Akku voll"}"#)
        #expect(catalog.text("next", ["label": "Wecker", "time": "06:45"]) == "Nächster Wecker Wecker um 06:45")
        #expect(catalog.text("next", ["label": "{time}", "time": "06:45"]) == "Nächster Wecker {time} um 06:45")
        #expect(catalog.text("next", ["label": "Arbeit"]) == "Nächster Wecker Arbeit um {time}")
        #expect(catalog.text("odd", ["a": "1", "b": "2"]) == "12 {")
        #expect(catalog.text("plain") == "Akku voll")
        #expect(catalog.text("missing.key", ["x": "y"]) == "missing.key")
    }

    @Test("a plural takes its one form for exactly 1 and its other form otherwise", arguments: [
        (0, "in 0 Stunden"), (1, "in 1 Stunde"), (2, "in 2 Stunden"), (21, "in 21 Stunden"),
    ])
    func plurals(count: Int, expected: String) throws {
        let catalog = try parse(#"{"rel.h": {"one": "in {count} Stunde", "other": "in {count} Stunden"}}"#)
        #expect(catalog.text("rel.h", count: count) == expected)
    }

    @Test("a catalog value that is neither a text nor {one, other} is refused, naming its key", arguments: [
        #"{"a": 1}"#, #"{"a": {"one": "x"}}"#, #"{"a": {"one": "x", "other": "y", "few": "z"}}"#, #"{"a": ["x"]}"#,
        #"{"a": {"one": 1, "other": "y"}}"#,
    ])
    func badValues(text: String) throws {
        let error = try #require(throws: Catalog.LoadError.self) { try parse(text) }
        #expect(error.description.contains("\"a\""))
        #expect(error.description.contains("de.json"))
    }

    @Test("a catalog that is not a JSON object is refused", arguments: ["[]", "\"x\"", "{", ""])
    func notAnObject(text: String) throws {
        let error = try #require(throws: Catalog.LoadError.self) { try parse(text, .en) }
        #expect(error.description.hasPrefix("en.json"))
    }

    @Test("placeholders are the {names} of a text")
    func placeholderNames() {
        #expect(Catalog.placeholders(in: "in {d} Tagen {h} Std.") == ["d", "h"])
        #expect(Catalog.placeholders(in: "{ no } {} {a-b} {ok_1}") == ["ok_1"])
        #expect(Catalog.placeholders(in: "none") == [])
    }

    @Test("the face is sent every message but Home Assistant's, with plurals as {one, other}")
    func faceJSON() throws {
        let catalog = try parse(#"{"ha.battery": "Akku", "battery.full": "Akku voll", "rel.h": {"one": "1", "other": "n"}}"#)
        #expect(catalog.json(excluding: ["ha."]) == ["battery.full": "Akku voll", "rel.h": ["one": "1", "other": "n"]])
    }

    @Test("Catalogs falls back to English for a language it lacks, and to keys with none at all")
    func fallback() throws {
        let english = try parse(#"{"k": "English"}"#, .en)
        #expect(Catalogs([english])[.de].text("k") == "English")
        #expect(Catalogs.empty[.de].text("k") == "k")
    }

    // MARK: The shipped catalogs

    @Test("both shipped catalogs have exactly the same keys")
    func sameKeys() throws {
        let english = try shipped(.en), german = try shipped(.de)
        let missingInGerman = Set(english.messages.keys).subtracting(german.messages.keys).sorted()
        let extraInGerman = Set(german.messages.keys).subtracting(english.messages.keys).sorted()
        #expect(missingInGerman.isEmpty, "de.json lacks \(missingInGerman)")
        #expect(extraInGerman.isEmpty, "de.json has keys en.json lacks: \(extraInGerman)")
        #expect(english.messages.count > 250)
    }

    @Test("every message has the same placeholders and the same shape (text or plural) in both languages")
    func samePlaceholders() throws {
        let english = try shipped(.en), german = try shipped(.de)
        for (key, message) in english.messages.sorted(by: { $0.key < $1.key }) {
            let other = try #require(german.messages[key], "de.json lacks \(key)")
            switch (message, other) {
            case (.text, .text), (.plural, .plural): break
            default: Issue.record("\(key) is a text in one language and a plural in the other")
            }
            let englishNames = message.forms.map(Catalog.placeholders(in:)).reduce(into: Set<String>()) { $0.formUnion($1) }
            let germanNames = other.forms.map(Catalog.placeholders(in:)).reduce(into: Set<String>()) { $0.formUnion($1) }
            #expect(englishNames == germanNames, "\(key): en has \(englishNames.sorted()), de has \(germanNames.sorted())")
        }
    }

    @Test("no shipped message is empty, and German differs from English except where the word is the same")
    func translated() throws {
        let english = try shipped(.en), german = try shipped(.de)
        for (key, message) in german.messages {
            #expect(message.forms.allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty } || key == "repeat.sep", "\(key) is empty")
        }
        // Words that are the same in both ("Meditation", "Timer", "{percent} %", "AM") are few.
        let same = english.messages.filter { german.messages[$0.key] == $0.value }.map(\.key).sorted()
        #expect(same.count < english.messages.count / 8, "the same in both: \(same)")
    }

    @Test("the default labels are Alarm and Timer in English, Wecker and Timer in German")
    func defaultLabels() throws {
        #expect(try shipped(.en).text("label.alarm") == "Alarm")
        #expect(try shipped(.de).text("label.alarm") == "Wecker")
        #expect(try shipped(.de).text("label.timer") == "Timer")
    }

    @Test("German counts in its own forms: in 1 Stunde, in 2 Stunden, in 1 Tag, in 3 Tagen")
    func germanPlurals() throws {
        let german = try shipped(.de)
        #expect(german.text("rel.h", count: 1, ["h": "1"]) == "in 1 Stunde")
        #expect(german.text("rel.h", count: 2, ["h": "2"]) == "in 2 Stunden")
        #expect(german.text("rel.d_h", count: 1, ["d": "1", "h": "4"]) == "in 1 Tag 4 Std.")
        #expect(german.text("rel.d_h", count: 3, ["d": "3", "h": "0"]) == "in 3 Tagen 0 Std.")
        #expect(german.text("rel.h_min", ["h": "7", "m": "12"]) == "in 7 Std. 12 Min.")
    }
}

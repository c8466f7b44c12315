import Foundation
import NoiseClockCore
import Testing

/// The discovery in each language (SPEC §6, §11): names and select options from the shipped
/// catalogs, unique ids and entity ids the same in every language, enum states as codes, and each
/// select's templates evaluated against the node's own settings parser, so an option that sent
/// something the node refuses, or a state that showed no option, fails here.
@Suite("Home Assistant discovery in English and German (SPEC §11)")
struct HomeAssistantLanguageTests {
    static let topics = Topics(base: "noiseclock", nodeID: "bedroom")
    static let alarm = HomeAssistantDiscovery.AlarmEntry(id: "a1b2c3d4", label: "Work")

    static func discovery(_ language: Language, deviceName: String = "Bedroom clock") -> HomeAssistantDiscovery {
        HomeAssistantDiscovery(
            topics: topics, prefix: "homeassistant", deviceName: deviceName, version: "9.9.9", noiseSounds: Shipped.noiseSounds,
            screen: true, catalogs: Shipped.catalogs, language: language)
    }

    static func components(_ language: Language) -> [String: JSONValue] {
        discovery(language).payload(alarms: [alarm])[member: "cmps"]?.objectValue ?? [:]
    }

    /// Entity names German shares with English.
    static let sameInGerman: Set<String> = ["meditation", "radio"]

    @Test("in German every entity has a German name: not its catalog key, not the English name (but for Meditation and Radio), and the selects' options too")
    func germanNames() throws {
        let english = Self.components(.en), german = Self.components(.de)
        #expect(german.count == english.count && german.count > 25)
        for (key, component) in german {
            let name = try #require(component[member: "name"]?.stringValue, "\(key)")
            let englishName = try #require(english[key]?[member: "name"]?.stringValue)
            #expect(!name.hasPrefix("ha.") && !englishName.hasPrefix("ha."), "\(key): the catalog lacks its name")
            if key == HomeAssistantDiscovery.alarmKey(Self.alarm.id) {
                #expect(name == "Work", "an alarm's switch is its label in every language")
            } else if Self.sameInGerman.contains(key) {
                #expect(name == englishName, "\(key)")
            } else {
                #expect(name != englishName, "\(key) is \"\(name)\" in both languages")
            }
        }
        #expect(german["battery"]?[member: "name"] == "Akku")
        #expect(german["language"]?[member: "name"] == "Sprache" && english["language"]?[member: "name"] == "Language")
        #expect(german["alarm_a1b2c3d4_text"]?[member: "name"] == "Work Uhrzeit")

        // Every option of every select but the language's (each language by its own name) is German.
        for key in ["time_format", "face_theme", "meditation_interval", "noise_sound"] {
            let options = german[key]?[member: "options"]?.items.compactMap(\.stringValue) ?? []
            let englishOptions = english[key]?[member: "options"]?.items.compactMap(\.stringValue) ?? []
            #expect(options.count == englishOptions.count && !options.isEmpty, "\(key)")
            for (option, englishOption) in zip(options, englishOptions) { #expect(option != englishOption, "\(key): \(option)") }
        }
        #expect(german["time_format"]?[member: "options"] == ["24 Stunden", "12 Stunden"])
        #expect(german["face_theme"]?[member: "options"] == ["Nacht", "Tag", "Rot", "Eigenes"])
        #expect(german["noise_sound"]?[member: "options"]?.items.first == "Starker Regen")
        #expect(german["language"]?[member: "options"] == ["English", "Deutsch"])
        #expect(english["language"]?[member: "options"] == ["English", "Deutsch"])
    }

    @Test("unique ids, object ids and default entity ids are the same in both languages: those of the English names")
    func stableIDs() throws {
        let english = Self.components(.en), german = Self.components(.de)
        #expect(Set(english.keys) == Set(german.keys))
        for (key, component) in english {
            for member in ["unique_id", "object_id", "default_entity_id", "p"] {
                #expect(german[key]?[member: member] == component[member: member], "\(key).\(member)")
            }
            let platform = try #require(component[member: "p"]?.stringValue)
            let objectID = try #require(component[member: "object_id"]?.stringValue)
            #expect(component[member: "default_entity_id"] == .string("\(platform).\(objectID)"))
        }
        // What Home Assistant made of the English names before the node sent object ids.
        let expected = [
            "battery": "bedroom_clock_battery", "alarm_state": "bedroom_clock_alarm", "alarm_event": "bedroom_clock_event",
            "meditation_interval": "bedroom_clock_interval_gongs", "noise_sound": "bedroom_clock_noise_sound",
            "language": "bedroom_clock_language", "screen": "bedroom_clock_screen", "alarm_a1b2c3d4": "bedroom_clock_work",
            "alarm_a1b2c3d4_text": "bedroom_clock_work_time",
        ]
        for (key, objectID) in expected { #expect(german[key]?[member: "object_id"] == .string(objectID), "\(key)") }
    }

    @Test("object ids are slugged as Home Assistant slugs a name", arguments: [
        ("NoiseClock E2E Battery", "noiseclock_e2e_battery"), ("Bedroom clock Rock 'n' roll", "bedroom_clock_rock_n_roll"),
        ("  a--b__c  ", "a_b_c"), ("x 1,000 y", "x_1000_y"), ("Wake up time", "wake_up_time"), ("Küche Wecker", "küche_wecker"),
    ])
    func slug(text: String, slug: String) {
        // Measured with Home Assistant 2025.4.4's homeassistant.util.slugify; it turns ü into u itself.
        #expect(HomeAssistantDiscovery.slug(text) == slug)
    }

    @Test("enum sensors report the node's codes in every language, so automations survive a change of language")
    func enumStatesAreCodes() {
        for language in Language.allCases {
            let components = Self.components(language)
            #expect(components["alarm_state"]?[member: "options"] == ["idle", "ringing", "snoozed"], "\(language)")
            #expect(components["meditation"]?[member: "options"] == .array(HomeAssistantDiscovery.meditationStates.map { .string($0) }))
            #expect(components["alarm_event"]?[member: "event_types"] == .array(HomeAssistantDiscovery.eventTypes.map { .string($0) }))
        }
    }

    @Test("the Language select: endonyms as options, B/settings' language as state, a partial settings object as command, a config entity")
    func languageSelect() throws {
        let select = try #require(Self.components(.de)["language"]?.objectValue)
        #expect(select["p"] == "select")
        #expect(select["unique_id"] == "noiseclock_bedroom_language")
        #expect(select["state_topic"] == "noiseclock/bedroom/settings")
        #expect(select["command_topic"] == "noiseclock/bedroom/cmd/settings")
        #expect(select["entity_category"] == "config" && select["icon"] == "mdi:translate")
        #expect(try sent(select, "Deutsch") == ["language": "de"])
        #expect(try sent(select, "English") == ["language": "en"])
        #expect(try shown(select, ClockSettings(language: .de)) == "Deutsch")
    }

    @Test("every option of the settings selects sends a value the node's settings verb takes, and that value shows as the same option",
          arguments: Language.allCases)
    func settingsOptionsRoundTrip(language: Language) throws {
        let components = Self.components(language)
        for key in ["time_format", "face_theme", "language", "meditation_interval"] {
            let select = try #require(components[key]?.objectValue, "\(key)")
            let options = select["options"]?.items.compactMap(\.stringValue) ?? []
            #expect(Set(options).count == options.count && options.count >= 2, "\(key): \(options)")
            var values: Set<JSONValue> = []
            for option in options {
                let command = try sent(select, option)
                let patch = try SettingsPatch(CommandArguments(try #require(command.objectValue, "\(key) sends \(command)")))
                let settings = ClockSettings().applying(patch)
                #expect(settings != ClockSettings() || option == options.first, "\(key): \(option) changes nothing")
                #expect(try shown(select, settings) == option, "\(key): \(option) → \(command.serialized) shows back")
                values.insert(command)
            }
            #expect(values.count == options.count, "\(key): two options send the same value")
        }
        #expect(try sent(try #require(components["time_format"]?.objectValue), components["time_format"]?[member: "options"]?.items.last?.stringValue ?? "")
            == ["time_format": "12h"])
    }

    @Test("the noise select's options are the sounds' names in the language, each one a name noise/play finds, shown back from its id",
          arguments: Language.allCases)
    func noiseOptions(language: Language) throws {
        let select = try #require(Self.components(language)["noise_sound"]?.objectValue)
        let options = select["options"]?.items.compactMap(\.stringValue) ?? []
        #expect(options == Shipped.noiseSounds.map { $0.name(in: language) })
        let template = try #require(select["value_template"]?.stringValue)
        let start = try #require(template.range(of: "{% set names = ")?.upperBound)
        var reader = JinjaReader(template[start...])
        let names = try reader.dictionary()
        let catalog = SoundCatalog(sounds: Shipped.noiseSounds)
        for option in options {
            let sound = try #require(catalog.sound(named: option), "noise/play \(option) finds no sound")
            #expect(names[.string(sound.id)] == .string(option), "\(sound.id) shows as \(names[.string(sound.id)]?.serialized ?? "nothing")")
        }
    }

    // MARK: Evaluating the templates

    /// What the select's command template renders for `option`: the JSON the node is sent.
    func sent(_ select: [String: JSONValue], _ option: String) throws -> JSONValue {
        let template = try #require(select["command_template"]?.stringValue)
        let body = try #require(template.wholeMatch(of: /\{\{ (.*) \| tojson \}\}/)?.1, "\(template)")
        var reader = JinjaReader(body, value: option)
        let value = try reader.value()
        #expect(reader.atEnd, "\(template)")
        return value
    }

    /// What the select's value template shows for `settings` as `B/settings` carries them.
    func shown(_ select: [String: JSONValue], _ settings: ClockSettings) throws -> String? {
        let template = try #require(select["value_template"]?.stringValue)
        let match = try #require(template.wholeMatch(of: /\{\{ (\{.*\})\.get\(value_json\.([a-z_.]+), 'None'\) \}\}/), "\(template)")
        var reader = JinjaReader(match.1)
        let options = try reader.dictionary()
        let path = match.2.split(separator: ".").map(String.init)
        let value = try #require(path.reduce(Optional(settings.json)) { $0?[member: $1] }, "no \(match.2) in B/settings")
        return options[value]?.stringValue
    }
}

/// Reads the Python literals of the selects' templates as Jinja evaluates them: dictionaries,
/// single-quoted strings, integers, `none`, and `{…}[value]` (a lookup of the option chosen).
struct JinjaReader {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let text: [Character]
    private var index = 0
    private let chosen: String?

    init(_ text: some StringProtocol, value: String? = nil) {
        self.text = Array(text)
        chosen = value
    }

    var atEnd: Bool { index == text.count }

    mutating func value() throws -> JSONValue {
        if peek("{") {
            let pairs = try dictionary()
            guard peek("[") else { return .object(Dictionary(uniqueKeysWithValues: pairs.map { ($0.key.stringValue ?? $0.key.serialized, $0.value) })) }
            try expect("[value]")
            guard let chosen, let found = pairs[.string(chosen)] else { throw Failure(description: "no option \(chosen ?? "") in \(pairs)") }
            return found
        }
        if peek("'") { return .string(try string()) }
        if peek("none") {
            index += 4
            return .null
        }
        var digits = ""
        while index < text.count, text[index].isNumber {
            digits.append(text[index])
            index += 1
        }
        guard let number = Int(digits) else { throw Failure(description: "no literal at \(index) in \(String(text))") }
        return .number(Double(number))
    }

    /// A `{key: value, …}` literal, its keys as JSON values.
    mutating func dictionary() throws -> [JSONValue: JSONValue] {
        try expect("{")
        var pairs: [JSONValue: JSONValue] = [:]
        while !peek("}") {
            if !pairs.isEmpty { try expect(", ") }
            let key = try value()
            try expect(": ")
            pairs[key] = try value()
        }
        try expect("}")
        return pairs
    }

    private mutating func string() throws -> String {
        try expect("'")
        var out = ""
        while index < text.count, text[index] != "'" {
            if text[index] == "\\" { index += 1 }
            guard index < text.count else { break }
            out.append(text[index])
            index += 1
        }
        try expect("'")
        return out
    }

    private func peek(_ prefix: String) -> Bool { text[index...].starts(with: prefix) }

    private mutating func expect(_ prefix: String) throws {
        guard peek(prefix) else { throw Failure(description: "expected \(prefix) at \(index) in \(String(text))") }
        index += prefix.count
    }
}

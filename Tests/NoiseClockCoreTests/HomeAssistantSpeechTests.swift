import Foundation
import NoiseClockCore
import Testing

/// The speech entities (SPEC §16): the "Announce" notify entity, whose message is sent to `say`
/// through a command template and read back by the node's own payload rules as that very text;
/// the "Say the time" button; and the speech events on the event entity, in both languages.
@Suite("Home Assistant discovery of speech (SPEC §16)")
struct HomeAssistantSpeechTests {
    static let topics = Topics(base: "noiseclock", nodeID: "bedroom")

    static func components(_ language: Language = .en) -> [String: JSONValue] {
        HomeAssistantDiscovery(
            topics: topics, prefix: "homeassistant", deviceName: "Bedroom clock", version: "9.9.9", noiseSounds: [],
            catalogs: Shipped.catalogs, language: language
        ).payload(alarms: [])[member: "cmps"]?.objectValue ?? [:]
    }

    static func component(_ key: String, _ language: Language = .en) throws -> [String: JSONValue] {
        try #require(components(language)[key]?.objectValue, "no component \(key)")
    }

    /// What Home Assistant renders for `{{ {'text': value} | tojson }}`: Jinja's `tojson`, which is
    /// Python's `json.dumps` (every character beyond ASCII as `\uXXXX`, in UTF-16) with `<`, `>`,
    /// `&` and `'` escaped too.
    static func homeAssistantTojson(text value: String) -> String {
        var out = #"{"text": ""#
        for unit in value.utf16 {
            switch unit {
            case 0x22: out += #"\""#
            case 0x5C: out += #"\\"#
            case 0x0A: out += #"\n"#
            case 0x0D: out += #"\r"#
            case 0x09: out += #"\t"#
            case 0x08: out += #"\b"#
            case 0x0C: out += #"\f"#
            case 0x3C, 0x3E, 0x26, 0x27, 0..<0x20, 0x7F...: out += String(format: "\\u%04x", unit)
            default: out += String(UnicodeScalar(UInt8(unit)))
            }
        }
        return out + #""}"#
    }

    /// The `text` the node's `say` reads from a payload, by the rules every verb's payload goes
    /// through (`CommandPayload.decode`, then `text` as the bare value's member).
    static func textSaid(_ payload: String) throws -> String? {
        let payload = try CommandPayload.decode(Array(payload.utf8)).payload.get()
        return try CommandArguments(payload: payload, shape: .object(bareValue: "text"), verb: "say").string("text")
    }

    static let messages = [
        "The washing machine is done.", #"She said "leave" at 5 o'clock"#, "Line one\nLine two\ttabbed", "55", "true", "null",
        "PRESS", #"{"text":"not this","priority":"urgent"}"#, "[1, 2]", "  spaced  ", "Grüße aus der Küche 🌧️", "<b>&amp;</b>",
        #"C:\path\n"#,
    ]

    @Test("the Announce entity: Home Assistant's MQTT notify platform, sending to say; named in both languages with one entity id")
    func announce() throws {
        let notify = try Self.component("announce")
        #expect(notify["p"] == "notify" && notify["name"] == "Announce" && notify["icon"] == "mdi:bullhorn")
        #expect(notify["command_topic"] == "noiseclock/bedroom/cmd/say")
        #expect(notify["command_template"] == .string(HomeAssistantDiscovery.announceTemplate))
        #expect(notify["state_topic"] == nil, "a notify entity has no state of its own")
        #expect(notify["unique_id"] == "noiseclock_bedroom_announce" && notify["default_entity_id"] == "notify.bedroom_clock_announce")
        let german = try Self.component("announce", .de)
        #expect(german["name"] == "Durchsage" && german["default_entity_id"] == "notify.bedroom_clock_announce")
    }

    @Test("every message reaches say as exactly its text, through the command template as Home Assistant renders it", arguments: messages)
    func messageSurvives(message: String) throws {
        #expect(HomeAssistantDiscovery.announceTemplate == "{{ {'text': value} | tojson }}")
        let payload = Self.homeAssistantTojson(text: message)
        #expect(try Self.textSaid(payload) == message, "\(payload)")
    }

    @Test("sent bare, messages like these would not be their text: why the entity sends JSON")
    func bareWouldNot() throws {
        #expect(try Self.textSaid("  spaced  ") == "spaced")
        #expect(try Self.textSaid("PRESS") == nil)
        #expect(try Self.textSaid(#"{"text":"not this","priority":"urgent"}"#) == "not this")
        #expect(throws: CommandError.self) { try Self.textSaid("[1, 2]") }
        #expect(throws: CommandError.self) { try Self.textSaid("55") }
    }

    @Test("the Say the time button presses say/time; named in both languages with one entity id")
    func sayTime() throws {
        let button = try Self.component("say_time")
        #expect(button["p"] == "button" && button["name"] == "Say the time" && button["icon"] == "mdi:account-voice")
        #expect(button["command_topic"] == "noiseclock/bedroom/cmd/say/time" && button["payload_press"] == "PRESS")
        #expect(button["default_entity_id"] == "button.bedroom_clock_say_the_time")
        #expect(try CommandPayload.decode(Array("PRESS".utf8)).payload.get() == .empty, "a press is a say/time without a payload")
        let german = try Self.component("say_time", .de)
        #expect(german["name"] == "Uhrzeit ansagen" && german["default_entity_id"] == "button.bedroom_clock_say_the_time")
    }

    @Test("with speech.engine none (speech: false) neither Announce nor Say the time is offered; the events stay listed")
    func withoutSpeech() throws {
        let silent = HomeAssistantDiscovery(
            topics: Self.topics, prefix: "homeassistant", deviceName: "Bedroom clock", version: "9.9.9", noiseSounds: [], speech: false,
            catalogs: Shipped.catalogs
        ).payload(alarms: [])[member: "cmps"]?.objectValue ?? [:]
        #expect(silent["announce"] == nil && silent["say_time"] == nil)
        #expect(Set(Self.components().keys).subtracting(silent.keys) == ["announce", "say_time"])
        #expect(silent["alarm_event"]?[member: "event_types"]?.items.contains("speech_started") == true)
    }

    @Test("the event entity passes the speech events and the briefing, with their members as attributes")
    func speechEvents() throws {
        let event = try Self.component("alarm_event")
        let types = event["event_types"]?.items.compactMap(\.stringValue) ?? []
        #expect(Array(types.suffix(4)) == ["speech_started", "speech_finished", "speech_dropped", "briefing"])
        #expect(Set(types).count == types.count, "no event twice")
        let template = try #require(event["value_template"]?.stringValue)
        for name in HomeAssistantDiscovery.speechEvents { #expect(template.contains("'\(name)'"), "\(name)") }
        #expect(template.contains("rejectattr('0', 'eq', 'event')"), "the event's members (id, text, kind, ms, reason) as attributes")
    }
}

/// The Assist files of `deploy/homeassistant/` against the node: each language's sentences ask for
/// the same intents, each intent is answered by the package, and the sounds they name are the
/// catalog's noise sounds, every one (the end-to-end test runs them in a real Home Assistant).
@Suite("The Assist sentences and intents shipped in deploy/homeassistant (SPEC §16)")
struct AssistFilesTests {
    static let folder = Shipped.resources.deletingLastPathComponent().appendingPathComponent("deploy/homeassistant")

    static func text(_ path: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    /// The intents a file defines: the `NoiseClock…:` keys at two spaces.
    static func intents(_ text: String) -> Set<String> {
        Set(text.matches(of: /(?m)^  (NoiseClock[A-Za-z]+):$/).map { String($0.1) })
    }

    @Test("English and German ask for the same intents, and the package answers each with an intent_script", arguments: ["en", "de"])
    func intentsAnswered(language: String) throws {
        let sentences = try Self.text("custom_sentences/\(language)/noiseclock.yaml")
        #expect(sentences.contains("language: \"\(language)\""))
        let package = try Self.text("packages/noiseclock.yaml")
        let scripts = try #require(package.range(of: "\nintent_script:\n"), "no intent_script in the package")
        let answered = Self.intents(String(package[scripts.upperBound...]))
        #expect(Self.intents(sentences) == answered, "\(language): \(Self.intents(sentences).symmetricDifference(answered).sorted())")
        #expect(answered.count == 7)
        // Every sentence says which language it is in, for the answer.
        #expect(sentences.matches(of: /nc_lang: "(en|de)"/).allSatisfy { $0.1 == language })
        #expect(sentences.matches(of: #/nc_lang: /#).count == answered.count)
    }

    @Test("the sounds the sentences name are the catalog's noise sounds, every one", arguments: ["en", "de"])
    func soundsAreTheCatalogs(language: String) throws {
        let sentences = try Self.text("custom_sentences/\(language)/noiseclock.yaml")
        let list = try #require(sentences.range(of: "  nc_sound:\n"), "no nc_sound list")
        let ids = sentences[list.upperBound...].matches(of: /out: "([a-z0-9-]+)"/).map { String($0.1) }
        #expect(ids == Shipped.noiseSounds.map(\.id), "\(language): \(ids)")
        #expect(ids.allSatisfy { id in Shipped.noiseSounds.contains { $0.id == id && $0.kind == .noise } })
    }

    @Test("the package sets the node's topic in one place, the script every intent sends through")
    func oneNodeTopic() throws {
        let package = try Self.text("packages/noiseclock.yaml")
        #expect(package.matches(of: /noiseclock\/[a-z]/).count == 1, "the node's topic in more than one place")
        #expect(package.contains("      node: \"noiseclock/bedroom\"\n"))
        #expect(package.matches(of: /action: mqtt\.publish/).count == 1, "every intent sends through script.noiseclock_command")
        #expect(package.matches(of: /action: script\.noiseclock_command/).count == 7)
    }
}

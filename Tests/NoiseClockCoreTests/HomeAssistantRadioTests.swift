import Foundation
import NoiseClockCore
import Testing

/// The radio's entities (SPEC §15): the Radio select (the stations and off), the Radio playing
/// sensor and the Radio volume number, read from `B/radio` as `RadioState` writes it, in both
/// languages; each option's command evaluated and resolved by the node's own station rules.
@Suite("Home Assistant discovery of the radio (SPEC §15)")
struct HomeAssistantRadioTests {
    static let topics = Topics(base: "noiseclock", nodeID: "bedroom")
    static let stations = [
        RadioStation(id: "dlf", name: "Deutschlandfunk", url: "https://example.org/dlf.mp3"),
        RadioStation(id: "drone", name: "Soma's Drone Zone", url: "https://example.org/drone.pls", fallback: "dlf"),
    ]

    static func components(_ language: Language = .en, stations: [RadioStation] = stations) -> [String: JSONValue] {
        HomeAssistantDiscovery(
            topics: topics, prefix: "homeassistant", deviceName: "Bedroom clock", version: "9.9.9", noiseSounds: [],
            catalogs: Shipped.catalogs, language: language
        ).payload(alarms: [], stations: stations)[member: "cmps"]?.objectValue ?? [:]
    }

    static func component(_ key: String, _ language: Language = .en, stations: [RadioStation] = stations) throws -> [String: JSONValue] {
        try #require(components(language, stations: stations)[key]?.objectValue, "no component \(key)")
    }

    /// The select's command template, `{{ {'station': {option: id, …}.get(value)} | tojson }}`,
    /// evaluated for `option`: the JSON `radio/play` is sent.
    static func sent(_ select: [String: JSONValue], _ option: String) throws -> JSONValue {
        let template = try #require(select["command_template"]?.stringValue)
        let table = try #require(template.wholeMatch(of: /\{\{ \{'station': (\{.*\})\.get\(value\)\} \| tojson \}\}/)?.1, "\(template)")
        var reader = JinjaReader(table)
        let ids = try reader.dictionary()
        #expect(reader.atEnd)
        return ["station": ids[.string(option)] ?? .null]
    }

    /// The select's value template's table `{id: option, …}` and the text it shows while nothing plays.
    static func shown(_ select: [String: JSONValue]) throws -> (options: [JSONValue: JSONValue], off: String) {
        let template = try #require(select["value_template"]?.stringValue)
        let match = try #require(
            template.wholeMatch(
                of: /\{% set options = (\{.*\}) %\}\{\{ options\.get\(value_json\.station, 'None'\) if value_json\.playing else '(.*)' \}\}/),
            "\(template)")
        var reader = JinjaReader(match.1)
        return (try reader.dictionary(), String(match.2))
    }

    @Test("the Radio select: off and the stations' names, read from B/radio, sent to radio/play")
    func select() throws {
        let select = try Self.component("radio")
        #expect(select["p"] == "select" && select["name"] == "Radio" && select["icon"] == "mdi:radio")
        #expect(select["options"] == ["Off", "Deutschlandfunk", "Soma's Drone Zone"])
        #expect(select["state_topic"] == "noiseclock/bedroom/radio")
        #expect(select["command_topic"] == "noiseclock/bedroom/cmd/radio/play")
        #expect(select["unique_id"] == "noiseclock_bedroom_radio" && select["default_entity_id"] == "select.bedroom_clock_radio")
        #expect(select["entity_category"] == nil, "the radio belongs on the dashboard")
    }

    @Test("each station's option sends its id, which radio/play finds as that station, and shows back as that option; off sends a null station",
          arguments: Language.allCases)
    func optionsRoundTrip(language: Language) throws {
        let select = try Self.component("radio", language)
        let options = select["options"]?.items.compactMap(\.stringValue) ?? []
        let (shown, off) = try Self.shown(select)
        #expect(options.first == off)
        #expect(try Self.sent(select, off) == ["station": .null])
        let stations = RadioStations(Self.stations)
        for option in options.dropFirst() {
            let command = try Self.sent(select, option)
            let id = try #require(command[member: "station"]?.stringValue, "\(option) sends \(command.serialized)")
            let station = try #require(stations.station(named: id), "radio/play finds no station \(id)")
            #expect(station.name == option)
            #expect(shown[.string(station.id)] == .string(option), "\(station.id) shows as \(shown[.string(station.id)]?.serialized ?? "nothing")")
        }
        #expect(shown.count == Self.stations.count)
        #expect(try Self.sent(select, "Unknown FM") == ["station": .null], "an option Home Assistant made up is not sent as a station")
    }

    @Test("with no stations the select offers off alone; a station named like the off option is offered with its id", arguments: Language.allCases)
    func offCollision(language: Language) throws {
        #expect(try Self.component("radio", language, stations: [])["options"]?.items.count == 1)
        let off = language == .de ? "aus" : "OFF"
        let stations = [RadioStation(id: "off-air", name: off, url: "http://127.0.0.1:1/x")]
        let select = try Self.component("radio", language, stations: stations)
        let options = select["options"]?.items.compactMap(\.stringValue) ?? []
        #expect(options == [language == .de ? "Aus" : "Off", "\(off) (off-air)"])
        #expect(Set(options.map { $0.lowercased() }).count == options.count)
        #expect(try Self.sent(select, "\(off) (off-air)") == ["station": "off-air"])
        #expect(try Self.shown(select).options == ["off-air": .string("\(off) (off-air)")])
    }

    @Test("the Radio playing sensor: what plays, else the station, else off; B/radio's details as attributes")
    func playingSensor() throws {
        let sensor = try Self.component("radio_playing")
        #expect(sensor["p"] == "sensor" && sensor["name"] == "Radio playing")
        #expect(sensor["state_topic"] == "noiseclock/bedroom/radio" && sensor["json_attributes_topic"] == "noiseclock/bedroom/radio")
        #expect(sensor["device_class"] == nil, "free text, not an enum")
        #expect(sensor["value_template"] == .string(
            "{{ value_json.now_playing if value_json.playing and value_json.now_playing else "
                + "(value_json.name if value_json.playing and value_json.name else 'Off') }}"))
        let attributes = try #require(sensor["json_attributes_template"]?.stringValue)
        for name in ["station", "name", "now_playing", "state", "codec", "bitrate_kbps", "error"] {
            #expect(attributes.contains("'\(name)': value_json.\(name)"), "\(name)")
        }
        #expect(try Self.component("radio_playing", .de)["value_template"]?.stringValue?.hasSuffix("else 'Aus') }}") == true)
    }

    @Test("the Radio volume number: 0-100 in steps of 1 on a slider, from B/radio's volume, to radio/volume")
    func volume() throws {
        let number = try Self.component("radio_volume")
        #expect(number["p"] == "number" && number["name"] == "Radio volume")
        #expect(number["min"] == 0 && number["max"] == 100 && number["step"] == 1 && number["mode"] == "slider")
        #expect(number["unit_of_measurement"] == "%")
        #expect(number["state_topic"] == "noiseclock/bedroom/radio")
        #expect(number["command_topic"] == "noiseclock/bedroom/cmd/radio/volume")
        #expect(number["value_template"] == "{{ value_json.volume }}")
    }

    @Test("every member of B/radio the templates read is one RadioState writes")
    func templatesReadBRadio() throws {
        var state = RadioState()
        state.phase = .playing
        let written = Set(state.json(stations: Self.stations) { _ in "" }.objectValue.map { Array($0.keys) } ?? [])
        let components = Self.components()
        for key in ["radio", "radio_playing", "radio_volume"] {
            let component = try #require(components[key]?.objectValue)
            let templates = ["value_template", "json_attributes_template"].compactMap { component[$0]?.stringValue }.joined()
            let read = Set(templates.matches(of: /value_json\.([a-z_]+)/).map { String($0.1) })
            #expect(!read.isEmpty && read.isSubset(of: written), "\(key) reads \(read.subtracting(written).sorted())")
        }
    }

    @Test("German names, and the entity ids of the English names in both languages")
    func german() throws {
        let english = Self.components(.en), german = Self.components(.de)
        #expect(german["radio"]?[member: "name"] == "Radio")
        #expect(german["radio_playing"]?[member: "name"] == "Läuft im Radio")
        #expect(german["radio_volume"]?[member: "name"] == "Radiolautstärke")
        #expect(german["radio"]?[member: "options"] == ["Aus", "Deutschlandfunk", "Soma's Drone Zone"])
        let ids = ["radio": "select.bedroom_clock_radio", "radio_playing": "sensor.bedroom_clock_radio_playing",
                   "radio_volume": "number.bedroom_clock_radio_volume"]
        for (key, id) in ids {
            #expect(english[key]?[member: "default_entity_id"] == .string(id), "\(key)")
            #expect(german[key]?[member: "default_entity_id"] == .string(id), "\(key)")
        }
    }

    @Test("the stations change only the select: its options and templates; nothing else in the payload")
    func stationsChangeOnlyTheSelect() throws {
        let with = Self.components(), without = Self.components(stations: [])
        #expect(Set(with.keys) == Set(without.keys))
        for key in with.keys.sorted() where key != "radio" { #expect(with[key] == without[key], "\(key)") }
        #expect(with["radio"] != without["radio"])
    }

    @Test("the event entity passes the radio's events and an alarm that cannot sound, with their members as attributes")
    func radioEvents() throws {
        let event = try Self.component("alarm_event")
        let types = event["event_types"]?.items.compactMap(\.stringValue) ?? []
        for name in ["radio_started", "radio_stopped", "radio_failed", "alarm_fallback", "alarm_failed"] {
            #expect(types.contains(name), "\(name)")
        }
        let template = try #require(event["value_template"]?.stringValue)
        #expect(template.contains("'alarm_failed'") && template.contains("rejectattr('0', 'eq', 'event')"))
    }
}

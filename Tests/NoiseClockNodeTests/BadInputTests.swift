import Foundation
import NoiseClockCore
import NoiseClockMQTT
import Testing

@testable import NoiseClockNode

/// SPEC §8 "Bad input", for every verb the node answers: malformed JSON, bytes that are not UTF-8,
/// an oversized payload, an unknown field, a value of the wrong type and unknown ids. Each gets an
/// error naming the field, and changes nothing: no save, no retained state published.
@Suite("Bad input to every verb")
struct BadInputTests {
    /// A node with one alarm and noise playing, so that every verb has something it could change.
    func fixture() async throws -> (AlarmFixture, alarmID: String) {
        let f = try await AlarmFixture()
        let (id, _) = try await f.add(#"{"time":"07:00","label":"Work","days":["mon"]}"#)
        try await f.ok("noise/play", "white-noise")
        return (f, id)
    }

    /// Every verb the router knows, with `{id}` filled in.
    func verbs(_ f: AlarmFixture, id: String) -> [(verb: String, shape: CommandShape)] {
        f.node.router.routes.map { route in
            (route.pattern.segments.map { $0 == "{id}" ? id : $0 }.joined(separator: "/"), route.shape)
        }
    }

    /// Sends `payload` to `verb` and checks the error and that nothing changed.
    func expectRejected(
        _ f: AlarmFixture, _ verb: String, _ payload: [UInt8], code: CommandError.Code, field: String?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let saves = f.memory?.saves
        let published = f.transport.published.count
        let response = await f.node.router.respond(verb: verb, payload: payload)
        #expect(response.error?.code == code, "\(verb): \(response.json.serialized)", sourceLocation: sourceLocation)
        if let field { #expect(response.error?.field == field, "\(verb): \(response.json.serialized)", sourceLocation: sourceLocation) }
        #expect(f.memory?.saves == saves, "\(verb) saved something", sourceLocation: sourceLocation)
        #expect(f.transport.published.count == published, "\(verb) published state", sourceLocation: sourceLocation)
    }

    @Test("malformed JSON, non-UTF-8 and oversized payloads: invalid_json / too_large naming the payload, for every verb")
    func transportLevel() async throws {
        let (f, id) = try await fixture()
        let everyVerb = verbs(f, id: id)
        // Every group is in the list (a verb missing from the router would escape these checks).
        let names = Set(everyVerb.map(\.verb))
        for verb in ["ping", "settings", "alarm/add", "alarm/\(id)/time", "dismiss", "noise/play", "display/power"] {
            #expect(names.contains(verb), "\(verb) is not routed: \(names.sorted())")
        }
        for (verb, _) in everyVerb {
            await expectRejected(f, verb, Array(#"{"id": "#.utf8), code: .invalidJSON, field: "payload")
            await expectRejected(f, verb, [0x7B, 0xFF, 0xFE, 0x7D], code: .invalidJSON, field: "payload")
            await expectRejected(f, verb, Array(repeating: 0x20, count: CommandPayload.maxBytes + 1), code: .tooLarge, field: "payload")
            await expectRejected(f, verb, Array("[1,2]".utf8), code: .invalidJSON, field: "payload")
        }
    }

    @Test("an unknown field is invalid_field naming it, for every verb")
    func unknownField() async throws {
        let (f, id) = try await fixture()
        for (verb, _) in verbs(f, id: id) {
            await expectRejected(f, verb, Array(#"{"zz_unknown":1}"#.utf8), code: .invalidField, field: "zz_unknown")
        }
    }

    @Test("a value of the wrong type or out of range is invalid_field naming it")
    func wrongTypes() async throws {
        let (f, id) = try await fixture()
        let cases: [(verb: String, payload: String, field: String)] = [
            ("alarm/add", #"{"time":730}"#, "time"), ("alarm/add", #"{"time":"07:30","volume":"loud"}"#, "volume"),
            ("alarm/add", #"{"time":"07:30","days":"mon"}"#, "days"), ("alarm/add", #"{"time":"07:30","enabled":"maybe"}"#, "enabled"),
            ("alarm/add", #"{"time":"07:30","fade_in_s":-1}"#, "fade_in_s"),
            ("alarm/add", #"{"time":"07:30","ring_timeout_min":0}"#, "ring_timeout_min"),
            ("alarm/update", #"{"id":"\#(id)","label":7}"#, "label"), ("alarm/update", #"{"id":5}"#, "id"),
            ("alarm/update", #"{"id":"\#(id)","snooze_min":11}"#, "snooze_min"),
            ("alarm/\(id)/enabled", "perhaps", "state"), ("alarm/delete", #"{"id":[]}"#, "id"),
            ("snooze", #"{"minutes":0}"#, "minutes"), ("snooze", #"{"minutes":61}"#, "minutes"), ("snooze", "\"ten\"", "minutes"),
            ("noise/volume", "101", "volume"), ("noise/volume", #"{"volume":"x"}"#, "volume"),
            ("noise/sleep", "-5", "minutes"), ("noise/play", #"{"sound":"white-noise","volume":300}"#, "volume"),
            ("noise/power", "SIDEWAYS", "state"), ("settings", #"{"time_format":"13h"}"#, "time_format"),
            ("settings", #"{"show_seconds":"often"}"#, "show_seconds"), ("settings", #"{"timezone":"Mars/Olympus"}"#, "timezone"),
            ("settings", #"{"face":{"theme":"blue"}}"#, "face.theme"), ("settings", #"{"face":{"night":{"start":"dusk"}}}"#, "face.night.start"),
            ("display/brightness", "101", "brightness"), ("display/brightness", #"{"brightness":"dim"}"#, "brightness"),
            ("display/power", "SIDEWAYS", "state"),
            ("meditation/start", "0", "minutes"), ("meditation/start", #"{"interval_min":4}"#, "interval_min"),
            ("meditation/seek", #"{"position_s":"later"}"#, "position_s"), ("settings", #"{"meditation":{"volume":101}}"#, "meditation.volume"),
        ]
        for (verb, payload, field) in cases {
            await expectRejected(f, verb, Array(payload.utf8), code: .invalidField, field: field)
        }
    }

    @Test("unknown ids and sounds are not_found naming the field")
    func unknownIDs() async throws {
        let (f, _) = try await fixture()
        for verb in ["alarm/delete", "alarm/duplicate", "alarm/enable", "alarm/disable", "alarm/skip_next", "alarm/unskip"] {
            await expectRejected(f, verb, Array(#"{"id":"ffffffff"}"#.utf8), code: .notFound, field: "id")
        }
        await expectRejected(f, "alarm/update", Array(#"{"id":"ffffffff","label":"x"}"#.utf8), code: .notFound, field: "id")
        await expectRejected(f, "alarm/ffffffff/enabled", Array("ON".utf8), code: .notFound, field: "id")
        for verb in ["noise/play", "noise/add", "noise/preview"] {
            await expectRejected(f, verb, Array("no-such-sound".utf8), code: .notFound, field: "sound")
        }
        await expectRejected(f, "alarm/add", Array(#"{"time":"07:30","sound":"white-noise"}"#.utf8), code: .notFound, field: "sound")
    }
}

import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// radio/search through a directory served on loopback, and a station as the sound of new alarms
// (SPEC §15), in a real node against a real broker.

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

private func radio(_ client: TestClient, _ topics: Topics) async -> JSONValue? {
    await client.latest(topics.state(StateTopic.radio)) { _ in true }
}

/// A radio-browser answer of three stations (the second twice), as the directory sends it.
private let answer = """
    [{"name":"Jazz One","url":"http://127.0.0.1:9/jazz.pls","url_resolved":"http://127.0.0.1:9/jazz.mp3","codec":"MP3","bitrate":128,"countrycode":"DE","tags":"jazz"},
     {"name":"Jazz Two","url":"http://127.0.0.1:9/two.aac","codec":"AAC","bitrate":64,"countrycode":"AT","tags":""},
     {"name":"Jazz Two again","url":"http://127.0.0.1:9/two.aac"},
     {"name":"Jazz Three","url":"http://127.0.0.1:9/three.ogg","codec":"OGG","bitrate":96}]
    """

@Suite("radio/search and a station as the default alarm sound")
struct RadioDirectoryTests {
    @Test("without radio.directory, radio/search is unavailable and says which key; B/radio says there is no directory")
    func noDirectory() async throws {
        try await withNode { node, _, client in
            #expect(await radio(client, node.topics)?["directory"] == false)
            let searched = try await client.request(node.topics, "radio/search", "jazz")
            #expect(searched["error"]?["code"] == "unavailable", "\(searched.serialized)")
            #expect(searched["error"]?["message"]?.stringValue?.contains("radio.directory") == true, "\(searched.serialized)")
        }
    }

    @Test("radio/search answers the directory's stations (at most limit, each address once); one is added as it is; bad input names its field")
    func search() async throws {
        let directory = try FaultServer(.body(answer, contentType: "application/json"))
        defer { directory.close() }
        let base = "http://127.0.0.1:\(directory.port)"
        try await withNode(configuration: "radio:\n  directory: \"\(base)\"\n") { node, _, client in
            #expect(await radio(client, node.topics)?["directory"] == true)
            let searched = try await client.request(node.topics, "radio/search", #"{"query":"jazz","country":"de","limit":2}"#)
            #expect(searched["status"] == "ok", "\(searched.serialized)")
            let found = try #require(searched["data"]?["stations"]?.items)
            #expect(found.map { $0["name"]?.stringValue } == ["Jazz One", "Jazz Two"])
            #expect(found.first?["url"] == "http://127.0.0.1:9/jazz.mp3")
            #expect(found.first?["codec"] == "mp3")
            #expect(found.first?["bitrate_kbps"] == 128)
            #expect(directory.connectionCount == 1)

            let first = try #require(found.first)
            let added = try await client.request(
                node.topics, "radio/station/add", JSONValue.object(["name": first["name"] ?? .null, "url": first["url"] ?? .null]).serialized)
            #expect(added["data"]?["id"] == "jazz-one", "\(added.serialized)")

            for (payload, field) in [(#"{"query":""}"#, "query"), (#"{"query":"jazz","country":"Germany"}"#, "country"),
                                     (#"{"query":"jazz","limit":500}"#, "limit"), (#"{"query":"jazz","genre":"x"}"#, "genre")] {
                let refused = try await client.request(node.topics, "radio/search", payload)
                #expect(refused["error"]?["field"]?.stringValue == field, "\(payload): \(refused.serialized)")
            }
            #expect(directory.connectionCount == 1, "bad input asks nobody")
        }
    }

    @Test("a directory that answers a web page, or none at all, is unavailable with why; the node goes on", arguments: [
        FaultServer.Fault.html, .silent,
    ])
    func hostileDirectory(fault: FaultServer.Fault) async throws {
        let directory = try FaultServer(fault)
        defer { directory.close() }
        try await withNode(configuration: "radio:\n  directory: \"http://127.0.0.1:\(directory.port)\"\n") { node, _, client in
            let searched = try await client.request(node.topics, "radio/search", "jazz", timeout: .seconds(30))
            #expect(searched["error"]?["code"] == "unavailable", "\(searched.serialized)")
            #expect(searched["error"]?["message"]?.stringValue?.contains("directory") == true, "\(searched.serialized)")
            let pinged = try await client.request(node.topics, "ping")
            #expect(pinged["status"] == "ok")
        }
    }

    @Test("settings.wake.sound: a station new alarms get (by name or id); unknown ones are refused and change nothing; a deleted one leaves new alarms the tone")
    func defaultAlarmSound() async throws {
        try await withNode { node, _, client in
            let added = try await client.request(node.topics, "radio/station/add", #"{"name":"Morning FM","url":"http://127.0.0.1:9/m.mp3"}"#)
            #expect(added["data"]?["id"] == "morning-fm")
            let refused = try await client.request(node.topics, "settings", #"{"wake":{"sound":"radio:nowhere"}}"#)
            #expect(refused["error"]?["field"] == "wake.sound", "\(refused.serialized)")
            let set = try await client.request(node.topics, "settings", #"{"wake":{"sound":"radio:Morning FM"}}"#)
            #expect(set["data"]?["wake"]?["sound"] == "radio:morning-fm", "\(set.serialized)")

            let alarm = try await client.request(node.topics, "alarm/add", "06:45")
            #expect(alarm["data"]?["sound"] == "radio:morning-fm", "\(alarm.serialized)")
            let own = try await client.request(node.topics, "alarm/add", #"{"time":"06:50","sound":"classic-alarm"}"#)
            #expect(own["data"]?["sound"] == "classic-alarm", "an alarm's own sound wins: \(own.serialized)")

            _ = try await client.request(node.topics, "radio/station/delete", "morning-fm")
            let after = try await client.request(node.topics, "alarm/add", "07:00")
            let sound = try #require(after["data"]?["sound"]?.stringValue)
            #expect(!sound.hasPrefix("radio:"), "the station is gone: new alarms get the tone, not \(sound)")
            let cleared = try await client.request(node.topics, "settings", #"{"wake":{"sound":null}}"#)
            #expect(cleared["data"]?["wake"]?["sound"] == .null)
        }
    }
}

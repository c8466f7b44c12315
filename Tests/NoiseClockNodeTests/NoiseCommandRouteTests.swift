import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("Noise commands through the router")
struct NoisePlayerCommandTests {
    let transport = FakeTransport()
    let output = FakeAudioOutput()
    let store = InMemoryStore()
    let node: Node

    init() throws {
        let clock = TestClock<Duration>()
        node = Node(
            configuration: try makeConfiguration(), transport: transport, store: store,
            clock: .driven(by: clock, startingAt: PlayerFixture.start, timeZone: berlin), audio: output,
            sounds: try realLibrary(), logger: LogRecorder().logger())
    }

    func respond(_ verb: String, _ payload: String = "") async -> CommandResponse {
        await node.router.respond(verb: verb, payload: Array(payload.utf8))
    }

    var noiseStates: [JSONValue] { transport.published(on: node.configuration.topics.noise).compactMap(\.json) }

    @Test(
        "a bad noise command answers the right code and field, and changes nothing",
        arguments: [
            ("noise/play", "{}", CommandError.Code.invalidField, "sound"),
            ("noise/play", "", .invalidField, "sound"),
            ("noise/play", #""bogus""#, .notFound, "sound"),
            ("noise/play", "bogus", .notFound, "sound"),
            ("noise/play", #"{"sound":5}"#, .invalidField, "sound"),
            ("noise/play", #"{"sound":"white-noise","volume":150}"#, .invalidField, "volume"),
            ("noise/play", #"{"sound":"white-noise","sleep_min":-1}"#, .invalidField, "sleep_min"),
            ("noise/play", #"{"sound":"white-noise","loud":true}"#, .invalidField, "loud"),
            ("noise/play", #"{"sound":"../sounds/white-noise.mp3"}"#, .notFound, "sound"),
            ("noise/volume", "150", .invalidField, "volume"),
            ("noise/volume", "-1", .invalidField, "volume"),
            ("noise/volume", #""loud""#, .invalidField, "volume"),
            ("noise/volume", "loud", .invalidField, "volume"),
            ("noise/volume", "55.5", .invalidField, "volume"),
            ("noise/volume", "{}", .invalidField, "volume"),
            ("noise/sleep", "-1", .invalidField, "minutes"),
            ("noise/sleep", "721", .invalidField, "minutes"),
            ("noise/sleep", #"{"minutes":"soon"}"#, .invalidField, "minutes"),
            ("noise/power", "MAYBE", .invalidField, "state"),
            ("noise/power", "{}", .invalidField, "state"),
            ("noise/add", #"{"sound":"pink-noise","volume":101}"#, .invalidField, "volume"),
            ("noise/add", "{}", .invalidField, "sound"),
            ("noise/add", "nope", .notFound, "sound"),
            ("noise/remove", "pink-noise", .conflict, "sound"),
            ("noise/remove", "{}", .invalidField, "sound"),
            ("noise/preview", "nope", .notFound, "sound"),
            ("noise/preview", "{}", .invalidField, "sound"),
            ("noise/stop", #"{"x":1}"#, .invalidField, "x"),
            ("noise/toggle", #"{"x":1}"#, .invalidField, "x"),
        ])
    func badInput(verb: String, payload: String, code: CommandError.Code, field: String) async {
        let response = await respond(verb, payload)

        #expect(response.error?.code == code)
        #expect(response.error?.field == field)
        #expect(output.isEmpty)
        #expect(noiseStates.isEmpty)
        #expect(store.document(NoisePlayer.documentName) == nil)
    }

    @Test("a rejected command leaves the playing noise as it was")
    func rejectedWhilePlaying() async throws {
        #expect(await respond("noise/play", "white-noise").isOK)
        let published = transport.published.count
        let stored = store.document(NoisePlayer.documentName)

        for (verb, payload) in [
            ("noise/play", "bogus"), ("noise/add", #"{"sound":"pink-noise","volume":101}"#), ("noise/volume", "150"),
            ("noise/sleep", "-1"), ("noise/remove", "pink-noise"), ("noise/power", "MAYBE"), ("noise/stop", #"{"x":1}"#),
        ] {
            let response = await respond(verb, payload)
            #expect(!response.isOK, "\(verb) \(payload)")
        }

        #expect(output.ids == ["noise:white-noise"])
        #expect(output.gain(of: "noise:white-noise") == noiseGain(100))
        #expect(transport.published.count == published)
        #expect(store.document(NoisePlayer.documentName) == stored)
    }

    @Test("noise/play takes a bare catalog name", arguments: ["Heavy rain", #""Heavy rain""#, #"{"sound":"heavy rain"}"#])
    func playBareName(payload: String) async throws {
        let response = await respond("noise/play", payload)

        let data = try #require(response.data)
        #expect(data == noiseState(playing: true, [("heavy-rain-white-noise", 100)]))
        #expect(output.ids == ["noise:heavy-rain-white-noise"])
        #expect(noiseStates.last == data)
    }

    @Test("noise/play with volume and sleep_min; noise/volume, noise/sleep and noise/power take bare values")
    func bareValues() async throws {
        let play = await respond("noise/play", #"{"sound":"pink-noise","volume":40,"sleep_min":30}"#)
        #expect(play.data?["volume"] == 40)
        #expect(play.data?["sleep_timer_ends_at"] == "2026-03-10T23:00:00+01:00")

        let volume = await respond("noise/volume", "55")
        #expect(volume.data?["volume"] == 55)
        #expect(output.gain(of: "noise:pink-noise") == noiseGain(100, master: 55))

        let sleep = await respond("noise/sleep", "0")
        #expect(sleep.data?["sleep_timer_ends_at"] == .null)

        let off = await respond("noise/power", "OFF")
        #expect(off.data?["playing"] == false)
        let on = await respond("noise/power", "ON")
        #expect(on.data == noiseState(playing: true, [("pink-noise", 100)], volume: 55))
    }

    @Test("noise/sleep while nothing plays is a conflict")
    func sleepConflict() async {
        let response = await respond("noise/sleep", "30")
        #expect(response.error?.code == .conflict)
        #expect(noiseStates.isEmpty)
    }

    @Test("noise/stop and noise/toggle take an empty payload, PRESS or {}", arguments: ["", "PRESS", "{}"])
    func pressVerbs(payload: String) async throws {
        let toggle = await respond("noise/toggle", payload)
        #expect(toggle.data?["playing"] == true)
        let stop = await respond("noise/stop", payload)
        #expect(stop.data?["playing"] == false)
    }

    @Test("noise/preview answers the sound and its 3 seconds")
    func preview() async throws {
        let response = await respond("noise/preview", "Digital alarm")
        #expect(response.data == ["sound": "digital-alarm", "seconds": 3])
        #expect(output.ids == ["preview"])
    }

    @Test(
        "noise/preview plays a gong or the timer chime (by id or name) for 3 seconds, as it does an alarm tone",
        arguments: [("singing-bowl", "singing-bowl"), ("Soft bell", "soft-bell"), (#"{"sound":"timer-chime"}"#, "timer-chime")])
    func previewGong(payload: String, id: String) async throws {
        let response = await respond("noise/preview", payload)
        #expect(response.data == ["sound": .string(id), "seconds": 3])
        #expect(output.ids == ["preview"])
        // The strike is heard at once: over a tenth of full scale within half a second (the preview's
        // gain is at least -12 dB, the gongs peak at -3 dBFS).
        #expect(output.render(milliseconds: 500) > 3_000)
        // A preview is not noise.
        #expect(noiseStates.isEmpty)
    }
}

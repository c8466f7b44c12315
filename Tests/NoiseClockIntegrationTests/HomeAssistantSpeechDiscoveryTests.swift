import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// A real node's discovery offers the speech entities (SPEC §16) only when it can speak: with
/// `speech.engine: none` a `say` is `unavailable`, so Home Assistant gets no Announce and no Say
/// the time to press in vain; the speech events stay on the event entity either way.
@Suite("Home Assistant's speech entities follow speech.engine in a real node process")
struct HomeAssistantSpeechDiscoveryTests {
    @Test("espeak-ng (the default) offers Announce and Say the time; none offers neither", arguments: ["espeak-ng", "none"])
    func followsEngine(engine: String) async throws {
        let environment = ["NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_SPEECH_ENGINE": engine]
        try await withNode(environment: environment, subscriptions: { ["\($0.node)/#", "homeassistant/device/#"] }) { node, _, client in
            let discovery = try #require(await client.latest("homeassistant/device/\(node.nodeID)/config") { _ in true }, "no discovery")
            let components = discovery["cmps"]?.objectValue ?? [:]
            let speaks = engine != "none"
            #expect((components["announce"]?["p"] == "notify") == speaks, "\(engine): announce \(components["announce"]?.serialized ?? "none")")
            #expect((components["say_time"]?["command_topic"] == .string(node.topics.command("say/time"))) == speaks)
            #expect(components["alarm_event"]?["event_types"]?.items.contains("speech_started") == true)
            let answer = try await client.request(node.topics, "say", "Hello")
            #expect((answer["status"] == "ok") == speaks, "say answered \(answer.serialized)")
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

// SPEC §16 in real node processes: what is said reaches a real ALSA file sink, measured there.

/// An instant written as ISO 8601 with its offset.
private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

/// A node that plays into the raw file `sink`, short fades, no quiet hours unless a test sets them.
private func speaking(_ sink: String, _ extra: [String: String] = [:]) -> [String: String] {
    [
        "NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_AUDIO_FADE_MS": "100", "NOISECLOCK_SPEECH_QUIET_HOURS_START": "",
        "NOISECLOCK_SPEECH_QUIET_HOURS_END": "", "NOISECLOCK_CLOCK_TIMEZONE": "UTC",
    ].merging(extra) { _, new in new }
}

extension TestClient {
    /// Every event `name` received so far.
    fileprivate func speechEvents(_ topics: Topics, _ name: String) -> [JSONValue] {
        messages(on: topics.event).compactMap { try? JSONValue.parse($0.payload) }.filter { $0["event"]?.stringValue == name }
    }

    /// The first event `name` that satisfies `predicate`.
    fileprivate func speechEvent(
        _ topics: Topics, _ name: String, where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async -> JSONValue? {
        let message = await waitFor(topics.event, timeout: .seconds(60)) { message in
            guard let value = try? JSONValue.parse(message.payload), value["event"]?.stringValue == name else { return false }
            return predicate(value)
        }
        return message.flatMap { try? JSONValue.parse($0.payload) }
    }

    /// `say` (or another verb), which must answer ok; its data.
    fileprivate func ok(_ topics: Topics, _ verb: String, _ payload: String = "") async throws -> JSONValue {
        let answer = try await request(topics, verb, payload)
        try #require(answer["status"] == "ok", "\(verb) \(payload): \(answer.serialized)")
        return try #require(answer["data"])
    }
}

extension Topics {
    fileprivate var speech: String { state("speech") }
}

/// Seconds of the sink whose 0.1 s windows are louder than `floor` (speech's voiced stretches).
private func voicedSeconds(_ audio: [Int16], floor: Double = 300) -> Double {
    Double(windowedRMS(audio, window: 0.1).filter { $0 > floor }.count) / 10
}

@Suite("Speaking: a real node says things into an ALSA file sink (SPEC §16)")
struct SpeakingTests {
    @Test("an English and a German sentence are spoken in turn: the events, B/speech, and seconds of speech in the sink")
    func englishAndGerman() async throws {
        let directory = try makeTemporaryDirectory("speech-say")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        try await withNode(environment: speaking(sink)) { node, process, client in
            #expect(await client.latest(node.topics.speech) { $0["engine"] == "espeak-ng" && $0["speaking"] == .null } != nil)
            let asked = ContinuousClock.now
            let first = try await client.ok(node.topics, "say", #"{"text":"The washing machine is done, so the laundry can be taken out and hung up to dry.","chime":false}"#)
            #expect(first["id"] == "s1" && first["queued"] == 0 && first["held"] == false, "\(first.serialized)")
            let second = try await client.ok(node.topics, "say", #"{"text":"Die Waschmaschine ist fertig.","language":"de","chime":false}"#)
            #expect(second["queued"] == 1)
            #expect(await client.latest(node.topics.speech) { $0["speaking"]?["id"] == "s1" && $0["queued"] == 1 } != nil)
            let done = try #require(await client.speechEvent(node.topics, "speech_finished") { $0["id"] == "s2" }, "log:\n\(process.log)")
            let elapsed = ContinuousClock.now - asked
            #expect(done["text"] == "Die Waschmaschine ist fertig." && done["kind"] == "say")
            let firstDone = try #require(client.speechEvents(node.topics, "speech_finished").first)
            let ms = try #require(firstDone["ms"]?.numberValue)
            // The first sentence's own time: over a second of words, and within what the test saw
            // from asking for it to the second one's end (a loaded machine stretches both alike).
            let seen = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            #expect(ms > 1000 && ms < seen, "\(firstDone.serialized), both said in \(elapsed)")
            let order = client.messages(on: node.topics.event).compactMap { try? JSONValue.parse($0.payload) }
                .filter { ($0["event"]?.stringValue ?? "").hasPrefix("speech_") }.map { "\($0["event"]?.stringValue ?? "") \($0["id"]?.stringValue ?? "")" }
            #expect(order == ["speech_started s1", "speech_finished s1", "speech_started s2", "speech_finished s2"])
            #expect(await client.latest(node.topics.speech) { $0["speaking"] == .null && $0["queued"] == 0 } != nil)
            #expect(await eventually { voicedSeconds(samples(sink)) >= 2.5 }, "heard \(voicedSeconds(samples(sink))) s")
            let left = leftChannel(samples(sink))
            #expect(bandRMS(left, low: 300, high: 3400) > totalRMS(left) * 0.5, "the energy is in the speech band")
            // The device opened on the voice, not on the engine's 750 ms of silence ahead of it.
            let start = windowedRMS(samples(sink), window: 0.01).firstIndex { $0 > 300 }
            #expect(start.map { $0 < 40 } == true, "the voice begins \(start.map { Double($0) / 100 } ?? -1) s into the sink")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("a queue of three is said in order; ten wait at most; say/stop drops what waits")
    func queue() async throws {
        let directory = try makeTemporaryDirectory("speech-queue")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withNode(environment: speaking("\(directory)/out.raw")) { node, _, client in
            for n in 1...3 { _ = try await client.ok(node.topics, "say", #"{"text":"Message number \#(n).","chime":false}"#) }
            #expect(await client.speechEvent(node.topics, "speech_finished") { $0["id"] == "s3" } != nil)
            #expect(client.speechEvents(node.topics, "speech_started").map { $0["id"]?.stringValue } == ["s1", "s2", "s3"])
            // One speaking (a minute of it: nothing ends while the others are asked for), ten
            // waiting: the twelfth is refused, and nothing of it changes.
            let minute = String(repeating: "A long message, said slowly and at length. ", count: 23)
            var answers = [try await client.request(node.topics, "say", #"{"text":"\#(minute)","chime":false}"#)]
            #expect(await client.latest(node.topics.speech) { $0["speaking"]?["id"] == "s4" } != nil)
            for n in 2...12 { answers.append(try await client.request(node.topics, "say", "Long message \(n), said slowly and at length.")) }
            #expect(answers.prefix(11).allSatisfy { $0["status"] == "ok" }, "\(answers.map(\.serialized))")
            #expect(answers[11]["error"]?["code"] == "conflict", "\(answers[11].serialized)")
            #expect(await client.latest(node.topics.speech) { $0["queued"] == 10 } != nil)
            let stopped = try await client.ok(node.topics, "say/stop")
            #expect(stopped["stopped"] == 11)
            #expect(await client.latest(node.topics.speech) { $0["queued"] == 0 && $0["speaking"] == .null } != nil)
            #expect(await eventually { client.speechEvents(node.topics, "speech_dropped").count == 11 })
            #expect(client.speechEvents(node.topics, "speech_dropped").allSatisfy { $0["reason"] == "stopped" })
        }
    }

    @Test("noise playing beside speech ducks to 20 % while it is said and comes back after")
    func ducking() async throws {
        let directory = try makeTemporaryDirectory("speech-duck")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        try await withNode(environment: speaking(sink)) { node, _, client in
            _ = try await client.ok(node.topics, "noise/play", #"{"sound":"white-noise","volume":100}"#)
            #expect(await eventually { samples(sink).count > 2 * 88_200 })
            _ = try await client.ok(node.topics, "say", #"{"text":"The washing machine is done. The dryer is done too.","chime":false}"#)
            #expect(await client.speechEvent(node.topics, "speech_finished") != nil)
            let after = samples(sink).count
            #expect(await eventually { samples(sink).count > after + 2 * 88_200 })
            _ = try await client.ok(node.topics, "noise/stop")
            // Above the voice (espeak-ng's sound ends at 11 kHz): only the noise is there.
            let left = leftChannel(samples(sink))
            let window = 4410
            let levels = stride(from: 0, to: left.count - window, by: window).map { bandRMS(Array(left[$0..<($0 + window)]), low: 12_500, high: 15_000) }
            let full = try #require(levels.dropFirst(3).first)
            #expect(full > 100, "the noise is heard: \(full)")
            let ducked = try #require(levels.firstIndex { $0 < full * 0.3 }, "never ducked: \(levels.map { Int($0) })")
            let run = levels[ducked...].prefix { $0 < full * 0.3 }
            #expect(run.count >= 15, "ducked for \(run.count) windows of 0.1 s: \(levels.map { Int($0) })")
            let share = run.dropFirst(3).dropLast(3).reduce(0, +) / Double(max(1, run.count - 6)) / full
            #expect(share > 0.14 && share < 0.26, "the noise kept \(share) of its level while speaking")
            let back = levels[(ducked + run.count)...].dropFirst(3).prefix(5)
            #expect(back.allSatisfy { $0 > full * 0.8 }, "the noise came back: \(back.map { Int($0) })")
        }
    }

    @Test("a ringing timer interrupts speech; what waits is said after the ring")
    func interrupted() async throws {
        let directory = try makeTemporaryDirectory("speech-interrupt")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withNode(environment: speaking("\(directory)/out.raw")) { node, _, client in
            let long = String(repeating: "This is a long announcement that goes on and on. ", count: 8)
            _ = try await client.ok(node.topics, "say", #"{"text":"\#(long)","chime":false}"#)
            #expect(await client.speechEvent(node.topics, "speech_started") != nil)
            _ = try await client.ok(node.topics, "timer/start", #"{"seconds":1}"#)
            let dropped = try #require(await client.speechEvent(node.topics, "speech_dropped"))
            #expect(dropped["id"] == "s1" && dropped["reason"] == "interrupted", "\(dropped.serialized)")
            #expect(client.speechEvents(node.topics, "speech_finished").isEmpty)
            _ = try await client.ok(node.topics, "say", #"{"text":"After the timer.","chime":false}"#)
            #expect(await client.latest(node.topics.speech) { $0["queued"] == 1 && $0["speaking"] == .null } != nil, "it waits for the ring")
            _ = try await client.ok(node.topics, "dismiss")
            let after = try #require(await client.speechEvent(node.topics, "speech_finished"))
            #expect(after["id"] == "s2" && after["text"] == "After the timer.")
        }
    }

    @Test("in quiet hours a normal announcement waits for their end; urgent ones and the talking clock are spoken")
    func quietHours() async throws {
        let directory = try makeTemporaryDirectory("speech-quiet")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = try await FakeTime(at: at("2026-06-15T06:58:00+00:00"))
        let environment = clock.environment.merging(speaking("\(directory)/out.raw", [
            "NOISECLOCK_SPEECH_QUIET_HOURS_START": "22:30", "NOISECLOCK_SPEECH_QUIET_HOURS_END": "07:00",
        ])) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let held = try await client.ok(node.topics, "say", #"{"text":"Good morning, the bakery is open.","chime":false}"#)
            #expect(held["held"] == true && held["queued"] == 1)
            #expect(await client.latest(node.topics.speech) { $0["quiet"] == true && $0["held"] == 1 } != nil)
            _ = try await client.ok(node.topics, "say", #"{"text":"The door is open.","priority":"urgent","chime":false}"#)
            #expect(await client.speechEvent(node.topics, "speech_finished") { $0["id"] == "s2" } != nil)
            let time = try await client.ok(node.topics, "say/time")
            #expect(time["text"] == "It's six fifty-eight in the morning, Monday, June 15th.", "\(time.serialized)")
            #expect(await client.speechEvent(node.topics, "speech_finished") { $0["id"] == "s3" } != nil)
            #expect(client.speechEvents(node.topics, "speech_started").allSatisfy { $0["id"] != "s1" }, "held in quiet hours")
            // The quiet hours end at 07:00: the held message is said then.
            try clock.set(to: at("2026-06-15T06:59:58+00:00"))
            let started = try #require(await client.speechEvent(node.topics, "speech_started") { $0["id"] == "s1" }, "log:\n\(process.log)")
            #expect(at(try #require(started["at"]?.stringValue)) >= at("2026-06-15T07:00:00+00:00"), "\(started.serialized)")
            #expect(await client.latest(node.topics.speech) { $0["quiet"] == false && $0["held"] == 0 } != nil)
        }
    }

    @Test("an alarm with briefing: true is followed, after its dismiss, by the briefing: its text in the event, then spoken")
    func briefing() async throws {
        let directory = try makeTemporaryDirectory("speech-briefing")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = try await FakeTime(at: at("2026-12-25T07:00:00+00:00"))
        let environment = clock.environment.merging(speaking("\(directory)/out.raw", ["NOISECLOCK_WAKE_HOLIDAYS_COUNTRY": "DE"])) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let alarm = try await client.ok(node.topics, "alarm/add", #"{"time":"07:30","briefing":true,"fade_in_s":0}"#)
            #expect(alarm["briefing"] == true)
            try clock.set(to: at("2026-12-25T07:29:58+00:00"))
            #expect(await client.speechEvent(node.topics, "alarm_ringing") != nil, "log:\n\(process.log)")
            _ = try await client.ok(node.topics, "dismiss")
            let briefing = try #require(await client.speechEvent(node.topics, "briefing"))
            #expect(briefing["alarm_id"] == alarm["id"])
            let text = try #require(briefing["text"]?.stringValue)
            #expect(text.hasPrefix("Good morning. It's seven thirty, Friday, December 25th."), "\(text)")
            #expect(text.contains("Today is Christmas Day."), "\(text)")
            let spoken = try #require(await client.speechEvent(node.topics, "speech_finished") { $0["kind"] == "briefing" })
            #expect(spoken["text"]?.stringValue == text)
        }
    }

    @Test("speech.engine: command, with espeak-ng --stdout: spoken; one that hangs or writes garbage is a clear error and the queue goes on")
    func command() async throws {
        let directory = try makeTemporaryDirectory("speech-command")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        // The text picks the engine's fault: garbage, a hang, or real speech.
        let command = #"t=$(cat); case "$t" in *garbage*) echo 'not a sound';; *hang*) sleep 60;; *) printf '%s' "$t" | espeak-ng --stdin --stdout -v "$NOISECLOCK_VOICE";; esac"#
        try await withNode(environment: speaking(sink, ["NOISECLOCK_SPEECH_ENGINE": "command", "NOISECLOCK_SPEECH_COMMAND": command])) { node, _, client in
            #expect(await client.latest(node.topics.speech) { $0["engine"] == "command" } != nil)
            _ = try await client.ok(node.topics, "say", #"{"text":"garbage please","chime":false}"#)
            _ = try await client.ok(node.topics, "say", #"{"text":"hang please","chime":false}"#)
            _ = try await client.ok(node.topics, "say", #"{"text":"Die Waschmaschine ist fertig.","language":"de","chime":false}"#)
            let garbage = try #require(await client.speechEvent(node.topics, "speech_dropped") { $0["id"] == "s1" })
            #expect(garbage["reason"] == "failed")
            #expect(garbage["error"]?.stringValue?.contains("not WAV") == true, "\(garbage.serialized)")
            #expect(await client.latest(node.topics.speech) { $0["error"]?.stringValue?.contains("not WAV") == true } != nil)
            let hang = try #require(await client.speechEvent(node.topics, "speech_dropped") { $0["id"] == "s2" })
            #expect(hang["error"] == "the speech engine sent nothing for 10 s", "\(hang.serialized)")
            #expect(await client.speechEvent(node.topics, "speech_finished") { $0["id"] == "s3" } != nil)
            #expect(await client.latest(node.topics.speech) { $0["error"] == .null } != nil, "speech that works clears the error")
            #expect(await eventually { voicedSeconds(samples(sink)) >= 1.0 }, "heard \(voicedSeconds(samples(sink))) s")
        }
    }

    @Test("the talking clock on a smart button: a press says the time, a double press the next alarm")
    func button() async throws {
        let directory = try makeTemporaryDirectory("speech-button")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = """
            buttons:
              - topic: zigbee2mqtt/nightstand/action
                actions: {single: say/time, double: say/next_alarm}
            """
        try await withNode(environment: speaking("\(directory)/out.raw"), configuration: configuration) { node, _, client in
            client.publish("zigbee2mqtt/nightstand/action", "single")
            let time = try #require(await client.speechEvent(node.topics, "speech_finished") { $0["kind"] == "time" })
            #expect(time["text"]?.stringValue?.hasPrefix("It's ") == true, "\(time.serialized)")
            _ = try await client.ok(node.topics, "settings", #"{"language":"de"}"#)
            client.publish("zigbee2mqtt/nightstand/action", "double")
            let next = try #require(await client.speechEvent(node.topics, "speech_finished") { $0["kind"] == "next_alarm" })
            #expect(next["text"] == "Es ist kein Wecker gestellt.")
        }
    }

    @Test("speech.engine: none refuses say with unavailable")
    func none() async throws {
        try await withNode(environment: ["NOISECLOCK_AUDIO_DEVICE": "null", "NOISECLOCK_SPEECH_ENGINE": "none"]) { node, _, client in
            let answer = try await client.request(node.topics, "say", "Hello")
            #expect(answer["error"]?["code"] == "unavailable", "\(answer.serialized)")
            #expect(await client.latest(node.topics.speech) { $0["engine"] == "none" } != nil)
        }
    }
}

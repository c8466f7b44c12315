import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// Alarms in real node processes whose wall clock is driven by libfaketime (FakeTime): the clock is
// set or jumped instead of waited for, while every sleep inside the node stays real.

/// An instant written as ISO 8601 with its offset.
private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

extension JSONValue {
    /// The item at `index` of an array.
    fileprivate subscript(_ index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }
}

private let everyDay = #"["mon","tue","wed","thu","fri","sat","sun"]"#

extension TestClient {
    /// Every event `name` received so far.
    fileprivate func events(_ topics: Topics, _ name: String) -> [JSONValue] {
        messages(on: topics.event).compactMap(json).filter { $0["event"]?.stringValue == name }
    }

    /// The first event `name` that satisfies `predicate`, waiting up to `timeout` (long: the wait
    /// ends at the event, and on a loaded machine the test's own tasks can be held up for seconds).
    fileprivate func event(
        _ topics: Topics, _ name: String, timeout: Duration = .seconds(20), where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async -> JSONValue? {
        let message = await waitFor(topics.event, timeout: timeout) { message in
            guard let value = json(message), value["event"]?.stringValue == name else { return false }
            return predicate(value)
        }
        return message.flatMap(json)
    }

}

@Suite("Alarms in a real node process, with its wall clock driven by libfaketime")
struct AlarmTests {
    /// The environment of a node in Europe/Berlin whose wall clock is `clock`; audio to `audio` (ALSA's null PCM unless a test listens).
    func environment(_ clock: FakeTime, audio: String = "null") -> [String: String] {
        clock.environment.merging(["NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": audio]) { _, new in new }
    }

    /// `alarm/add`, which must answer ok; returns the alarm.
    func add(_ client: TestClient, _ node: NodeProcess, _ payload: String) async throws -> JSONValue {
        let answer = try await client.request(node.topics, "alarm/add", payload)
        try #require(answer["status"] == "ok", "alarm/add \(payload): \(answer.serialized)")
        return try #require(answer["data"])
    }

    func stop(_ process: ChildProcess) async {
        process.signal(SIGTERM)
        #expect(await process.waitForExit(timeout: eventHangGuard) == 0, "no clean stop; log:\n\(process.log)")
    }

    @Test("a one-shot alarm rings with a rising tone, snoozes, rings again at the snooze's end, is dismissed and disables itself")
    func ringSnoozeDismiss() async throws {
        let directory = try makeTemporaryDirectory("alarm-ring")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sink = "\(directory)/out.raw"
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        try await withNode(environment: environment(clock, audio: "file:'\(sink)',raw")) { node, process, client in
            let alarm = try await add(client, node, #"{"time":"07:30","fade_in_s":4,"volume":100}"#)
            let id = try #require(alarm["id"]?.stringValue)
            #expect(alarm["days"] == [])
            #expect(alarm["enabled"] == true)
            #expect(alarm["next_fire"] == "2026-06-15T07:30:00+02:00")

            try clock.set(to: at("2026-06-15T07:29:58+02:00"))
            let ringing = try #require(await client.event(node.topics, "alarm_ringing"), "no alarm_ringing; log:\n\(process.log)")
            #expect(ringing["alarm_id"]?.stringValue == id)
            #expect(ringing["label"] == "Alarm")
            #expect(ringing["fires_at"] == "2026-06-15T07:30:00+02:00")
            #expect(ringing["snooze_count"] == 0)
            let ringAt = at(try #require(ringing["at"]?.stringValue))
            #expect(ringAt >= at("2026-06-15T07:30:00+02:00"), "rang early: \(ringing.serialized)")
            let state = await client.latest(node.topics.alarmState) { $0["state"] == "ringing" }
            #expect(state?["state"] == "ringing")
            #expect(state?["alarm_id"]?.stringValue == id)
            #expect(state?["snooze_count"] == 0)

            // The tone fades in over 4 s: 3.6 s of it in the sink (which runs up to half a second ahead).
            let enough = await eventually(timeout: .seconds(10)) { samples(sink).count >= Int(3.6 * 88_200) }
            #expect(enough, "the sink got \(samples(sink).count / 88_200) s of audio; log:\n\(process.log)")
            let audio = samples(sink)
            let early = rms(audio, from: 0.1, to: 1.1), late = rms(audio, from: 2.5, to: 3.5)
            #expect(late > 1_000, "the alarm tone is (nearly) silent: late RMS \(late)")
            #expect(late > 2 * early, "the tone does not rise with its fade-in: early RMS \(early), late RMS \(late)")

            let snoozed = try await client.request(node.topics, "snooze", #"{"minutes":1}"#)
            #expect(snoozed["status"] == "ok", "\(snoozed.serialized)")
            #expect(snoozed["data"]?["state"] == "snoozed")
            let event = try #require(await client.event(node.topics, "alarm_snoozed"))
            #expect(event["alarm_id"]?.stringValue == id)
            let untilText = try #require(event["until"]?.stringValue)
            let until = at(untilText)
            let snoozeAsked = at(try #require(event["at"]?.stringValue))
            #expect(until.timeIntervalSince(snoozeAsked) >= 59 && until.timeIntervalSince(snoozeAsked) <= 61, "\(event.serialized)")
            let snoozedState = await client.latest(node.topics.alarmState) { $0["state"] == "snoozed" }
            #expect(snoozedState?["snoozed_until"]?.stringValue == untilText)
            #expect(snoozedState?["snooze_count"] == 1)

            // Nearly a minute later (a jump): it rings again when the snooze ends.
            try clock.set(to: until.addingTimeInterval(-1.5))
            let again = try #require(
                await client.event(node.topics, "alarm_ringing") { $0["snooze_count"] == 1 }, "no ring after the snooze; log:\n\(process.log)")
            #expect(again["fires_at"] == "2026-06-15T07:30:00+02:00")
            #expect(at(try #require(again["at"]?.stringValue)) >= until, "rang before the snooze ended: \(again.serialized)")
            #expect(await client.latest(node.topics.alarmState) { $0["state"] == "ringing" && $0["snooze_count"] == 1 } != nil)

            let dismissed = try await client.request(node.topics, "dismiss")
            #expect(dismissed["status"] == "ok", "\(dismissed.serialized)")
            #expect(await client.event(node.topics, "alarm_dismissed") { $0["alarm_id"]?.stringValue == id } != nil)
            let idle = await client.latest(node.topics.alarmState) { $0["state"] == "idle" }
            #expect(idle?["alarm_id"] == .null)
            #expect(idle?["snoozed_until"] == .null)

            // The one-shot alarm has finished: it is off, and nothing is next.
            let alarms = await client.latest(node.topics.alarms) { $0 == .array([]) ? false : $0[0]?["enabled"] == false }
            #expect(alarms?[0]?["id"]?.stringValue == id)
            #expect(alarms?[0]?["enabled"] == false, "\(alarms?.serialized ?? "no B/alarms")")
            #expect(alarms?[0]?["next_fire"] == .null)
            let next = await client.latest(node.topics.alarmNext) { $0["id"] == .null }
            #expect(next == ["id": nil, "label": nil, "fires_at": nil, "in_s": nil, "earlier_by_min": 0, "reason": nil, "event": nil], "\(next?.serialized ?? "no B/alarm/next")")
            #expect(client.events(node.topics, "alarm_ringing").count == 2)
            await stop(process)
        }
    }

    @Test("a repeating alarm: a jump past it rings at once, a jump far past the next is missed, a jump back rings nothing twice")
    func clockJumps() async throws {
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        try await withNode(environment: environment(clock)) { node, process, client in
            let alarm = try await add(client, node, #"{"time":"07:30","label":"Daily","days":\#(everyDay)}"#)
            let id = try #require(alarm["id"]?.stringValue)
            #expect(alarm["next_fire"] == "2026-06-15T07:30:00+02:00")

            // 3 minutes past it (within the grace): it rings at once.
            try clock.set(to: at("2026-06-15T07:33:00+02:00"))
            let ringing = try #require(await client.event(node.topics, "alarm_ringing"), "log:\n\(process.log)")
            #expect(ringing["alarm_id"]?.stringValue == id)
            #expect(ringing["fires_at"] == "2026-06-15T07:30:00+02:00")
            #expect(at(try #require(ringing["at"]?.stringValue)) < at("2026-06-15T07:33:10+02:00"), "not at once: \(ringing.serialized)")
            #expect(client.events(node.topics, "alarm_missed").isEmpty)
            #expect(try await client.request(node.topics, "dismiss")["status"] == "ok")
            #expect(await client.latest(node.topics.alarmState) { $0["state"] == "idle" } != nil)

            // 2 hours past the next occurrence (beyond the 10 min grace): missed, not rung.
            try clock.set(to: at("2026-06-16T09:30:00+02:00"))
            let missed = try #require(await client.event(node.topics, "alarm_missed"), "no alarm_missed; log:\n\(process.log)")
            #expect(missed["alarm_id"]?.stringValue == id)
            #expect(missed["fires_at"] == "2026-06-16T07:30:00+02:00")
            try await Task.sleep(for: .milliseconds(500))
            #expect(client.events(node.topics, "alarm_ringing").count == 1)
            #expect(client.latest(node.topics.alarmState)?["state"] == "idle")
            let afterMissed = await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-06-17T07:30:00+02:00" }
            #expect(afterMissed?["fires_at"] == "2026-06-17T07:30:00+02:00", "\(afterMissed?.serialized ?? "")")

            // Back a day, to just before the occurrence that already rang, and let it pass: it does not ring again.
            try clock.set(to: at("2026-06-15T07:29:58+02:00"))
            try await Task.sleep(for: .seconds(3.5))
            #expect(clock.now > at("2026-06-15T07:30:01+02:00"))
            #expect(client.events(node.topics, "alarm_ringing").count == 1, "\(client.events(node.topics, "alarm_ringing"))")
            #expect(client.events(node.topics, "alarm_missed").count == 1)
            #expect(client.latest(node.topics.alarmState)?["state"] == "idle")
            #expect(client.latest(node.topics.alarmNext)?["fires_at"] == "2026-06-17T07:30:00+02:00")
            #expect(process.isRunning)
            await stop(process)
        }
    }

    @Test("restart across a fire time: stopped before 07:30, started at 07:33 it rings at once; started at 07:45 it reports alarm_missed")
    func restartAcrossFireTime() async throws {
        let clock = try await FakeTime(at: at("2026-06-15T07:20:00+02:00"))
        try await withNode(environment: environment(clock)) { node, process, client in
            var process = process
            let alarm = try await add(client, node, #"{"time":"07:30","label":"Work","days":\#(everyDay)}"#)
            let id = try #require(alarm["id"]?.stringValue)
            await stop(process)

            // Down across 07:30, back at 07:33: within the grace, it rings at once.
            try clock.set(to: at("2026-06-15T07:33:00+02:00"))
            client.clear()
            process = try await node.startOnline(seenBy: client)
            let ringing = try #require(await client.event(node.topics, "alarm_ringing"), "no ring after the restart; log:\n\(process.log)")
            #expect(ringing["alarm_id"]?.stringValue == id)
            #expect(ringing["label"] == "Work")
            #expect(ringing["fires_at"] == "2026-06-15T07:30:00+02:00")
            #expect(at(try #require(ringing["at"]?.stringValue)) < at("2026-06-15T07:33:10+02:00"))
            #expect(await client.latest(node.topics.alarmState) { $0["state"] == "ringing" }?["alarm_id"]?.stringValue == id)
            #expect(try await client.request(node.topics, "dismiss")["status"] == "ok")
            #expect(await client.latest(node.topics.alarmState) { $0["state"] == "idle" } != nil)
            await stop(process)

            // Down across the next day's 07:30, back at 07:45: 15 minutes late is beyond the grace.
            try clock.set(to: at("2026-06-16T07:45:00+02:00"))
            client.clear()
            process = try await node.startOnline(seenBy: client)
            let missed = try #require(await client.event(node.topics, "alarm_missed"), "no alarm_missed after the restart; log:\n\(process.log)")
            #expect(missed["alarm_id"]?.stringValue == id)
            #expect(missed["fires_at"] == "2026-06-16T07:30:00+02:00")
            let next = await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-06-17T07:30:00+02:00" }
            #expect(next?["fires_at"] == "2026-06-17T07:30:00+02:00", "\(next?.serialized ?? "no B/alarm/next")")
            try await Task.sleep(for: .milliseconds(500))
            #expect(client.events(node.topics, "alarm_ringing").isEmpty, "\(client.events(node.topics, "alarm_ringing"))")
            #expect(client.latest(node.topics.alarmState)?["state"] == "idle")
            await stop(process)
        }
    }

    @Test("a snooze survives kill -9: after the restart the state is snoozed with the same end, and it rings then, not earlier")
    func snoozeSurvivesCrash() async throws {
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        try await withNode(environment: environment(clock)) { node, process, client in
            var process = process
            let alarm = try await add(client, node, #"{"time":"07:30","label":"Nap"}"#)
            let id = try #require(alarm["id"]?.stringValue)
            try clock.set(to: at("2026-06-15T07:29:58+02:00"))
            _ = try #require(await client.event(node.topics, "alarm_ringing"), "log:\n\(process.log)")
            let snoozed = try await client.request(node.topics, "snooze", #"{"minutes":5}"#)
            #expect(snoozed["status"] == "ok", "\(snoozed.serialized)")
            let untilText = try #require(snoozed["data"]?["snoozed_until"]?.stringValue)
            let until = at(untilText)

            process.signal(SIGKILL)
            _ = await process.waitForExit(timeout: eventHangGuard)
            client.clear()
            process = try await node.startOnline(seenBy: client)
            let state = await client.latest(node.topics.alarmState) { $0["state"] == "snoozed" }
            #expect(state?["state"] == "snoozed", "\(state?.serialized ?? "no B/alarm/state"); log:\n\(process.log)")
            #expect(state?["alarm_id"]?.stringValue == id)
            #expect(state?["snoozed_until"]?.stringValue == untilText)
            #expect(state?["snooze_count"] == 1)
            #expect(client.events(node.topics, "alarm_ringing").isEmpty, "rang again on restart")

            // Three seconds before the snooze ends; then it rings, at its end and not before. The
            // node's own `at` says when it rang: a look after a real-time wait would race the faked
            // clock, which runs on meanwhile (a loaded run held this test back past the end, and
            // the ring it then saw was the right one, at 07:35:00).
            try clock.set(to: until.addingTimeInterval(-3))
            let again = try #require(await client.event(node.topics, "alarm_ringing"), "no ring at the snooze's end; log:\n\(process.log)")
            #expect(client.events(node.topics, "alarm_ringing").count == 1, "\(client.events(node.topics, "alarm_ringing"))")
            #expect(again["alarm_id"]?.stringValue == id)
            #expect(again["snooze_count"] == 1)
            #expect(again["fires_at"] == "2026-06-15T07:30:00+02:00")
            #expect(at(try #require(again["at"]?.stringValue)) >= until, "\(again.serialized) before \(untilText)")
            #expect(try await client.request(node.topics, "dismiss")["status"] == "ok")
            await stop(process)
        }
    }

    @Test("daylight saving in a real process: a daily 02:30 in Europe/Berlin rings at 03:30+02:00 on the spring-forward day")
    func springForward() async throws {
        let clock = try await FakeTime(at: at("2026-03-29T01:00:00+01:00"))
        try await withNode(environment: environment(clock)) { node, process, client in
            let alarm = try await add(client, node, #"{"time":"02:30","days":\#(everyDay)}"#)
            #expect(alarm["next_fire"] == "2026-03-29T03:30:00+02:00")

            // Through the gap: 01:59:58+01:00 is followed by 03:00:00+02:00; nothing rings at the change.
            try clock.set(to: at("2026-03-29T01:59:58+01:00"))
            try await Task.sleep(for: .seconds(3))
            #expect(clock.now > at("2026-03-29T03:00:00+02:00"))
            #expect(client.events(node.topics, "alarm_ringing").isEmpty, "\(client.events(node.topics, "alarm_ringing"))")
            #expect(client.events(node.topics, "alarm_missed").isEmpty)
            let next = await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-03-29T03:30:00+02:00" }
            #expect(next?["fires_at"] == "2026-03-29T03:30:00+02:00")

            try clock.set(to: at("2026-03-29T03:29:58+02:00"))
            let ringing = try #require(await client.event(node.topics, "alarm_ringing"), "log:\n\(process.log)")
            #expect(ringing["fires_at"] == "2026-03-29T03:30:00+02:00")
            #expect(at(try #require(ringing["at"]?.stringValue)) >= at("2026-03-29T03:30:00+02:00"), "\(ringing.serialized)")
            #expect(client.events(node.topics, "alarm_missed").isEmpty)
            await stop(process)
        }
    }

    @Test("noiseclock ctl: alarm/add prints the ok answer and exits 0; snooze with nothing ringing exits non-zero")
    func ctlExamples() async throws {
        try await withNode(environment: ["NOISECLOCK_AUDIO_DEVICE": "null"]) { node, process, client in
            let added = try await node.ctl(["alarm/add", #"{"time":"06:45","days":["mon","tue"]}"#])
            #expect(added.code == 0, "\(added.output)")
            let line = added.output.split(separator: "\n").first { $0.hasPrefix("{") }
            let answer = try JSONValue.parse(Array((line ?? "").utf8))
            #expect(answer["status"] == "ok", "\(added.output)")
            #expect(answer["data"]?["time"] == "06:45")
            #expect(answer["data"]?["days"] == ["mon", "tue"])
            let id = try #require(answer["data"]?["id"]?.stringValue)
            let alarms = await client.latest(node.topics.alarms) { $0[0]?["id"]?.stringValue == id }
            #expect(alarms?[0]?["days"] == ["mon", "tue"])

            let snooze = try await node.ctl(["snooze"])
            #expect(snooze.code != 0, "\(snooze.output)")
            #expect(snooze.output.contains("conflict"), "\(snooze.output)")
            #expect(client.latest(node.topics.alarmState)?["state"] == "idle")
            await stop(process)
        }
    }

    @Test("noiseclock/all/cmd/dismiss dismisses the ringing alarm on two nodes at once")
    func dismissAll() async throws {
        let clock = try await FakeTime(at: at("2026-06-15T07:00:00+02:00"))
        try await withBroker { broker in
            let second = try NodeProcess(port: broker.port, environment: environment(clock))
            try await withNode(
                on: broker, environment: environment(clock), subscriptions: { ["\($0.node)/#", "\(second.topics.node)/#"] }
            ) { first, process, client in
                try await withStopping(second) { second in
                    let processes = [process, try await second.startOnline(seenBy: client)]
                    for node in [first, second] {
                        _ = try await add(client, node, #"{"time":"07:30"}"#)
                    }
                    try clock.set(to: at("2026-06-15T07:29:58+02:00"))
                    for (node, process) in zip([first, second], processes) {
                        #expect(await client.event(node.topics, "alarm_ringing") != nil, "\(node.nodeID) did not ring; log:\n\(process.log)")
                        #expect(await client.latest(node.topics.alarmState) { $0["state"] == "ringing" } != nil)
                    }

                    client.publish(first.topics.allCommand("dismiss"), "PRESS")
                    for node in [first, second] {
                        let response = await client.waitFor(node.topics.response("dismiss"))
                        #expect(response.flatMap(json)?["status"] == "ok", "\(node.nodeID): \(response?.text ?? "no answer")")
                        #expect(await client.event(node.topics, "alarm_dismissed") != nil, "\(node.nodeID) not dismissed")
                        #expect(await client.latest(node.topics.alarmState) { $0["state"] == "idle" } != nil)
                    }
                    for process in processes { await stop(process) }
                }
            }
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

// SPEC §17's alarms in real node processes: `earlier_if` from what an automation publishes as the
// weather, and calendar alarms from a feed in a file, over HTTP, and from servers that fail.

extension Topics {
    fileprivate var alarmNext: String { state("alarm/next") }
    fileprivate var calendar: String { state("calendar") }
    fileprivate var alarms: String { state("alarms") }
}

extension JSONValue {
    /// The item at `index` of an array.
    fileprivate func item(_ index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }
}

/// An instant written as ISO 8601 with its offset.
private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

/// A feed: a dentist's appointment at 07:30 UTC on Monday 7 December 2026, and a day of "Urlaub"
/// on Tuesday the 8th.
let dentistFeed = """
    BEGIN:VCALENDAR\r
    VERSION:2.0\r
    PRODID:-//NoiseClock tests//EN\r
    BEGIN:VEVENT\r
    UID:dentist@noiseclock.test\r
    DTSTAMP:20261201T000000Z\r
    DTSTART:20261207T073000Z\r
    DTEND:20261207T080000Z\r
    SUMMARY:Dentist\r
    END:VEVENT\r
    BEGIN:VEVENT\r
    UID:off@noiseclock.test\r
    DTSTAMP:20261201T000000Z\r
    DTSTART;VALUE=DATE:20261208\r
    DTEND;VALUE=DATE:20261209\r
    SUMMARY:Urlaub\r
    END:VEVENT\r
    END:VCALENDAR\r

    """

@Suite("The day in a real node: earlier_if and calendar alarms (SPEC §17)")
struct DayAlarmTests {
    @Test("snow forecast for the morning: the alarm rings earlier, says so in B/alarm/next, and the decision 8 hours ahead holds")
    func earlierForSnow() async throws {
        let clock = try await FakeTime(at: at("2026-12-06T20:00:00+00:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_WEATHER_SOURCE": "mqtt", "NOISECLOCK_WEATHER_TOPIC": "home/weather/nightstand", "NOISECLOCK_CLOCK_TIMEZONE": "UTC",
            "NOISECLOCK_AUDIO_DEVICE": "null",
        ]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let added = try await client.request(
                node.topics, "alarm/add", #"{"time":"07:00","days":["mon","tue","wed","thu","fri","sat","sun"],"earlier_if":{"snow":20,"rain":5},"fade_in_s":0}"#)
            #expect(added["status"] == "ok" && added["data"]?["earlier_if"] == ["snow": 20, "ice": 0, "rain": 5], "\(added)")
            let own = try #require(await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-12-07T07:00:00+00:00" }, "log:\n\(process.log)")
            #expect(own["earlier_by_min"] == 0 && own["reason"] == .null)
            // Snow at 05:00 and rain at 06:00: the most minutes win.
            client.publish("home/weather/nightstand", #"""
                {"condition":"cloudy","temperature":-1,"forecast":[{"datetime":"2026-12-07T05:00:00+00:00","condition":"snowy","temperature":-2},
                 {"datetime":"2026-12-07T06:00:00+00:00","condition":"rainy","temperature":1}]}
                """#)
            let earlier = try #require(await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-12-07T06:40:00+00:00" }, "log:\n\(process.log)")
            #expect(earlier["earlier_by_min"] == 20 && earlier["reason"] == "snow" && earlier["event"] == .null)
            let listed = try #require(await client.latest(node.topics.alarms) { $0.item(0)?["next"]?["reason"] == "snow" })
            #expect(listed.item(0)?["next_fire"] == "2026-12-07T06:40:00+00:00")
            // At 23:00, eight hours before 07:00, it is decided; a clear forecast after that does not move it back.
            try clock.set(to: at("2026-12-06T23:00:30+00:00"))
            let decided = await client.waitFor(node.topics.alarmNext, timeout: .seconds(30)) { message in
                (try? JSONValue.parse(message.payload)["in_s"]?.numberValue).flatMap { $0 }.map { $0 <= 8 * 3600 } ?? false
            }
            #expect(decided != nil, "the node saw 23:00")
            client.publish("home/weather/nightstand", #"{"condition":"sunny","temperature":2,"forecast":[]}"#)
            _ = try #require(await client.latest(node.topics.state("weather")) { $0["condition"] == 0 })
            _ = try await client.request(node.topics, "status")
            let kept = try #require(await client.latest(node.topics.alarmNext) { $0["fires_at"] != .null })
            #expect(kept["fires_at"] == "2026-12-07T06:40:00+00:00" && kept["reason"] == "snow", "\(kept)")
            // And it rings then.
            try clock.set(to: at("2026-12-07T06:39:58+00:00"))
            let rang = await client.waitFor(node.topics.event, timeout: .seconds(60)) { (try? JSONValue.parse($0.payload)["event"]) == "alarm_ringing" }
            let fired = try #require(rang.flatMap { try? JSONValue.parse($0.payload) })
            #expect(fired["fires_at"] == "2026-12-07T06:40:00+00:00", "\(fired)")
        }
    }

    @Test("an alarm edited after its decision is decided again at once: earlier_if snow 40 rings 40 minutes early, snow 0 on time; a new label keeps the decision")
    func editedAfterTheDecision() async throws {
        let clock = try await FakeTime(at: at("2026-12-06T23:00:00+00:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_WEATHER_SOURCE": "mqtt", "NOISECLOCK_WEATHER_TOPIC": "home/weather/nightstand", "NOISECLOCK_CLOCK_TIMEZONE": "UTC",
            "NOISECLOCK_AUDIO_DEVICE": "null",
        ]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            client.publish("home/weather/nightstand", #"""
                {"condition":"snowy","temperature":-1,"forecast":[{"datetime":"2026-12-07T06:00:00+00:00","condition":"snowy","temperature":-2}]}
                """#)
            _ = try #require(await client.latest(node.topics.state("weather")) { $0["kind"] == "snow" })
            // Added 7.5 hours ahead: decided with the answer.
            let added = try await client.request(node.topics, "alarm/add", #"{"time":"06:30","earlier_if":{"snow":20},"fade_in_s":0}"#)
            let id = try #require(added["data"]?["id"]?.stringValue, "\(added)")
            #expect(added["data"]?["next_fire"] == "2026-12-07T06:10:00+00:00", "\(added)")
            // The forecast clears: the decision holds.
            client.publish("home/weather/nightstand", #"{"condition":"sunny","temperature":2,"forecast":[]}"#)
            _ = try #require(await client.latest(node.topics.state("weather")) { $0["condition"] == 0 })
            let relabelled = try await client.request(node.topics, "alarm/update", #"{"id":"\#(id)","label":"Early shift"}"#)
            #expect(relabelled["data"]?["next_fire"] == "2026-12-07T06:10:00+00:00", "a new label keeps the decision: \(relabelled)")
            // Snow again, and the user asks for 40 minutes: decided anew, now.
            client.publish("home/weather/nightstand", #"""
                {"condition":"snowy","temperature":-1,"forecast":[{"datetime":"2026-12-07T06:00:00+00:00","condition":"snowy","temperature":-2}]}
                """#)
            _ = try #require(await client.latest(node.topics.state("weather")) { $0["kind"] == "snow" })
            let more = try await client.request(node.topics, "alarm/update", #"{"id":"\#(id)","earlier_if":{"snow":40}}"#)
            #expect(more["data"]?["next_fire"] == "2026-12-07T05:50:00+00:00", "\(more)")
            let next = try #require(await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-12-07T05:50:00+00:00" }, "log:\n\(process.log)")
            #expect(next["earlier_by_min"] == 40 && next["reason"] == "snow")
            // Snow set to 0: it rings at its own time, though snow is forecast.
            let none = try await client.request(node.topics, "alarm/update", #"{"id":"\#(id)","earlier_if":{"snow":0}}"#)
            #expect(none["data"]?["next_fire"] == "2026-12-07T06:30:00+00:00", "\(none)")
            let own = try #require(await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-12-07T06:30:00+00:00" })
            #expect(own["earlier_by_min"] == 0 && own["reason"] == .null, "\(own)")
        }
    }

    @Test("a bad earlier_if or calendar names the field and changes nothing; calendar.feed must name a configured feed")
    func badFields() async throws {
        try await withNode(environment: ["NOISECLOCK_AUDIO_DEVICE": "null"]) { node, _, client in
            for (payload, field) in [
                (#"{"time":"07:00","earlier_if":{"snow":90}}"#, "earlier_if.snow"), (#"{"time":"07:00","earlier_if":{"fog":5}}"#, "earlier_if.fog"),
                (#"{"time":"07:00","calendar":{"feed":"work"}}"#, "calendar.feed"), (#"{"time":"07:00","calendar":"work"}"#, "calendar"),
            ] {
                let answer = try await client.request(node.topics, "alarm/add", payload)
                #expect(answer["status"] == "error" && answer["error"]?["field"] == .string(field), "\(payload): \(answer)")
            }
            let listed = try #require(await client.latest(node.topics.alarms) { _ in true })
            #expect(listed == [], "nothing was added")
        }
    }

    /// A node at 20:00 UTC on Sunday 6 December 2026 with the feeds of `feeds` (YAML items).
    private func calendarNode<T>(
        _ clock: FakeTime, state: String? = nil, feeds: String, _ body: (NodeProcess, ChildProcess, TestClient) async throws -> T
    ) async throws -> T {
        let environment = clock.environment.merging(["NOISECLOCK_CLOCK_TIMEZONE": "UTC", "NOISECLOCK_AUDIO_DEVICE": "null"]) { _, new in new }
        if let state { try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true) }
        return try await withNode(stateDirectory: state, environment: environment, configuration: "calendar:\n  feeds:\n\(feeds)") { node, process, client in
            try await body(node, process, client)
        }
    }

    private let followsSchool = #"{"time":"07:00","days":["mon","tue","wed","thu","fri","sat","sun"],"calendar":{"feed":"school","lead_min":60},"fade_in_s":0}"#

    @Test("a feed in a file: the alarm rings an hour before the first event and says why; the all-day Urlaub is a day off; B/calendar")
    func fileFeed() async throws {
        let directory = try makeTemporaryDirectory("calendar-file")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try dentistFeed.write(toFile: "\(directory)/school.ics", atomically: true, encoding: .utf8)
        let clock = try await FakeTime(at: at("2026-12-06T20:00:00+00:00"))
        try await calendarNode(clock, state: "\(directory)/state", feeds: "    - {id: school, file: \"\(directory)/school.ics\"}\n") { node, process, client in
            let calendar = try #require(await client.latest(node.topics.calendar) { $0["feeds"].flatMap { $0.item(0) }?["ok"] == true }, "log:\n\(process.log)")
            let feed = try #require(calendar["feeds"]?.item(0))
            #expect(feed["id"] == "school" && feed["events"] == 2 && feed["error"] == .null)
            #expect(feed["days"]?.item(1) == ["date": "2026-12-07", "first": ["title": "Dentist", "start": "2026-12-07T07:30:00+00:00"], "day_off": nil])
            #expect(feed["days"]?.item(2)?["day_off"] == "Urlaub")
            let added = try await client.request(node.topics, "alarm/add", followsSchool)
            #expect(added["status"] == "ok", "\(added)")
            let next = try #require(await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-12-07T06:30:00+00:00" }, "log:\n\(process.log)")
            #expect(next["event"] == ["feed": "school", "title": "Dentist", "start": "2026-12-07T07:30:00+00:00"] && next["earlier_by_min"] == 0)
            let alarm = try #require(await client.latest(node.topics.alarms) { $0.item(0)?["next_skip"]?["reason"] == "day_off" })
            #expect(alarm.item(0)?["next_skip"]?["name"] == "Urlaub" && alarm.item(0)?["next_skip"]?["fires_at"] == "2026-12-08T07:00:00+00:00")
            #expect(FileManager.default.fileExists(atPath: "\(directory)/state/calendar/school.ics"), "the stored copy")
        }
    }

    @Test("a feed over HTTP that goes away keeps its stored copy: the alarm still follows it, and after a restart at once")
    func keptCopy() async throws {
        let directory = try makeTemporaryDirectory("calendar-http")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: "\(directory)/www", withIntermediateDirectories: true)
        try dentistFeed.write(toFile: "\(directory)/www/basic.ics", atomically: true, encoding: .utf8)
        let server = try FileServer(directory: "\(directory)/www")
        let clock = try await FakeTime(at: at("2026-12-06T20:00:00+00:00"))
        let feeds = "    - {id: school, url: \"\(server.url("basic.ics"))\"}\n"
        try await calendarNode(clock, state: "\(directory)/state", feeds: feeds) { node, process, client in
            _ = try await client.request(node.topics, "alarm/add", followsSchool)
            let next = try #require(await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-12-07T06:30:00+00:00" }, "log:\n\(process.log)")
            #expect(next["event"]?["title"] == "Dentist")
            // The feed goes away; the next refresh (15 minutes on) fails and keeps the copy.
            try FileManager.default.removeItem(atPath: "\(directory)/www/basic.ics")
            try clock.set(to: at("2026-12-06T20:16:00+00:00"))
            let failed = try #require(await client.latest(node.topics.calendar) { $0["feeds"]?.item(0)?["error"] != .null }, "log:\n\(process.log)")
            #expect(failed["feeds"]?.item(0)?["error"]?.stringValue?.contains("404") == true && failed["feeds"]?.item(0)?["events"] == 2)
            _ = try await client.request(node.topics, "status")
            #expect(client.latest(node.topics.alarmNext)?["fires_at"] == "2026-12-07T06:30:00+00:00", "the alarm rings by the kept copy")
            process.signal(SIGTERM)
            _ = await process.waitForExit(timeout: eventHangGuard)
        }
        try await calendarNode(clock, state: "\(directory)/state", feeds: "    - {id: school, url: \"http://127.0.0.1:9/gone.ics\"}\n") { node, process, client in
            let next = try #require(await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-12-07T06:30:00+00:00" }, "log:\n\(process.log)")
            #expect(next["event"]?["title"] == "Dentist", "the stored copy after a restart, its server gone")
        }
    }

    @Test("a feed never fetched (a web page, garbage, 100 MB, a certificate that does not verify) leaves the alarm at its own time and says why",
          arguments: ["html", "garbage", "huge", "tls", "cut"])
    func neverFetched(fault: String) async throws {
        let server: FaultServer?
        let url: String
        let says: String
        var tls: TLSServer?
        var files: FileServer?
        switch fault {
        case "html": server = try FaultServer(.html); url = server?.url ?? ""; says = "not an iCalendar"
        case "garbage": server = try FaultServer(.garbage); url = server?.url ?? ""; says = "could not be fetched"
        case "huge":
            server = try FaultServer(.body(String(repeating: "BEGIN:VEVENT\r\n", count: (100 << 20) / 14), contentType: "text/calendar"))
            url = server?.url ?? ""; says = "could not be fetched"
        case "cut":
            // The feed's answer cut after 200 bytes (its length said 473): not taken. (A cut without a length
            // is a calendar without its end, which the helper refuses: CutFeedTests.)
            let folder = try makeTemporaryDirectory("calendar-cut")
            try dentistFeed.write(toFile: "\(folder)/basic.ics", atomically: true, encoding: .utf8)
            files = try FileServer(directory: folder)
            server = try FaultServer(.proxy(upstreamPort: files?.port ?? 0, afterBytes: 200, stall: false))
            url = "http://127.0.0.1:\(server?.port ?? 0)/basic.ics"; says = "remaining to read"
        default:
            server = nil
            let stranger = try await TLSServer()
            try dentistFeed.write(toFile: "\(stranger.directory)/basic.ics", atomically: true, encoding: .utf8)
            tls = stranger
            url = "https://127.0.0.1:\(stranger.port)/basic.ics"; says = "certificate"
        }
        defer { _ = (server, tls, files) }
        let clock = try await FakeTime(at: at("2026-12-06T20:00:00+00:00"))
        try await calendarNode(clock, feeds: "    - {id: school, url: \"\(url)\"}\n") { node, process, client in
            let calendar = try #require(await client.latest(node.topics.calendar) { $0["feeds"]?.item(0)?["error"] != .null }, "log:\n\(process.log)")
            let error = calendar["feeds"]?.item(0)?["error"]?.stringValue ?? ""
            #expect(error.contains(says) && calendar["feeds"]?.item(0)?["ok"] == false, "\(fault): \(error)")
            _ = try await client.request(node.topics, "alarm/add", followsSchool)
            let next = try #require(await client.latest(node.topics.alarmNext) { $0["fires_at"] != .null })
            #expect(next["fires_at"] == "2026-12-07T07:00:00+00:00" && next["event"] == .null, "its own time: \(next)")
        }
    }

    /// The context switches of all the node's threads so far.
    private func switches(_ pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { sum, task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            return sum + status.split(separator: "\n").filter { $0.hasPrefix("voluntary_ctxt_switches") || $0.hasPrefix("nonvoluntary_ctxt_switches") }
                .compactMap { $0.split(separator: "\t").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }.reduce(0, +)
        }
    }

    /// The CPU time (utime + stime) of the node so far, in clock ticks.
    private func cpuTicks(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
    }

    @Test("a refresh that hangs (the feed's file turned into a pipe nobody writes): the node waits for it asleep, not looking again and again")
    func waitsAsleep() async throws {
        let directory = try makeTemporaryDirectory("calendar-hang")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = "\(directory)/school.ics"
        try dentistFeed.write(toFile: file, atomically: true, encoding: .utf8)
        let clock = try await FakeTime(at: at("2026-12-06T20:00:00+00:00"))
        try await calendarNode(clock, feeds: "    - {id: school, file: \"\(file)\"}\n") { node, process, client in
            _ = try #require(await client.latest(node.topics.calendar) { $0["feeds"]?.item(0)?["ok"] == true }, "log:\n\(process.log)")
            // The next refresh (5 minutes on at the least; 15 by default) opens a pipe: its worker waits there.
            try FileManager.default.removeItem(atPath: file)
            #expect(mkfifo(file, 0o600) == 0)
            try clock.set(to: at("2026-12-06T20:16:00+00:00"))
            // The refresh has begun: its worker thread ("calendar") is there, waiting on the pipe.
            let worker = await eventually(timeout: .seconds(30)) {
                let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/task")) ?? []
                return tasks.contains { (try? String(contentsOfFile: "/proc/\(process.pid)/task/\($0)/comm", encoding: .utf8)) == "calendar\n" }
            }
            #expect(worker, "log:\n\(process.log)")
            let before = switches(process.pid), cpuBefore = cpuTicks(process.pid)
            try await Task.sleep(for: .seconds(3))
            let during = switches(process.pid) - before, cpu = cpuTicks(process.pid) - cpuBefore
            // Asleep, a node switches a few times in 3 s; a loop that looks again and again at a
            // refresh already due (it is running) spins through thousands and burns the CPU.
            #expect(during < 100 && cpu < 30, "\(during) context switches and \(cpu) ticks of CPU in 3 s while the refresh hangs")
            // Let the worker go.
            let writer = open(file, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }
    }
}

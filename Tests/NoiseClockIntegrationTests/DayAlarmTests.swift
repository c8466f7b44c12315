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
}

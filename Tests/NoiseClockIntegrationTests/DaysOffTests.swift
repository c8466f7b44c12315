import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

// Holidays, days off and a vacation (SPEC §12) in a real node process and a real Mosquitto, its
// wall clock driven by libfaketime.

private func at(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("not an ISO time: \(text)") }
    return date
}

private func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue.parse(message.payload) }

private let weekdays = #"["mon","tue","wed","thu","fri"]"#

extension JSONValue {
    /// The alarm `id` in a `B/alarms` list.
    fileprivate func alarm(_ id: String) -> JSONValue? {
        guard case .array(let items) = self else { return nil }
        return items.first { $0["id"]?.stringValue == id }
    }
}

@Suite("Holidays, days off and vacation in a real node process")
struct DaysOffTests {
    @Test("a holiday is skipped with alarm_skipped; days off and a vacation move the next fire; bad dates change nothing")
    func holidaysDaysOffVacation() async throws {
        let clock = try await FakeTime(at: at("2026-12-24T06:00:00+01:00"))
        let environment = clock.environment.merging([
            "NOISECLOCK_CLOCK_TIMEZONE": "Europe/Berlin", "NOISECLOCK_AUDIO_DEVICE": "null",
            "NOISECLOCK_WAKE_HOLIDAYS_COUNTRY": "DE", "NOISECLOCK_WAKE_HOLIDAYS_REGION": "BY",
        ]) { _, new in new }
        try await withNode(environment: environment) { node, process, client in
            let holidays = node.topics.state(StateTopic.holidays)
            // B/holidays: the next twelve months, Bavaria's Epiphany among them.
            let published = try #require(await client.latest(holidays) { $0["country"] == "DE" }, "no B/holidays; log:\n\(process.log)")
            #expect(published["region"] == "BY")
            guard case .array(let days)? = published["days"] else { Issue.record("days: \(published.serialized)"); return }
            #expect(days.first?["date"] == "2026-12-25")
            #expect(days.first?["name"] == "Christmas Day")
            #expect(days.contains { $0["date"] == "2027-01-06" && $0["kind"] == "holiday" })
            #expect(days.allSatisfy { ($0["date"]?.stringValue ?? "") < "2027-12-01" })

            let work = try await client.request(node.topics, "alarm/add", #"{"time":"07:00","label":"Work","days":\#(weekdays),"skip_holidays":true}"#)
            try #require(work["status"] == "ok", "\(work.serialized)")
            let workID = try #require(work["data"]?["id"]?.stringValue)
            #expect(work["data"]?["skip_holidays"] == true)
            let plain = try await client.request(node.topics, "alarm/add", #"{"time":"07:00","label":"Plain","days":\#(weekdays)}"#)
            let plainID = try #require(plain["data"]?["id"]?.stringValue)
            #expect(plain["data"]?["skip_holidays"] == false)

            // The list says which holiday Work keeps quiet on next.
            let listed = try #require(await client.latest(node.topics.alarms) { $0.alarm(workID)?["next_skip"]?["reason"] == "holiday" })
            #expect(listed.alarm(workID)?["next_skip"]?["fires_at"] == "2026-12-25T07:00:00+01:00")
            #expect(listed.alarm(workID)?["next_skip"]?["name"] == "Christmas Day")
            #expect(listed.alarm(plainID)?["next_skip"] == .null)

            // Christmas morning: Plain rings, Work is skipped, with its reason and the holiday's name.
            try clock.set(to: at("2026-12-25T06:59:58+01:00"))
            let skipped = try #require(
                await client.waitFor(node.topics.event, timeout: .seconds(20)) { json($0)?["event"] == "alarm_skipped" }.flatMap(json),
                "no alarm_skipped; log:\n\(process.log)")
            #expect(skipped["alarm_id"]?.stringValue == workID)
            #expect(skipped["reason"] == "holiday")
            #expect(skipped["name"] == "Christmas Day")
            #expect(skipped["fires_at"] == "2026-12-25T07:00:00+01:00")
            let ringing = try #require(await client.waitFor(node.topics.event, timeout: .seconds(20)) { json($0)?["event"] == "alarm_ringing" }.flatMap(json))
            #expect(ringing["alarm_id"]?.stringValue == plainID)
            #expect(try await client.request(node.topics, "dismiss")["status"] == "ok")

            // A day off: Work moves from Monday the 28th to Tuesday; Plain does not.
            let added = try await client.request(node.topics, "wake/days_off", #"{"add":["2026-12-28","2026-12-31"]}"#)
            #expect(added["status"] == "ok", "\(added.serialized)")
            #expect(added["data"]?["days_off"] == ["2026-12-28", "2026-12-31"])
            let moved = await client.latest(node.topics.alarms) { $0.alarm(workID)?["next_fire"] == "2026-12-29T07:00:00+01:00" }
            #expect(moved?.alarm(plainID)?["next_fire"] == "2026-12-28T07:00:00+01:00", "\(moved?.serialized ?? "no move")")
            #expect(moved?.alarm(workID)?["next_skip"]?["reason"] == "day_off")
            #expect(await client.latest(holidays) { state in
                guard case .array(let days)? = state["days"] else { return false }
                return days.contains { $0["date"] == "2026-12-28" && $0["kind"] == "day_off" }
            } != nil)
            let removed = try await client.request(node.topics, "wake/days_off", #"{"remove":["2026-12-31"]}"#)
            #expect(removed["data"]?["days_off"] == ["2026-12-28"])

            // Bad input names the field and changes nothing.
            let before = client.latest(node.topics.settings)
            for (verb, payload, field) in [
                ("wake/days_off", #"{"add":["2026-13-01"]}"#, "add"), ("wake/days_off", #"{"add":"2026-12-30"}"#, "add"),
                ("wake/days_off", #"{"delete":["2026-12-30"]}"#, "delete"), ("vacation", #"{"until":"someday"}"#, "until"),
                ("vacation", #"{"until":"2026-12-01"}"#, "until"), ("settings", #"{"wake":{"days_off":["2026-02-30"]}}"#, "wake.days_off"),
            ] {
                let answer = try await client.request(node.topics, verb, payload)
                #expect(answer["status"] == "error", "\(verb) \(payload): \(answer.serialized)")
                #expect(answer["error"]?["field"]?.stringValue == field, "\(verb) \(payload): \(answer.serialized)")
            }
            #expect(client.latest(node.topics.settings) == before)

            // A vacation through 8 January pauses both alarms; B/alarm/next shows the first after it.
            let vacation = try await client.request(node.topics, "vacation", #"{"until":"2027-01-08"}"#)
            #expect(vacation["data"]?["vacation_until"] == "2027-01-08", "\(vacation.serialized)")
            let paused = await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2027-01-11T07:00:00+01:00" }
            #expect(paused != nil, "B/alarm/next: \(client.latest(node.topics.alarmNext)?.serialized ?? "none")")
            let pausedList = await client.latest(node.topics.alarms) { $0.alarm(plainID)?["next_fire"] == "2027-01-11T07:00:00+01:00" }
            #expect(pausedList?.alarm(workID)?["next_fire"] == "2027-01-11T07:00:00+01:00")
            #expect(pausedList?.alarm(plainID)?["next_skip"]?["reason"] == "vacation")
            // A bare date is the same verb; null ends the vacation.
            #expect(try await client.request(node.topics, "vacation", "null")["data"]?["vacation_until"] == .null)
            let back = await client.latest(node.topics.alarmNext) { $0["fires_at"] == "2026-12-28T07:00:00+01:00" }
            #expect(back?["id"]?.stringValue == plainID, "\(client.latest(node.topics.alarmNext)?.serialized ?? "none")")
            #expect(process.isRunning)
        }
    }
}

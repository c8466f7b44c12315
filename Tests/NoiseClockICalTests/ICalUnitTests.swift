import Foundation
import Testing
import NoiseClockICal

/// The adapter in process: its dates, JSON strings, the Windows zones, and `ICalFeed.expand`'s
/// answers to what the helper's tests do not reach.
@Suite struct ICalUnitTests {
    @Test("CalendarDate: days since 1970 both ways for every day of 1900-2100, ISO text, real days only")
    func dates() {
        var day = CalendarDate(year: 1900, month: 1, day: 1)
        var count = day?.daysSinceEpoch ?? 0
        #expect(count == -25_567)
        while let current = day, current.year <= 2100 {
            #expect(CalendarDate(daysSinceEpoch: count) == current, "\(current)")
            #expect(CalendarDate(iso: current.description) == current)
            count += 1
            day = current.adding(days: 1)
            #expect(day?.daysSinceEpoch == count)
        }
        #expect(CalendarDate(year: 2024, month: 2, day: 29) != nil)
        #expect(CalendarDate(year: 2100, month: 2, day: 29) == nil)
        #expect(CalendarDate(year: 2026, month: 4, day: 31) == nil)
        for bad in ["2026-1-01", "2026-13-01", "20260101", "2026-01-01T00:00", "２０２６-01-01", "+026-01-01", ""] {
            #expect(CalendarDate(iso: bad) == nil, "\(bad)")
        }
    }

    @Test("JSON strings: quotes, backslash, every control character escaped as JSONSerialization reads them; UTF-8 as it is")
    func jsonStrings() throws {
        let text = "a\"b\\c/ü✓🎂" + String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}\u{2028}"
        let line = JSON.string(text)
        #expect(line.hasPrefix("\"a\\\"b\\\\c/ü✓🎂\\u0000\\u0001"), "\(line)")
        #expect(line.contains("\\b\\t\\n\\u000b\\f\\r"), "\(line)")
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(line)]".utf8)) as? [String]
        #expect(decoded == [text])
    }

    @Test("every Windows zone of the table is a zone of this system (libical's built-in zones read its zoneinfo)")
    func windowsZones() {
        #expect(WindowsZones.table.count >= 139, "\(WindowsZones.table.count)")
        for (windows, iana) in WindowsZones.table {
            #expect(ICalFeed.knowsZone(iana), "\(windows) → \(iana)")
        }
        #expect(WindowsZones.iana("W. Europe Standard Time") == "Europe/Berlin")
        #expect(WindowsZones.iana("Eastern Standard Time") == "America/New_York")
        #expect(WindowsZones.iana("Europe/Berlin") == nil)
        #expect(!ICalFeed.knowsZone("") && !ICalFeed.knowsZone("Mars/Base"))
    }

    @Test("the window: timed by start, all-day by overlap; sorted, a cancelled event and its series left out")
    func expandInProcess() throws {
        let feed = TestFeeds.calendar([
            TestFeeds.event("UID:late@x", "SUMMARY:Late", "DTSTART:20261207T200000Z"),
            TestFeeds.event("UID:early@x", "SUMMARY:Early", "DTSTART:20261207T050000Z"),
            TestFeeds.event("UID:trip@x", "SUMMARY:Trip", "DTSTART;VALUE=DATE:20261130", "DTEND;VALUE=DATE:20261208"),
            TestFeeds.event("UID:off@x", "SUMMARY:Cancelled", "STATUS:CANCELLED", "DTSTART:20261207T060000Z"),
        ])
        let expansion = try ICalFeed.expand(Array(feed.utf8), from: #require(CalendarDate(iso: "2026-12-06")), days: 2, zone: "UTC")
        #expect(expansion.occurrences.map(\.uid) == ["trip@x", "early@x", "late@x"])
        #expect(expansion.skipped == 0 && expansion.warnings.isEmpty)
    }

    @Test("bounds: more than 20 MB, days out of range, an unknown zone, no calendar: an ICalError naming it")
    func bounds() throws {
        let day = try #require(CalendarDate(iso: "2026-12-06"))
        let feed = Array(TestFeeds.calendar([]).utf8)
        #expect(throws: ICalError("the feed is larger than 20 MB (20971521 bytes)")) {
            try ICalFeed.expand(feed + [UInt8](repeating: 0x20, count: ICalFeed.maximumBytes + 1 - feed.count), from: day, days: 1, zone: "UTC")
        }
        #expect(throws: ICalError("days must be 1 to 1100, not 0")) { try ICalFeed.expand(feed, from: day, days: 0, zone: "UTC") }
        #expect(throws: ICalError("unknown time zone Mars/Base")) { try ICalFeed.expand(feed, from: day, days: 1, zone: "Mars/Base") }
        #expect(throws: ICalError("not an iCalendar feed (no BEGIN:VCALENDAR)")) {
            try ICalFeed.expand(Array("BEGIN:VEVENT\r\nEND:VEVENT\r\n".utf8), from: day, days: 1, zone: "UTC")
        }
        #expect(try ICalFeed.expand(feed, from: day, days: 1, zone: "UTC").occurrences.isEmpty)
    }

    @Test("a rule every minute since 2000: bounded steps, the window still reached or given up, never hanging")
    func runawayRule() throws {
        let feed = TestFeeds.calendar([
            TestFeeds.event("UID:minutely@x", "SUMMARY:Tick", "DTSTART:20000101T000000Z", "RRULE:FREQ=MINUTELY"),
            TestFeeds.event("UID:secondly@x", "SUMMARY:Tock", "DTSTART:20261206T000000Z", "RRULE:FREQ=SECONDLY"),
        ])
        let started = ContinuousClock.now
        let expansion = try ICalFeed.expand(Array(feed.utf8), from: #require(CalendarDate(iso: "2026-12-06")), days: 2, zone: "UTC")
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(expansion.occurrences.filter { $0.uid == "minutely@x" }.isEmpty, "2,000,000 steps end in 2003, before the window")
        #expect(expansion.occurrences.filter { $0.uid == "secondly@x" }.count == ICalFeed.maximumOccurrencesPerEvent)
    }

    @Test("wall times at the changes as RFC 5545 §3.3.5 reads them, not as libical 3.0 does; the week after the gap unmoved")
    func changes() throws {
        // 02:30 on 2026-03-29 does not exist in Berlin: read with the offset before the gap (03:30
        // CEST); 02:30 on 2026-10-25 occurs twice: the first (CEST). libical's own conversion gives
        // the second, and its iterator, given the zone, moved the gap's instance and the next
        // week's to 03:30.
        let feed = TestFeeds.calendar([
            TestFeeds.event("UID:weekly@x", "SUMMARY:Sunday 02:30", "DTSTART;TZID=Europe/Berlin:20260315T023000",
                            "DTEND;TZID=Europe/Berlin:20260315T030000", "RRULE:FREQ=WEEKLY"),
            TestFeeds.event("UID:autumn@x", "SUMMARY:Autumn 02:30", "DTSTART;TZID=Europe/Berlin:20261025T023000"),
        ])
        let expansion = try ICalFeed.expand(Array(feed.utf8), from: #require(CalendarDate(iso: "2026-03-22")), days: 220, zone: "UTC")
        let starts = expansion.occurrences.compactMap { occurrence -> Int64? in
            if case .timed(let start, _) = occurrence.timing { return start } else { return nil }
        }
        let expected = ["2026-03-22 01:30", "2026-03-29 01:30", "2026-04-05 00:30", "2026-04-12 00:30"].map { Int64(instant($0, "UTC")) }
        #expect(Array(starts.prefix(4)) == expected, "\(starts.prefix(4))")
        let autumn = expansion.occurrences.first { $0.uid == "autumn@x" }?.timing
        #expect(autumn == .timed(start: Int64(instant("2026-10-25 00:30", "UTC")), end: Int64(instant("2026-10-25 00:30", "UTC"))))
        // The exact duration (30 minutes) on the spring night too: 03:30 to 04:00 CEST.
        #expect(expansion.occurrences.dropFirst().first?.timing == .timed(start: expected[1], end: expected[1] + 1800))
    }
}

import Foundation
import Testing
import NoiseClockTestSupport

/// `noiseclock-calendar` (libical) against the reference, the Python `icalendar` and
/// `recurring_ical_events` packages (scripts/calendar-reference.sh, a cached venv): the hard feeds
/// of `TestFeeds`, each expanded over two years (2026-01-01 and the 730 days after it) by both,
/// every line the same.
@Suite(.serialized) struct ReferenceTests {
    /// Each feed, the zone it is read in, and how many instances span a daylight-saving change
    /// (their end is the one place the two disagree: `spanningChange`).
    static let feeds: [(name: String, text: String, zone: String, spanning: Int)] = [
        ("weekly with EXDATEs and overrides", TestFeeds.weekly, "Europe/Berlin", 0),
        ("monthly last Friday, BYSETPOS, RDATE", TestFeeds.monthly, "Europe/Berlin", 0),
        ("Outlook with VTIMEZONE blocks", TestFeeds.outlookWithZones, "Europe/Berlin", 0),
        ("Outlook without VTIMEZONE blocks", TestFeeds.outlookWithoutZones, "Europe/Berlin", 0),
        ("daylight saving in Berlin and New York, read in Berlin", TestFeeds.daylightSaving, "Europe/Berlin", 8),
        ("daylight saving in Berlin and New York, read in New York", TestFeeds.daylightSaving, "America/New_York", 8),
        ("all-day events", TestFeeds.allDay, "Europe/Berlin", 0),
        ("all-day events in Tokyo", TestFeeds.allDay, "Asia/Tokyo", 0),
        ("floating times in Berlin", TestFeeds.floating, "Europe/Berlin", 4),
        ("floating times in New York", TestFeeds.floating, "America/New_York", 2),
        ("UNTIL and COUNT", TestFeeds.untilAndCount, "Europe/Berlin", 0),
    ]

    @Test("every occurrence over two years matches the reference", arguments: 0..<feeds.count)
    func matchesTheReference(_ index: Int) async throws {
        let feed = Self.feeds[index]
        let ours = try await runHelper(feed.text, zone: feed.zone)
        let reference = try await runReference(feed.text, zone: feed.zone)
        try #require(ours.code == 0, "\(feed.name): noiseclock-calendar exit \(ours.code): \(ours.errors)")
        try #require(reference.code == 0, "\(feed.name): reference exit \(reference.code): \(reference.errors.suffix(3000))")
        #expect(ours.lines.count >= 20, "\(feed.name): \(ours.lines.count) occurrences")
        var (mine, theirs) = (Set(ours.lines), Set(reference.lines))
        #expect(ours.lines.count == mine.count, "\(feed.name): a line twice")
        #expect(ours.errors.isEmpty, "\(feed.name): \(ours.errors)")
        let spanning = try Self.spanningChange(ours: ours.lines, mine: &mine, theirs: &theirs, feed: feed.name)
        #expect(spanning == feed.spanning, "\(feed.name): \(spanning) instances across a change")
        #expect(mine.subtracting(theirs).isEmpty, "\(feed.name): only noiseclock-calendar has \(mine.subtracting(theirs).sorted())")
        #expect(theirs.subtracting(mine).isEmpty, "\(feed.name): only the reference has \(theirs.subtracting(mine).sorted())")
    }

    /// The one disagreement, and who is right: an instance whose time spans a daylight-saving
    /// change. The reference adds DTEND − DTSTART to each start as wall-clock time (01:30-03:30 on
    /// the spring night ends at 03:30, an hour later); RFC 5545 §3.8.5.3 says "If the duration of
    /// the recurring component is specified with the DTEND or DUE property, then the same exact
    /// duration will apply to all the members of the generated recurrence set", so the helper's
    /// end is the start plus the exact duration (two hours, 04:30). Each such pair is checked here
    /// (same instance, the helper's length the event's usual one, the ends an hour apart), taken
    /// out of both sets, and counted; every other line must be the same.
    static func spanningChange(ours: [String], mine: inout Set<String>, theirs: inout Set<String>, feed: String) throws -> Int {
        var lengths: [String: [Int: Int]] = [:]
        for text in ours {
            let line = try Line(text)
            if let start = line.start, let end = line.end { lengths[line.uid, default: [:]][end - start, default: 0] += 1 }
        }
        let theirsByInstance = try Dictionary(theirs.map { text in
            let line = try Line(text)
            return ("\(line.uid) \(line.start ?? -1)", (text, line))
        }, uniquingKeysWith: { first, _ in first })
        var count = 0
        for text in mine.subtracting(theirs) {
            let line = try Line(text)
            guard let start = line.start, let end = line.end, let (otherText, other) = theirsByInstance["\(line.uid) \(start)"],
                !mine.contains(otherText), other.summary == line.summary, let otherEnd = other.end
            else { continue }
            let usual = lengths[line.uid]?.max { $0.value < $1.value }?.key
            #expect(end - start == usual, "\(feed): \(text): not the event's exact duration \(usual ?? -1)")
            #expect(abs(otherEnd - end) == 3600, "\(feed): \(text) against \(otherText)")
            mine.remove(text)
            theirs.remove(otherText)
            count += 1
        }
        return count
    }

    @Test("UNTIL before DTSTART: the DTSTART instance (RFC 5545 §3.8.5.3), which the reference drops")
    func untilBeforeStart() async throws {
        // "The DTSTART property defines the first instance in the recurrence set" (§3.8.5.3), and
        // UNTIL bounds the rule's instances, not DTSTART; dateutil's rrule, under the reference,
        // yields nothing for a rule that ends before it starts, so the event is gone there.
        let feed = TestFeeds.calendar([
            TestFeeds.event("UID:late@test", "SUMMARY:Ended before it began", "DTSTART;TZID=America/New_York:20270610T090000",
                            "DURATION:PT30M", "RRULE:FREQ=DAILY;UNTIL=20270301T000000Z"),
            TestFeeds.event("UID:offrule@test", "SUMMARY:Not on the rule's day", "DTSTART;TZID=America/New_York:20270609T090000",
                            "DURATION:PT30M", "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"),
        ])
        let ours = try await runHelper(feed, from: "2027-06-01", days: 40)
        let reference = try await runReference(feed, from: "2027-06-01", days: 40)
        let start = instant("2027-06-10 09:00", "America/New_York")
        #expect(try ours.lines.map(Line.init).filter { $0.uid == "late@test" }.map(\.start) == [start], "\(ours.lines)")
        #expect(try reference.lines.map(Line.init).filter { $0.uid == "late@test" }.isEmpty, "\(reference.lines)")
        // A DTSTART off the rule (undefined by the RFC): both give it and then three Mondays.
        #expect(Set(ours.lines.filter { $0.contains("offrule") }) == Set(reference.lines.filter { $0.contains("offrule") }))
        #expect(ours.lines.filter { $0.contains("offrule") }.count == 4)
    }

    @Test("the 5000-event feed: the same occurrences as the reference over two years")
    func largeFeed() async throws {
        let ours = try await runHelper(TestFeeds.large)
        let reference = try await runReference(TestFeeds.large)
        try #require(ours.code == 0, "\(ours.errors)")
        try #require(reference.code == 0, "\(reference.errors.suffix(3000))")
        #expect(ours.lines.count > 20_000, "\(ours.lines.count)")
        let (mine, theirs) = (Set(ours.lines), Set(reference.lines))
        #expect(mine.subtracting(theirs).isEmpty, "only noiseclock-calendar has \(mine.subtracting(theirs).sorted().prefix(20))")
        #expect(theirs.subtracting(mine).isEmpty, "only the reference has \(theirs.subtracting(mine).sorted().prefix(20))")
    }
}

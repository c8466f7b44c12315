import Foundation
import Testing
import NoiseClockTestSupport

/// The `noiseclock-calendar` process as the node runs it: its lines, what it refuses (exit 1 and
/// one line on stderr), its arguments (exit 2, naming the argument), events it skips and counts.
@Suite struct HelperTests {
    @Test("a small feed: the contract's two lines, the window's edges, stdin as well as a file")
    func contractLines() async throws {
        let feed = TestFeeds.calendar([
            TestFeeds.event("UID:a@x", "SUMMARY:Dentist", "DTSTART;TZID=Europe/Berlin:20261207T073000",
                            "DTEND;TZID=Europe/Berlin:20261207T080000"),
            TestFeeds.event("UID:b@x", "SUMMARY:Urlaub", "DTSTART;VALUE=DATE:20261208", "DTEND;VALUE=DATE:20261210"),
            TestFeeds.event("UID:before@x", "SUMMARY:Before", "DTSTART;TZID=Europe/Berlin:20261205T235959", "DTEND;TZID=Europe/Berlin:20261206T010000"),
            TestFeeds.event("UID:first@x", "SUMMARY:First", "DTSTART;TZID=Europe/Berlin:20261206T000000"),
            TestFeeds.event("UID:after@x", "SUMMARY:After", "DTSTART;TZID=Europe/Berlin:20261214T000000"),
            TestFeeds.event("UID:last@x", "SUMMARY:Last day", "DTSTART;VALUE=DATE:20261213"),
            TestFeeds.event("UID:past@x", "SUMMARY:Ended", "DTSTART;VALUE=DATE:20261201", "DTEND;VALUE=DATE:20261206"),
        ])
        let run = try await runHelper(feed, from: "2026-12-06", days: 8)
        #expect(run.code == 0 && run.errors.isEmpty, "\(run.code) \(run.errors)")
        #expect(run.lines == [
            #"{"uid":"first@x","summary":"First","start":1796511600,"end":1796511600,"all_day":false}"#,
            #"{"uid":"a@x","summary":"Dentist","start":1796625000,"end":1796626800,"all_day":false}"#,
            #"{"uid":"b@x","summary":"Urlaub","date":"2026-12-08","end_date":"2026-12-10","all_day":true}"#,
            #"{"uid":"last@x","summary":"Last day","date":"2026-12-13","end_date":"2026-12-14","all_day":true}"#,
        ], "\(run.lines)")
        #expect(1_796_625_000 == instant("2026-12-07 07:30", "Europe/Berlin"))

        let directory = try makeTemporaryDirectory("calendar-stdin")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(feed.utf8).write(to: URL(fileURLWithPath: "\(directory)/feed.ics"))
        let (code, output) = try await runTool("/bin/sh", ["-c", "'\(calendarHelper)' --from 2026-12-06 --days 8 --zone Europe/Berlin < '\(directory)/feed.ics'"])
        #expect(code == 0)
        #expect(output.split(separator: "\n").map(String.init) == run.lines, "\(output)")
    }

    @Test("titles: quotes, backslashes, commas, newlines and control characters escaped; UTF-8 as it is")
    func escaping() async throws {
        let feed = TestFeeds.calendar([
            TestFeeds.event("UID:\"odd\"\\\\uid@x", "SUMMARY:Zahnarzt \"Dr. Müller\"\\, Raum 2\\; \\\\Praxis\\\\\\nzweite Zeile\u{01}✓",
                            "DTSTART:20261207T063000Z"),
            TestFeeds.event("UID:nosummary@x", "DTSTART:20261207T070000Z"),
        ])
        let run = try await runHelper(feed, from: "2026-12-06", days: 8)
        try #require(run.lines.count == 2, "\(run.lines) \(run.errors)")
        let line = try Line(run.lines[0])
        #expect(line.summary == "Zahnarzt \"Dr. Müller\", Raum 2; \\Praxis\\\nzweite Zeile\u{01}✓", "\(run.lines[0])")
        #expect(run.lines[0].contains(#"\"Dr. Müller\", Raum 2; \\Praxis\\\nzweite Zeile\u0001✓"#), "\(run.lines[0])")
        #expect(try Line(run.lines[1]).summary == "")
        let reference = try await runReference(feed, from: "2026-12-06", days: 8)
        #expect(Set(reference.lines) == Set(run.lines), "\(reference.lines) \(reference.errors)")
    }

    @Test("not an iCalendar, garbage, an empty input, a feed over 20 MB: exit 1 and one line naming why")
    func refusals() async throws {
        let cases: [(String, Data, String)] = [
            ("a web page", Data("<!doctype html><html><body>Login</body></html>".utf8), "not an iCalendar feed"),
            ("JSON", Data(#"{"events":[]}"#.utf8), "not an iCalendar feed"),
            ("garbage", Data((0..<4096).map { UInt8(($0 * 7919) % 251) }), "not an iCalendar feed"),
            ("nothing", Data(), "not an iCalendar feed"),
            ("a vCard", Data("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Anna\r\nEND:VCARD\r\n".utf8), "not an iCalendar feed"),
            ("over 20 MB", Data(TestFeeds.calendar([TestFeeds.event("UID:big@x", "DTSTART:20261207T063000Z",
                "DESCRIPTION:" + String(repeating: "x", count: 21 * 1024 * 1024))]).utf8), "larger than 20 MB"),
        ]
        for (name, bytes, why) in cases {
            let run = try await runCalendar([calendarHelper], feed: bytes, from: "2026-12-06", days: 8, zone: "Europe/Berlin")
            #expect(run.code == 1, "\(name): exit \(run.code)")
            #expect(run.lines.isEmpty, "\(name): \(run.lines.prefix(3))")
            let lines = run.errors.split(separator: "\n")
            #expect(lines.count == 1 && lines.first?.hasPrefix("noiseclock-calendar: ") == true && run.errors.contains(why),
                    "\(name): \(run.errors)")
        }
    }

    @Test("a calendar with garbage inside and events without a readable DTSTART: the rest, and one line counting them")
    func brokenEvents() async throws {
        let feed = TestFeeds.calendar([
            TestFeeds.event("UID:ok@x", "SUMMARY:Fine", "DTSTART:20261207T063000Z", "DTEND:20261207T070000Z"),
            TestFeeds.event("UID:broken@x", "SUMMARY:Broken start", "DTSTART:2026-12-07 07:00"),
            TestFeeds.event("UID:month13@x", "SUMMARY:Month 13", "DTSTART:20261307T070000Z"),
            TestFeeds.event("UID:nostart@x", "SUMMARY:No start"),
            "this line is not iCalendar\r\n\u{07}\u{1B}[31mnor this\r\nBEGIN:VTODO\r\nSUMMARY:a task\r\nEND:VTODO",
            TestFeeds.event("UID:ok2@x", "SUMMARY:Also fine", "DTSTART;VALUE=DATE:20261209"),
        ])
        let run = try await runHelper(feed, from: "2026-12-06", days: 8)
        #expect(run.code == 0, "\(run.errors)")
        #expect(run.lines.map { try? Line($0).uid } == ["ok@x", "ok2@x"], "\(run.lines)")
        let lines = run.errors.split(separator: "\n")
        #expect(lines == ["noiseclock-calendar: skipped 3 events that cannot be read (no readable DTSTART or RECURRENCE-ID)"], "\(run.errors)")
    }

    @Test("an unknown TZID: read in --zone, and a warning naming it")
    func unknownZone() async throws {
        let feed = TestFeeds.calendar([
            TestFeeds.event("UID:mars@x", "SUMMARY:Rover", "DTSTART;TZID=Mars/Olympus_Mons:20261207T090000"),
        ])
        let run = try await runHelper(feed, from: "2026-12-06", days: 8, zone: "America/New_York")
        #expect(run.code == 0)
        #expect(run.lines.compactMap { try? Line($0).start } == [instant("2026-12-07 09:00", "America/New_York")], "\(run.lines)")
        #expect(run.errors == "noiseclock-calendar: unknown TZID \"Mars/Olympus_Mons\": its times are read in America/New_York\n", "\(run.errors)")
    }

    @Test("arguments: each error names the argument, exit 2, nothing on stdout")
    func arguments() async throws {
        let cases: [([String], String)] = [
            (["--days", "8", "--zone", "Europe/Berlin"], "--from is missing"),
            (["--from", "2026-12-06", "--zone", "Europe/Berlin"], "--days is missing"),
            (["--from", "2026-12-06", "--days", "8"], "--zone is missing"),
            (["--from", "2026-02-30", "--days", "8", "--zone", "Europe/Berlin"], "--from needs a date YYYY-MM-DD, not \"2026-02-30\""),
            (["--from", "06.12.2026", "--days", "8", "--zone", "Europe/Berlin"], "--from needs a date"),
            (["--from", "2026-12-06", "--days", "0", "--zone", "Europe/Berlin"], "--days needs a number of days from 1 to 1100, not \"0\""),
            (["--from", "2026-12-06", "--days", "eight", "--zone", "Europe/Berlin"], "--days needs a number"),
            (["--from", "2026-12-06", "--days", "8", "--zone", "Mars/Base"], "--zone needs an IANA time zone such as Europe/Berlin, not \"Mars/Base\""),
            (["--from", "2026-12-06", "--days", "8", "--zone", "Europe/Berlin", "--verbose"], "unknown argument --verbose"),
            (["--from", "2026-12-06", "--days", "8", "--zone"], "--zone needs a value"),
            (["--from", "2026-12-06", "--days", "8", "--zone", "Europe/Berlin", "/nonexistent/feed.ics"], "FILE cannot be read: /nonexistent/feed.ics"),
        ]
        for (arguments, message) in cases {
            let (code, output) = try await runTool(calendarHelper, arguments)
            #expect(code == 2, "\(arguments): exit \(code)")
            #expect(output.hasPrefix("noiseclock-calendar: \(message)"), "\(arguments): \(output)")
        }
    }
}

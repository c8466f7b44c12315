import Foundation
import NoiseClockTestSupport

/// The feeds the reference suite expands, written to be hard: every one is a VCALENDAR with CRLF
/// line ends (as feeds are served), one VEVENT a string of lines.
enum TestFeeds {
    static func calendar(_ events: [String], timezones: [String] = []) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//NoiseClock//tests//EN"] + timezones + events + ["END:VCALENDAR", ""])
            .joined(separator: "\r\n")
    }

    static func event(_ lines: String...) -> String {
        (["BEGIN:VEVENT", "DTSTAMP:20260101T000000Z"] + lines + ["END:VEVENT"]).joined(separator: "\r\n")
    }

    /// Weekly on Monday, Wednesday and Friday with EXDATEs (in the event's zone and in UTC) and
    /// RECURRENCE-ID overrides: one moved to another day, one moved an hour, one cancelled, one
    /// moved into the window from before it, one moved out of the window, one renamed.
    static let weekly = calendar([
        event("UID:standup@test", "SUMMARY:Standup", "DTSTART;TZID=Europe/Berlin:20251201T091500",
              "DTEND;TZID=Europe/Berlin:20251201T093000", "RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR",
              "EXDATE;TZID=Europe/Berlin:20260105T091500,20260107T091500",
              "EXDATE:20260311T081500Z", "EXDATE;TZID=Europe/Berlin:20260701T091500"),
        event("UID:standup@test", "RECURRENCE-ID;TZID=Europe/Berlin:20260112T091500", "SUMMARY:Standup (Tuesday)",
              "DTSTART;TZID=Europe/Berlin:20260113T100000", "DTEND;TZID=Europe/Berlin:20260113T101500"),
        event("UID:standup@test", "RECURRENCE-ID;TZID=Europe/Berlin:20260114T091500", "SUMMARY:Standup late",
              "DTSTART;TZID=Europe/Berlin:20260114T101500", "DTEND;TZID=Europe/Berlin:20260114T103000"),
        event("UID:standup@test", "RECURRENCE-ID;TZID=Europe/Berlin:20260116T091500", "SUMMARY:Standup",
              "STATUS:CANCELLED", "DTSTART;TZID=Europe/Berlin:20260116T091500", "DTEND;TZID=Europe/Berlin:20260116T093000"),
        event("UID:standup@test", "RECURRENCE-ID;TZID=Europe/Berlin:20251229T091500", "SUMMARY:Standup after the holidays",
              "DTSTART;TZID=Europe/Berlin:20260102T091500", "DTEND;TZID=Europe/Berlin:20260102T093000"),
        event("UID:standup@test", "RECURRENCE-ID;TZID=Europe/Berlin:20260119T091500", "SUMMARY:Standup moved away",
              "DTSTART;TZID=Europe/Berlin:20300101T091500", "DTEND;TZID=Europe/Berlin:20300101T093000"),
        event("UID:standup@test", "RECURRENCE-ID:20260325T081500Z", "SUMMARY:Standup: \"planning\"\\, room 2\\; bring notes",
              "DTSTART;TZID=Europe/Berlin:20260325T091500", "DTEND;TZID=Europe/Berlin:20260325T100000"),
        event("UID:gym@test", "SUMMARY:Gym", "DTSTART;TZID=America/New_York:20260106T063000", "DURATION:PT1H",
              "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20270630T035959Z",
              "EXDATE;TZID=America/New_York:20260203T063000"),
        event("UID:gone@test", "SUMMARY:Cancelled series", "STATUS:CANCELLED", "DTSTART:20260105T080000Z",
              "DTEND:20260105T090000Z", "RRULE:FREQ=DAILY"),
    ])

    /// Monthly "last Friday" (BYDAY=-1FR), "last day of the month", "second Tuesday" and the
    /// "last workday" (BYDAY=MO..FR;BYSETPOS=-1), with COUNT and UNTIL.
    static let monthly = calendar([
        event("UID:lastfriday@test", "SUMMARY:Team lunch", "DTSTART;TZID=Europe/Berlin:20250131T123000",
              "DTEND;TZID=Europe/Berlin:20250131T133000", "RRULE:FREQ=MONTHLY;BYDAY=-1FR"),
        event("UID:lastday@test", "SUMMARY:Invoices", "DTSTART;TZID=Europe/Berlin:20260131T170000",
              "DTEND;TZID=Europe/Berlin:20260131T173000", "RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=14"),
        event("UID:secondtuesday@test", "SUMMARY:Patch day", "DTSTART:20260113T180000Z", "DTEND:20260113T190000Z",
              "RRULE:FREQ=MONTHLY;BYDAY=2TU;UNTIL=20270601T000000Z"),
        event("UID:lastworkday@test", "SUMMARY:Month end", "DTSTART;TZID=America/New_York:20260130T160000",
              "DTEND;TZID=America/New_York:20260130T170000", "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"),
        event("UID:quarterly@test", "SUMMARY:Quarterly review", "DTSTART;TZID=Europe/Berlin:20260115T140000",
              "DTEND;TZID=Europe/Berlin:20260115T160000", "RRULE:FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=15",
              "RDATE;TZID=Europe/Berlin:20260601T140000,20260901T140000"),
    ])

    /// Outlook's VTIMEZONE for "W. Europe Standard Time" (a 1601 start and yearly rules).
    static let outlookBerlin = """
        BEGIN:VTIMEZONE\r
        TZID:W. Europe Standard Time\r
        BEGIN:STANDARD\r
        DTSTART:16010101T030000\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10\r
        END:STANDARD\r
        BEGIN:DAYLIGHT\r
        DTSTART:16010101T020000\r
        TZOFFSETFROM:+0100\r
        TZOFFSETTO:+0200\r
        RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3\r
        END:DAYLIGHT\r
        END:VTIMEZONE
        """
    /// Outlook's VTIMEZONE for "Eastern Standard Time".
    static let outlookEastern = """
        BEGIN:VTIMEZONE\r
        TZID:Eastern Standard Time\r
        BEGIN:STANDARD\r
        DTSTART:16010101T020000\r
        TZOFFSETFROM:-0400\r
        TZOFFSETTO:-0500\r
        RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=1SU;BYMONTH=11\r
        END:STANDARD\r
        BEGIN:DAYLIGHT\r
        DTSTART:16010101T020000\r
        TZOFFSETFROM:-0500\r
        TZOFFSETTO:-0400\r
        RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=2SU;BYMONTH=3\r
        END:DAYLIGHT\r
        END:VTIMEZONE
        """

    static func outlookEvents(prefix: String) -> [String] {
        [
            event("UID:\(prefix)-weekly@outlook", "SUMMARY:Jour fixe", "DTSTART;TZID=W. Europe Standard Time:20260112T080000",
                  "DTEND;TZID=W. Europe Standard Time:20260112T090000", "RRULE:FREQ=WEEKLY;BYDAY=MO;WKST=MO",
                  "EXDATE;TZID=W. Europe Standard Time:20260406T080000"),
            event("UID:\(prefix)-weekly@outlook", "RECURRENCE-ID;TZID=W. Europe Standard Time:20260323T080000",
                  "SUMMARY:Jour fixe (moved)", "DTSTART;TZID=W. Europe Standard Time:20260324T073000",
                  "DTEND;TZID=W. Europe Standard Time:20260324T083000"),
            event("UID:\(prefix)-ny@outlook", "SUMMARY:New York sync", "DTSTART;TZID=\"Eastern Standard Time\":20260302T090000",
                  "DTEND;TZID=\"Eastern Standard Time\":20260302T093000", "RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;COUNT=60"),
            event("UID:\(prefix)-tokyo@outlook", "SUMMARY:Tokyo call", "DTSTART;TZID=Tokyo Standard Time:20260105T170000",
                  "DTEND;TZID=Tokyo Standard Time:20260105T180000", "RRULE:FREQ=MONTHLY;BYDAY=1MO"),
            event("UID:\(prefix)-india@outlook", "SUMMARY:Bangalore review", "DTSTART;TZID=India Standard Time:20260302T143000",
                  "DTEND;TZID=India Standard Time:20260302T153000", "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=30"),
            event("UID:\(prefix)-allday@outlook", "SUMMARY:Urlaub", "DTSTART;VALUE=DATE:20260803",
                  "DTEND;VALUE=DATE:20260815", "X-MICROSOFT-CDO-ALLDAYEVENT:TRUE"),
        ]
    }

    /// Outlook's feeds: Windows TZIDs with their VTIMEZONE blocks, and the same without them.
    static let outlookWithZones = calendar(outlookEvents(prefix: "z"), timezones: [outlookBerlin, outlookEastern])
    static let outlookWithoutZones = calendar(outlookEvents(prefix: "n"))

    /// Events across both daylight-saving changes in Europe/Berlin (2026-03-29, 2026-10-25) and
    /// America/New_York (2026-03-08, 2026-11-01): daily at 01:30 with an hour across, nights
    /// spanning the change, weekly at 09:00 through the weeks between the two continents' changes.
    static let daylightSaving = calendar([
        event("UID:berlin-night@test", "SUMMARY:Night shift", "DTSTART;TZID=Europe/Berlin:20260320T013000",
              "DTEND;TZID=Europe/Berlin:20260320T033000", "RRULE:FREQ=DAILY;UNTIL=20261105T000000Z"),
        event("UID:berlin-weekend@test", "SUMMARY:Saturday night", "DTSTART;TZID=Europe/Berlin:20260103T220000",
              "DTEND;TZID=Europe/Berlin:20260104T060000", "RRULE:FREQ=WEEKLY;BYDAY=SA"),
        event("UID:berlin-morning@test", "SUMMARY:Berlin morning", "DTSTART;TZID=Europe/Berlin:20260302T090000",
              "DTEND;TZID=Europe/Berlin:20260302T100000", "RRULE:FREQ=WEEKLY;BYDAY=MO,TH"),
        event("UID:ny-night@test", "SUMMARY:NY late", "DTSTART;TZID=America/New_York:20260301T003000",
              "DTEND;TZID=America/New_York:20260301T033000", "RRULE:FREQ=DAILY;COUNT=300"),
        event("UID:ny-morning@test", "SUMMARY:NY standup", "DTSTART;TZID=America/New_York:20260302T090000",
              "DTEND;TZID=America/New_York:20260302T091500", "RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"),
        event("UID:utc-sync@test", "SUMMARY:UTC sync", "DTSTART:20260302T130000Z", "DTEND:20260302T133000Z",
              "RRULE:FREQ=WEEKLY;BYDAY=MO,WE"),
    ])

    /// All-day events: single, over several days, without DTEND, yearly, weekly with an EXDATE, and
    /// one across the window's first day.
    static let allDay = calendar([
        event("UID:single@test", "SUMMARY:Zeugnistag", "DTSTART;VALUE=DATE:20260701", "DTEND;VALUE=DATE:20260702"),
        event("UID:multi@test", "SUMMARY:Ferien", "DTSTART;VALUE=DATE:20261221", "DTEND;VALUE=DATE:20270106"),
        event("UID:noend@test", "SUMMARY:Brückentag", "DTSTART;VALUE=DATE:20260515"),
        event("UID:birthday@test", "SUMMARY:Anna's birthday 🎂", "DTSTART;VALUE=DATE:20000229",
              "DTEND;VALUE=DATE:20000301", "RRULE:FREQ=YEARLY"),
        event("UID:bins@test", "SUMMARY:Bins", "DTSTART;VALUE=DATE:20260107", "DTEND;VALUE=DATE:20260108",
              "RRULE:FREQ=WEEKLY;INTERVAL=2", "EXDATE;VALUE=DATE:20260121,20261230"),
        event("UID:across@test", "SUMMARY:Winter break", "DTSTART;VALUE=DATE:20251222", "DTEND;VALUE=DATE:20260103"),
        event("UID:weekend@test", "SUMMARY:Kids with grandma", "DTSTART;VALUE=DATE:20260306", "DTEND;VALUE=DATE:20260309",
              "RRULE:FREQ=MONTHLY;BYDAY=1FR;UNTIL=20271231"),
    ])

    /// Floating times (no TZID, no Z), read in the window's zone, beside a zoned one.
    static let floating = calendar([
        event("UID:wakeup@test", "SUMMARY:Wake up", "DTSTART:20260105T063000", "DTEND:20260105T064500",
              "RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "EXDATE:20260406T063000"),
        event("UID:floating-night@test", "SUMMARY:Floating night", "DTSTART:20260301T020000", "DTEND:20260301T040000",
              "RRULE:FREQ=WEEKLY"),
        event("UID:dinner@test", "SUMMARY:Dinner", "DTSTART:20260620T193000", "DTEND:20260620T220000"),
        event("UID:zoned@test", "SUMMARY:Zoned", "DTSTART;TZID=Europe/London:20260105T120000",
              "DTEND;TZID=Europe/London:20260105T130000", "RRULE:FREQ=WEEKLY"),
    ])

    /// UNTIL (UTC, local, inclusive on the last instance) and COUNT.
    static let untilAndCount = calendar([
        event("UID:count@test", "SUMMARY:Course", "DTSTART;TZID=Europe/Berlin:20260210T183000",
              "DTEND;TZID=Europe/Berlin:20260210T200000", "RRULE:FREQ=WEEKLY;COUNT=10"),
        event("UID:until-utc@test", "SUMMARY:Physio", "DTSTART;TZID=Europe/Berlin:20260302T071500",
              "DTEND;TZID=Europe/Berlin:20260302T080000", "RRULE:FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20260601T051500Z"),
        event("UID:until-daily@test", "SUMMARY:Sprint", "DTSTART:20260901T070000Z", "DTEND:20260901T071500Z",
              "RRULE:FREQ=DAILY;INTERVAL=3;UNTIL=20261001T070000Z"),
        event("UID:count-exdate@test", "SUMMARY:Lessons", "DTSTART;TZID=America/New_York:20260107T160000",
              "DTEND;TZID=America/New_York:20260107T170000", "RRULE:FREQ=WEEKLY;COUNT=8",
              "EXDATE;TZID=America/New_York:20260121T160000"),
        event("UID:yearly-count@test", "SUMMARY:Anniversary dinner", "DTSTART;TZID=Europe/Berlin:20240614T190000",
              "DTEND;TZID=Europe/Berlin:20240614T220000", "RRULE:FREQ=YEARLY;COUNT=3"),
    ])

    static let large = CalendarTestFeed.large
}

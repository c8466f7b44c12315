/// The 5000-event iCalendar feed the calendar helper's reference test and its benchmark
/// (`noiseclock-bench --only calendar`) expand over two years.
public enum CalendarTestFeed {
    static func event(_ lines: String...) -> String {
        (["BEGIN:VEVENT", "DTSTAMP:20260101T000000Z"] + lines + ["END:VEVENT"]).joined(separator: "\r\n")
    }

    /// 5000 events: 1000 series (daily, weekly, monthly, yearly; some with COUNT, UNTIL, EXDATEs,
    /// overrides that move or cancel an instance) and 4000 single events, in four zones, timed and all-day.
    public static let large: String = {
        let zones = ["Europe/Berlin", "America/New_York", "Europe/London", "Asia/Tokyo"]
        let rules = ["FREQ=DAILY;INTERVAL=3", "FREQ=WEEKLY;BYDAY=MO,WE", "FREQ=MONTHLY;BYDAY=-1FR", "FREQ=YEARLY",
                     "FREQ=WEEKLY;COUNT=20", "FREQ=DAILY;UNTIL=20280301T000000Z", "FREQ=MONTHLY;BYMONTHDAY=15", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,FR"]
        var events: [String] = []
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        for n in 0..<5000 {
            let zone = zones[n % zones.count]
            let month = 1 + n % 12, day = 1 + (n / 12) % 28, hour = 6 + n % 14, minute = (n * 7) % 60
            let year = 2025 + n % 3
            let stamp = "\(year)\(two(month))\(two(day))T\(two(hour))\(two(minute))00"
            let uid = "UID:event-\(n)@large.test"
            if n < 1000 {
                var lines = [uid, "SUMMARY:Series \(n)", "DTSTART;TZID=\(zone):\(stamp)", "DURATION:PT\(15 + n % 4 * 15)M",
                             "RRULE:\(rules[n % rules.count])"]
                if n % 5 == 0 { lines.append("EXDATE;TZID=\(zone):\(year + 1)\(two(month))\(two(day))T\(two(hour))\(two(minute))00") }
                events.append((["BEGIN:VEVENT"] + lines + ["END:VEVENT"]).joined(separator: "\r\n"))
                // Every 25th series has its first instance moved two hours later and renamed; every
                // 25th after that one cancelled.
                if n % 25 == 1 {
                    events.append(event(uid, "SUMMARY:Series \(n) (moved)", "RECURRENCE-ID;TZID=\(zone):\(stamp)",
                                        "DTSTART;TZID=\(zone):\(year)\(two(month))\(two(day))T\(two(hour + 2))\(two(minute))00", "DURATION:PT30M"))
                } else if n % 25 == 2 {
                    events.append(event(uid, "SUMMARY:Series \(n)", "RECURRENCE-ID;TZID=\(zone):\(stamp)", "STATUS:CANCELLED",
                                        "DTSTART;TZID=\(zone):\(stamp)"))
                }
            } else if n % 10 == 0 {
                events.append(event(uid, "SUMMARY:Day \(n)", "DTSTART;VALUE=DATE:\(year)\(two(month))\(two(day))",
                                    "DTEND;VALUE=DATE:\(year)\(two(month))\(two(min(day + 1 + n % 3, 28)))"))
            } else {
                events.append(event(uid, "SUMMARY:Meeting \(n) – Raum \(n % 40)", "DTSTART;TZID=\(zone):\(stamp)",
                                    "DTEND;TZID=\(zone):\(year)\(two(month))\(two(day))T\(two(hour + 1))\(two(minute))00",
                                    "LOCATION:Room \(n % 40)", "DESCRIPTION:Agenda item \(n)\\nsecond line"))
            }
        }
        return (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//NoiseClock//tests//EN"] + events + ["END:VCALENDAR", ""])
            .joined(separator: "\r\n")
    }()
}

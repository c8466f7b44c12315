import FoundationEssentials
import NoiseClockCore
import Testing

/// SPEC §17: alarms that follow the weather (`earlier_if`) and a calendar (`calendar`).
@Suite("The day: earlier_if, calendar alarms and their days off (SPEC §17)")
struct DayPlanTests {
    let berlin = Zone(identifier: "Europe/Berlin") ?? .utc

    func time(_ text: String) throws -> AlarmTime { try #require(AlarmTime(text)) }

    /// A weather report with the hours given (all other hours clear).
    func weather(_ hours: [(Date, Int, Double)], at now: Date) throws -> WeatherReport {
        try WeatherReport(
            condition: #require(WeatherCondition(code: 0)), updatedAt: now, source: "open-meteo",
            hours: hours.map { try ForecastHour(start: $0.0, condition: #require(WeatherCondition(code: $0.1)), temperature: $0.2) })
    }

    @Test("earlier_if is read field by field; the most minutes win, a tie goes to snow, then ice, then rain")
    func earlierIf() throws {
        let rule = try EarlierIf(["snow": 20, "ice": 20, "rain": 5])
        #expect(rule.earlier(for: [.rain])! == (5, .rain))
        #expect(rule.earlier(for: [.rain, .ice])! == (20, .ice))
        #expect(rule.earlier(for: [.rain, .ice, .snow])! == (20, .snow))
        #expect(rule.earlier(for: []) == nil)
        #expect(EarlierIf(rain: 0).earlier(for: [.rain]) == nil)
        for (value, field) in [(["snow": 61] as JSONValue, "earlier_if.snow"), (["hail": 5], "earlier_if.hail"), (["rain": 2.5], "earlier_if.rain"), ("20", "earlier_if")] {
            let error = try #require(throws: CommandError.self) { try EarlierIf(value) }
            #expect(error.field == field, "\(value.serialized)")
        }
    }

    @Test("the morning's weather: snow, ice (freezing rain, or rain at or below 0 °C), rain, from the hours 3 h before to 1 h after")
    func morning() throws {
        let ring = UTC.date(2026, 12, 7, 6) // 07:00 in Berlin
        let day = try #require(CivilDate(iso: "2026-12-07"))
        let now = UTC.date(2026, 12, 6, 20)
        #expect(try weather([(UTC.date(2026, 12, 7, 4), 73, -2)], at: now).morning(at: ring, on: day) == [.snow])
        #expect(try weather([(UTC.date(2026, 12, 7, 5), 61, -0.5)], at: now).morning(at: ring, on: day) == [.ice, .rain])
        #expect(try weather([(UTC.date(2026, 12, 7, 5), 61, 3)], at: now).morning(at: ring, on: day) == [.rain])
        #expect(try weather([(UTC.date(2026, 12, 7, 6), 66, 1)], at: now).morning(at: ring, on: day) == [.ice])
        // Outside the window: snow at 02:00 local and rain at 09:00 local say nothing of a 07:00 ring.
        #expect(try weather([(UTC.date(2026, 12, 7, 1), 73, -2), (UTC.date(2026, 12, 7, 8), 63, 4)], at: now).morning(at: ring, on: day) == [])
        // Without hours, the day's condition and low.
        var daily = try weather([], at: now)
        daily.days = [try ForecastDay(date: day, condition: #require(WeatherCondition(code: 63)), low: -1, high: 4)]
        #expect(daily.morning(at: ring, on: day) == [.ice, .rain])
        #expect(daily.morning(at: ring.addingTimeInterval(86_400), on: CivilDate(daysSinceEpoch: day.daysSinceEpoch + 1)) == [])
    }

    @Test("an alarm with earlier_if rings earlier for its morning's weather and says why; decided 8 hours before, kept")
    func weatherMoves() throws {
        let alarm = Alarm(id: "a", time: try time("07:00"), days: Set(Weekday.allCases), sound: "tone", earlierIf: EarlierIf(snow: 20, rain: 5))
        let evening = UTC.date(2026, 12, 6, 20) // 21:00 in Berlin, 10 hours before the ring
        let snowy = try weather([(UTC.date(2026, 12, 7, 5), 73, -3)], at: evening)
        var days = DaysOff.none
        days.weather = snowy
        let plan = try #require(AlarmSchedule.nextPlan(of: alarm, after: evening, in: berlin, daysOff: days))
        #expect(plan.instant == UTC.date(2026, 12, 7, 5, 40) && plan.own == UTC.date(2026, 12, 7, 6))
        #expect(plan.move == AlarmMove(earlierBy: 20, reason: .snow))
        #expect(plan.move?.json { _ in "" } == ["earlier_by_min": 20, "reason": "snow", "event": nil])

        // More than 8 hours ahead nothing is decided yet: the forecast may still change it.
        let clockwork = AlarmClockwork(grace: 600)
        let state = AlarmState(book: AlarmBook(alarms: [alarm], lastHandled: ["a": evening]))
        let early = clockwork.step(state, now: evening, previous: nil, zone: berlin, daysOff: days)
        #expect(early.state.earlier.isEmpty && early.nextFires["a"] == UTC.date(2026, 12, 7, 5, 40))
        #expect(early.wake <= UTC.date(2026, 12, 6, 20, 1), "at most a minute")
        // At 23:00 (8 hours before 07:00) the forecast says snow: decided, and kept when it clears.
        let decisionTime = UTC.date(2026, 12, 6, 22)
        let decided = clockwork.step(early.state, now: decisionTime, previous: evening, zone: berlin, daysOff: days)
        #expect(decided.state.earlier["a"] == EarlierDecision(day: try #require(CivilDate(iso: "2026-12-07")), minutes: 20, reason: .snow))
        var cleared = days
        cleared.weather = try weather([], at: decisionTime)
        let later = clockwork.step(decided.state, now: decisionTime.addingTimeInterval(3600), previous: decisionTime, zone: berlin, daysOff: cleared)
        #expect(later.nextFires["a"] == UTC.date(2026, 12, 7, 5, 40), "a forecast after the decision does not move it back")
        // Kept in alarms.json.
        #expect(try AlarmState(stored: later.state.stored).earlier == later.state.earlier)
        // Decided clear at 23:00: a snow forecast at midnight does not move it.
        let clearDecision = clockwork.step(early.state, now: decisionTime, previous: evening, zone: berlin, daysOff: cleared)
        #expect(clearDecision.state.earlier["a"]?.minutes == 0)
        let snowLater = clockwork.step(clearDecision.state, now: decisionTime.addingTimeInterval(3600), previous: decisionTime, zone: berlin, daysOff: days)
        #expect(snowLater.nextFires["a"] == UTC.date(2026, 12, 7, 6))
    }

    func agenda(_ events: [CalendarEvent], known: Bool = true) -> Agenda {
        Agenda(feeds: ["work": FeedAgenda(id: "work", events: events, known: known)])
    }

    @Test("a calendar alarm rings lead_min before the day's first event, within earliest and latest; a keyword filters")
    func calendarMoves() throws {
        let rule = AlarmCalendar(feed: "work", leadMinutes: 60, earliest: try time("05:30"), latest: try time("09:30"), keyword: "")
        let alarm = Alarm(id: "a", time: try time("07:00"), days: Set(Weekday.allCases), sound: "tone", calendar: rule)
        let evening = UTC.date(2026, 12, 6, 20)
        var days = DaysOff.none
        // Dentist at 07:30 local (06:30 UTC) and a later meeting.
        days.agenda = agenda([
            CalendarEvent(title: "Team", when: .timed(start: UTC.date(2026, 12, 7, 9), end: UTC.date(2026, 12, 7, 10))),
            CalendarEvent(title: "Dentist", when: .timed(start: UTC.date(2026, 12, 7, 6, 30), end: UTC.date(2026, 12, 7, 7))),
        ])
        let plan = try #require(AlarmSchedule.nextPlan(of: alarm, after: evening, in: berlin, daysOff: days))
        #expect(plan.instant == UTC.date(2026, 12, 7, 5, 30), "06:30 local, an hour before 07:30")
        #expect(plan.move?.event == AlarmMove.Event(feed: "work", title: "Dentist", start: UTC.date(2026, 12, 7, 6, 30)))
        // A keyword: only the team meeting counts (10:00 local, an hour before is 09:00).
        var keyed = alarm
        keyed.calendar?.keyword = "team"
        #expect(AlarmSchedule.nextFire(of: keyed, after: evening, in: berlin, daysOff: days) == UTC.date(2026, 12, 7, 8))
        // An event at 05:00 local rings at earliest (05:30); one at 12:00 at latest (09:30).
        days.agenda = agenda([CalendarEvent(title: "Flight", when: .timed(start: UTC.date(2026, 12, 7, 4), end: UTC.date(2026, 12, 7, 6)))])
        #expect(AlarmSchedule.nextFire(of: alarm, after: evening, in: berlin, daysOff: days) == UTC.date(2026, 12, 7, 4, 30))
        days.agenda = agenda([CalendarEvent(title: "Lunch", when: .timed(start: UTC.date(2026, 12, 7, 11), end: UTC.date(2026, 12, 7, 12)))])
        #expect(AlarmSchedule.nextFire(of: alarm, after: evening, in: berlin, daysOff: days) == UTC.date(2026, 12, 7, 8, 30))
    }

    @Test("a day without an event rings at the alarm's own time or skips (no_event); a feed never fetched leaves the alarm alone")
    func noEvent() throws {
        var rule = AlarmCalendar(feed: "work")
        let evening = UTC.date(2026, 12, 6, 20)
        var days = DaysOff.none
        days.agenda = agenda([CalendarEvent(title: "Standup", when: .timed(start: UTC.date(2026, 12, 8, 8), end: UTC.date(2026, 12, 8, 9)))])
        var alarm = Alarm(id: "a", time: try time("07:00"), days: Set(Weekday.allCases), sound: "tone", calendar: rule)
        #expect(AlarmSchedule.nextFire(of: alarm, after: evening, in: berlin, daysOff: days) == UTC.date(2026, 12, 7, 6))
        rule.noEvent = .skip
        alarm.calendar = rule
        // Monday 7 December has no event: skipped; Tuesday's standup at 09:00 local rings at 08:00.
        #expect(AlarmSchedule.nextFire(of: alarm, after: evening, in: berlin, daysOff: days) == UTC.date(2026, 12, 8, 7))
        let skip = try #require(AlarmSchedule.nextSkip(of: alarm, after: evening, in: berlin, daysOff: days))
        #expect(skip.instant == UTC.date(2026, 12, 7, 6) && skip.skip.reason == .noEvent && SkipReason.noEvent.rawValue == "no_event")
        // Never fetched: its own time, every day.
        days.agenda = agenda([], known: false)
        #expect(AlarmSchedule.nextFire(of: alarm, after: evening, in: berlin, daysOff: days) == UTC.date(2026, 12, 7, 6))
    }

    @Test("all-day events named by settings.wake.calendar_days_off are days off for calendar alarms and skip_holidays alarms")
    func calendarDaysOff() throws {
        let evening = UTC.date(2026, 12, 6, 20)
        var days = WakeSettings().daysOff(calendar: nil, years: 2026...2027)
        #expect(days.calendarDaysOff == ["vacation", "Urlaub", "Ferien"])
        let first = try #require(CivilDate(iso: "2026-12-07")), end = try #require(CivilDate(iso: "2026-12-09"))
        days.agenda = agenda([CalendarEvent(title: "Urlaub Mallorca", when: .allDay(first: first, end: end))])
        let plain = Alarm(id: "p", time: try time("07:00"), days: Set(Weekday.allCases), sound: "tone")
        var holidays = plain
        holidays.skipHolidays = true
        var following = plain
        following.calendar = AlarmCalendar(feed: "work")
        #expect(AlarmSchedule.nextFire(of: plain, after: evening, in: berlin, daysOff: days) == UTC.date(2026, 12, 7, 6))
        for alarm in [holidays, following] {
            #expect(AlarmSchedule.nextFire(of: alarm, after: evening, in: berlin, daysOff: days) == UTC.date(2026, 12, 9, 6), "the end date is excluded")
            let skip = try #require(AlarmSchedule.nextSkip(of: alarm, after: evening, in: berlin, daysOff: days))
            #expect(skip.skip.reason == .dayOff && skip.skip.name(.de) == "Urlaub Mallorca")
        }
        days.calendarDaysOff = ["Ferien"]
        #expect(AlarmSchedule.nextFire(of: following, after: evening, in: berlin, daysOff: days) == UTC.date(2026, 12, 7, 6))
        let error = try #require(throws: CommandError.self) { try WakeSettings().applying(["calendar_days_off": ["ok", ""]]) }
        #expect(error.field == "wake.calendar_days_off")
        #expect(try WakeSettings().applying(["calendar_days_off": ["Ferien", "Ferien"]]).calendarDaysOff == ["Ferien"])
    }

    @Test("a calendar alarm across the spring-forward change in Berlin: an hour before 08:00 CEST is 07:00 CEST")
    func daylightSaving() throws {
        let alarm = Alarm(id: "a", time: try time("09:00"), days: Set(Weekday.allCases), sound: "tone", calendar: AlarmCalendar(feed: "work"))
        var days = DaysOff.none
        // Sunday 29 March 2026, 08:00 CEST = 06:00 UTC.
        days.agenda = agenda([CalendarEvent(title: "Run", when: .timed(start: UTC.date(2026, 3, 29, 6), end: UTC.date(2026, 3, 29, 7)))])
        #expect(AlarmSchedule.nextFire(of: alarm, after: UTC.date(2026, 3, 28, 20), in: berlin, daysOff: days) == UTC.date(2026, 3, 29, 5))
    }

    @Test("calendar is read field by field, each error named; null and all-zero clear; the stored alarm keeps both")
    func fields() throws {
        for (value, field) in [
            (["lead_min": 60] as JSONValue, "calendar.feed"), (["feed": "Work!"], "calendar.feed"), (["feed": "w", "lead_min": 721], "calendar.lead_min"),
            (["feed": "w", "earliest": "7"], "calendar.earliest"), (["feed": "w", "earliest": "09:00", "latest": "08:00"], "calendar.latest"),
            (["feed": "w", "no_event": "maybe"], "calendar.no_event"), (["feed": "w", "when": 1], "calendar.when"), (true, "calendar"),
        ] {
            let error = try #require(throws: CommandError.self) { try AlarmCalendar(value) }
            #expect(error.field == field, "\(value.serialized)")
        }
        let arguments = CommandArguments(["time": "07:00", "earlier_if": ["snow": 15], "calendar": ["feed": "school", "keyword": "Schule", "no_event": "skip"]])
        let alarm = try AlarmDraft(arguments).alarm(id: "a", defaultSound: "tone")
        #expect(alarm.earlierIf == EarlierIf(snow: 15) && alarm.calendar?.keyword == "Schule" && alarm.calendar?.noEvent == .skip)
        #expect(alarm.calendar?.leadMinutes == 60 && alarm.calendar?.earliest.description == "05:30")
        #expect(try Alarm(stored: alarm.stored) == alarm)
        let cleared = try AlarmFields(CommandArguments(["earlier_if": ["snow": 0], "calendar": nil])).applied(to: alarm)
        #expect(cleared.earlierIf == nil && cleared.calendar == nil)
        #expect(alarm.json(nextFire: nil).objectValue?["calendar"]?.objectValue?["feed"] == "school")
    }

    @Test("B/calendar: each feed's next seven days, the first timed event and the day off; the briefing names the first events")
    func agendaJSON() throws {
        let today = try #require(CivilDate(iso: "2026-12-07"))
        let line = Array(#"{"uid":"a@x","summary":"Zahnarzt \"Dr. Ö\"","start":1796628600,"end":1796630400,"all_day":false}"#.utf8)
        let dentist = try #require(CalendarEvent(line: line[...]))
        #expect(dentist.title == "Zahnarzt \"Dr. Ö\"" && dentist.start == Date(timeIntervalSince1970: 1_796_628_600))
        let allDay = try #require(CalendarEvent(line: Array(#"{"summary":"Ferien","date":"2026-12-08","end_date":"2026-12-10","all_day":true}"#.utf8)[...]))
        let ninth = try #require(CivilDate(iso: "2026-12-09")), tenth = try #require(CivilDate(iso: "2026-12-10"))
        #expect(allDay.covers(ninth) && !allDay.covers(tenth))
        #expect(CalendarEvent.lines(Array("garbage\n{\"start\":\"x\"}\n".utf8)).isEmpty)
        let agenda = Agenda(feeds: ["work": FeedAgenda(id: "work", events: [dentist, allDay], known: true, fetchedAt: UTC.date(2026, 12, 6, 21))])
        let json = agenda.json(today: today, zone: berlin, keywords: ["Ferien"]) { ISOTime.string($0, in: berlin) }
        guard case .array(let feeds)? = json[member: "feeds"], let feed = feeds.first?.objectValue else { Issue.record("no feeds in \(json)"); return }
        #expect(feed["id"] == "work" && feed["ok"] == true && feed["events"] == 2 && feed["fetched_at"] == "2026-12-06T22:00:00+01:00")
        guard case .array(let days)? = feed["days"] else { Issue.record("no days"); return }
        #expect(days.count == 7)
        #expect(days[0] == ["date": "2026-12-07", "first": ["title": "Zahnarzt \"Dr. Ö\"", "start": "2026-12-07T08:30:00+01:00"], "day_off": nil])
        #expect(days[1] == ["date": "2026-12-08", "first": nil, "day_off": "Ferien"])
        #expect(agenda.briefing(on: today, zone: berlin, .en) == "First today: Zahnarzt \"Dr. Ö\" at eight thirty.")
        #expect(agenda.briefing(on: today, zone: berlin, .de)?.hasPrefix("Heute zuerst: Zahnarzt \"Dr. Ö\" um acht Uhr dreißig") == true)
        #expect(agenda.briefing(on: CivilDate(daysSinceEpoch: today.daysSinceEpoch + 1), zone: berlin, .en) == nil)
    }

    @Test("ISO times as Home Assistant and Open-Meteo write them: with Z, an offset, a fraction, or local")
    func isoTimes() throws {
        #expect(ISOTime.parse("2026-12-07T06:00:00+01:00", in: .utc) == UTC.date(2026, 12, 7, 5))
        #expect(ISOTime.parse("2026-12-07T06:00:00.250Z", in: berlin) == UTC.date(2026, 12, 7, 6).addingTimeInterval(0.25))
        #expect(ISOTime.parse("2026-12-07T06:00-05:00", in: .utc) == UTC.date(2026, 12, 7, 11))
        #expect(ISOTime.parse("2026-12-07T06:00", in: berlin) == UTC.date(2026, 12, 7, 5))
        for bad in ["2026-12-07", "2026-12-07T25:00", "2026-12-07T06:00+1", "x", "2026-13-01T06:00", "2026-12-07T06:00:xx"] {
            #expect(ISOTime.parse(bad, in: .utc) == nil, "\(bad)")
        }
    }

    @Test("calendar.feeds: an id and a url or a file, each error naming the item's key; a secret address is never shown")
    func feeds() throws {
        func resolve(_ file: [String: String]) throws -> ResolvedConfiguration {
            try ConfigurationSchema.resolve(file: file, fileName: "noiseclock.yaml", environment: [:], hostname: "host")
        }
        let resolved = try resolve([
            "calendar.feeds[0].id": "work", "calendar.feeds[0].url": "https://calendar.google.com/calendar/ical/secret/basic.ics",
            "calendar.feeds[1].id": "school", "calendar.feeds[1].file": "/var/lib/noiseclock/school.ics", "calendar.refresh_min": "30",
        ])
        #expect(resolved.configuration.calendar.feeds.map(\.id) == ["work", "school"] && resolved.configuration.calendar.refreshMinutes == 30)
        #expect(resolved.configuration.calendar.feeds.last?.location == .file("/var/lib/noiseclock/school.ics"))
        let shown = resolved.values.map(\.value).joined(separator: " ")
        #expect(shown.contains("work: url <https://calendar.google.com/…>") && !shown.contains("secret"))
        #expect(try resolve([:]).configuration.calendar == Configuration.CalendarFeeds(), "no feeds, every 15 minutes")
        for (file, key) in [
            (["calendar.feeds[0].url": "https://x/a.ics"], "calendar.feeds[0].id"),
            (["calendar.feeds[0].id": "Work", "calendar.feeds[0].url": "https://x/a.ics"], "calendar.feeds[0].id"),
            (["calendar.feeds[0].id": "w"], "calendar.feeds[0]"),
            (["calendar.feeds[0].id": "w", "calendar.feeds[0].url": "ftp://x/a.ics"], "calendar.feeds[0].url"),
            (["calendar.feeds[0].id": "w", "calendar.feeds[0].file": "school.ics"], "calendar.feeds[0].file"),
            (["calendar.feeds[0].id": "w", "calendar.feeds[0].file": "/a", "calendar.feeds[0].url": "https://x/"], "calendar.feeds[0]"),
            (["calendar.feeds[0].id": "w", "calendar.feeds[0].file": "/a", "calendar.feeds[1].id": "w", "calendar.feeds[1].file": "/b"], "calendar.feeds[1].id"),
            (["calendar.refresh_min": "1"], "calendar.refresh_min"),
        ] {
            let error = try #require(throws: ConfigurationError.self) { try resolve(file) }
            #expect(error.key == key, "\(file)")
        }
        #expect(CalendarFeedText.redacted("http://127.0.0.1:8080") == "http://127.0.0.1:8080")
        #expect(CalendarFeedText.redacted("https://cloud.example/remote.php/dav?export") == "https://cloud.example/…")
    }
}

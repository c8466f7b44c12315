import Foundation
import NoiseClockCore
import Testing

@Suite("Clock face (B/clock)")
struct ClockFaceTests {
    private func face(
        _ zone: String, _ format: TimeFormat = .twentyFourHour, seconds: Bool = false, locale: String = "en_US",
        publishSeconds: Bool = false
    ) -> ClockFace {
        ClockFace(settings: ClockSettings(timeFormat: format, showSeconds: seconds, timezone: zone, locale: locale, publishSeconds: publishSeconds))
    }

    /// Monday 7 September 2026, 05:05:00 UTC: 07:05 in Berlin (summer time, +02:00).
    private let mondayMorning = UTC.date(2026, 9, 7, 5, 5, 0)

    @Test("the test calendar agrees with epoch seconds computed by hand")
    func fixtureSanity() {
        // 20703 days from 1970-01-01 to 2026-09-07 (56 years, 14 leap days, 249 days into 2026).
        let midnight: TimeInterval = 20_703 * 86_400
        let morning: TimeInterval = midnight + 5 * 3600 + 5 * 60
        #expect(UTC.date(2026, 9, 7) == Date(timeIntervalSince1970: midnight))
        #expect(mondayMorning.timeIntervalSince1970 == morning)
    }

    // MARK: time

    @Test("24h time has two-digit hours and minutes")
    func twentyFourHour() {
        #expect(face("Europe/Berlin").time(at: mondayMorning) == "07:05")
        #expect(face("UTC").time(at: UTC.date(2026, 9, 7, 0, 0)) == "00:00")
        #expect(face("UTC").time(at: UTC.date(2026, 9, 7, 23, 59)) == "23:59")
        #expect(face("UTC").time(at: UTC.date(2026, 9, 7, 13, 7)) == "13:07")
    }

    @Test("12h time has no leading zero and an AM/PM marker", arguments: [
        (5, 5, "7:05 AM"),  // 07:05 in Berlin
        (10, 0, "12:00 PM"),  // noon
        (11, 45, "1:45 PM"),
        (21, 59, "11:59 PM"),
    ])
    func twelveHour(utcHour: Int, minute: Int, expected: String) {
        #expect(face("Europe/Berlin", .twelveHour).time(at: UTC.date(2026, 9, 7, utcHour, minute)) == expected)
    }

    @Test("12h time just after midnight is 12, AM")
    func twelveHourMidnight() {
        // 22:30 UTC on the 6th is 00:30 on the 7th in Berlin.
        #expect(face("Europe/Berlin", .twelveHour).time(at: UTC.date(2026, 9, 6, 22, 30)) == "12:30 AM")
        #expect(face("UTC", .twelveHour).time(at: UTC.date(2026, 9, 7, 0, 0)) == "12:00 AM")
    }

    @Test("show_seconds adds two-digit seconds in either format")
    func seconds() {
        let instant = UTC.date(2026, 9, 7, 5, 5, 9)
        #expect(face("Europe/Berlin", seconds: true).time(at: instant) == "07:05:09")
        #expect(face("Europe/Berlin", .twelveHour, seconds: true).time(at: instant) == "7:05:09 AM")
    }

    @Test("the display never shows a second or minute before it has begun")
    func truncatesFractions() {
        let almost = mondayMorning.addingTimeInterval(-0.001)  // 07:04:59.999 in Berlin
        #expect(face("Europe/Berlin", seconds: true).time(at: almost) == "07:04:59")
        #expect(face("Europe/Berlin").time(at: almost) == "07:04")
        #expect(face("Europe/Berlin").time(at: mondayMorning) == "07:05")
    }

    @Test("one instant reads differently in Berlin, New York and Kolkata")
    func zones() {
        // 05:05 UTC: Berlin +02:00, New York -04:00 (EDT), Kolkata +05:30, Kathmandu +05:45.
        #expect(face("Europe/Berlin").time(at: mondayMorning) == "07:05")
        #expect(face("America/New_York").time(at: mondayMorning) == "01:05")
        #expect(face("Asia/Kolkata").time(at: mondayMorning) == "10:35")
        #expect(face("Asia/Kathmandu").time(at: mondayMorning) == "10:50")
        #expect(face("UTC").time(at: mondayMorning) == "05:05")
    }

    @Test("winter time uses the winter offset")
    func winter() {
        let noonUTC = UTC.date(2026, 1, 15, 12, 0)
        #expect(face("Europe/Berlin").time(at: noonUTC) == "13:00")
        #expect(face("America/New_York").time(at: noonUTC) == "07:00")
        #expect(face("Asia/Kolkata").time(at: noonUTC) == "17:30")
    }

    @Test("the clock jumps from 01:59:59 to 03:00:00 when Berlin springs forward")
    func springForward() {
        // 29 March 2026: 01:00 UTC is when CET (+01:00) becomes CEST (+02:00).
        let berlin = face("Europe/Berlin", seconds: true)
        let change = UTC.date(2026, 3, 29, 1, 0, 0)
        #expect(berlin.time(at: change.addingTimeInterval(-1)) == "01:59:59")
        #expect(berlin.time(at: change) == "03:00:00")
    }

    @Test("an empty timezone setting means the system's zone")
    func systemZone() throws {
        let kolkata = try #require(Zone(identifier: "Asia/Kolkata"))
        let face = ClockFace(settings: ClockSettings(timezone: ""), systemZone: kolkata)
        #expect(face.timeZone.identifier == "Asia/Kolkata")
        #expect(face.time(at: mondayMorning) == "10:35")
        #expect(face.state(at: mondayMorning).timezone == "Asia/Kolkata")
    }

    @Test("a named timezone wins over the system's zone")
    func namedZoneWins() throws {
        let kolkata = try #require(Zone(identifier: "Asia/Kolkata"))
        let face = ClockFace(settings: ClockSettings(timezone: "America/New_York"), systemZone: kolkata)
        #expect(face.timeZone.identifier == "America/New_York")
        #expect(face.time(at: mondayMorning) == "01:05")
    }

    // MARK: date

    @Test("the date reads d MMMM EEE: 7 September Mon")
    func dateEnglish() {
        #expect(face("Europe/Berlin").state(at: mondayMorning).date == "7 September Mon")
    }

    @Test("a two-digit day and another weekday")
    func dateTwoDigitDay() {
        // 22 November 2026 is a Sunday (76 days after Monday 7 September; 76 = 10 * 7 + 6).
        #expect(face("Europe/Berlin").state(at: UTC.date(2026, 11, 22, 6, 30)).date == "22 November Sun")
    }

    @Test("German dates have German names and the day's period", arguments: ["de_DE", "de-DE", "de"])
    func dateGerman(locale: String) {
        let german = face("Europe/Berlin", locale: locale)
        #expect(german.state(at: mondayMorning).date == "7. September Mo.")
        // 2 March 2026 is a Monday too (day 61 of the year; day 250 is 7 September; 189 = 27 * 7).
        #expect(german.state(at: UTC.date(2026, 3, 2, 8, 0)).date == "2. März Mo.")
        // 23 November 2026, the issue's example: 77 days after 7 September, a Monday.
        #expect(german.state(at: UTC.date(2026, 11, 23, 8, 0)).date == "23. November Mo.")
        #expect(face("Europe/Berlin").state(at: UTC.date(2026, 3, 2, 8, 0)).date == "2 March Mon")
    }

    @Test("with no locale set the date is in the node's language")
    func dateFollowsLanguage() {
        func face(_ language: Language, locale: String = "") -> ClockFace {
            ClockFace(settings: ClockSettings(timezone: "Europe/Berlin", locale: locale, language: language))
        }
        let friday = UTC.date(2026, 11, 27, 8, 0)
        #expect(face(.de).date(at: friday) == "27. November Fr.")
        #expect(face(.en).date(at: friday) == "27 November Fri")
        // A locale the user set wins over the language, both ways.
        #expect(face(.de, locale: "en_GB").date(at: friday) == "27 November Fri")
        #expect(face(.en, locale: "de_AT").date(at: friday) == "27. November Fr.")
    }

    /// ICU's form for the date: "d MMMM EEE", with the day's period where ICU's own pattern for a
    /// day and a wide month has one ("d. MMMM").
    private func icuFormat(_ identifier: String, zone: TimeZone, calendar: Calendar) -> Date.VerbatimFormatStyle {
        let locale = Locale(identifier: identifier)
        let pattern = DateFormatter.dateFormat(fromTemplate: "dMMMM", options: 0, locale: locale) ?? ""
        let format: Date.FormatString = pattern.contains("d. MMMM")
            ? "\(day: .defaultDigits). \(month: .wide) \(weekday: .abbreviated)"
            : "\(day: .defaultDigits) \(month: .wide) \(weekday: .abbreviated)"
        return Date.VerbatimFormatStyle(format: format, locale: locale, timeZone: zone, calendar: calendar)
    }

    @Test("the date is what ICU writes for \"d MMMM EEE\" (\"d. MMMM EEE\" where ICU puts the period) in every locale the node offers, every day of a year")
    func dateMatchesICU() throws {
        #expect(DateNames.identifiers.count > 100)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = try #require(TimeZone(identifier: "UTC"))
        var withPeriod = 0
        for identifier in DateNames.identifiers {
            let face = face("UTC", locale: identifier)
            let icu = icuFormat(identifier, zone: utc.timeZone, calendar: utc)
            if DateNames.writesDayWithPeriod(identifier) { withPeriod += 1 }
            // Noon on each day of 2027 (a year that starts on a Friday).
            for day in stride(from: 0, to: 365, by: 1) {
                let instant = UTC.date(2027, 1, 1, 12).addingTimeInterval(Double(day) * 86_400)
                let expected = instant.formatted(icu)
                guard face.state(at: instant).date == expected else {
                    Issue.record("\(identifier) on day \(day): \(face.state(at: instant).date) vs ICU \(expected)")
                    break
                }
            }
        }
        // German, the Nordic and most Slavic and Baltic locales: the oracle's branch is taken.
        #expect(withPeriod > 20)
    }

    @Test("the date follows the zone across midnight")
    func dateFollowsZone() {
        // 23:30 UTC on Sunday the 6th: already Monday in Berlin, still Sunday evening in New York.
        let instant = UTC.date(2026, 9, 6, 23, 30)
        #expect(face("Europe/Berlin").state(at: instant).date == "7 September Mon")
        #expect(face("America/New_York").state(at: instant).date == "6 September Sun")
    }

    // MARK: state

    @Test("the clock state carries the SPEC §2 members")
    func stateJSON() {
        let state = face("Europe/Berlin").state(at: mondayMorning)
        #expect(state.json == [
            "time": "07:05", "date": "7 September Mon", "iso": "2026-09-07T07:05:00+02:00", "timezone": "Europe/Berlin",
            "time_format": "24h", "show_seconds": false,
        ])
    }

    @Test("the clock state reports the format and seconds settings")
    func stateSettings() {
        let state = face("America/New_York", .twelveHour, seconds: true).state(at: mondayMorning)
        #expect(state.timeFormat == .twelveHour)
        #expect(state.showSeconds)
        #expect(state.time == "1:05:00 AM")
        #expect(state.iso == "2026-09-07T01:05:00-04:00")
        #expect(state.json[member: "time_format"] == "12h")
        #expect(state.json[member: "show_seconds"] == true)
    }

    // MARK: ticks

    @Test("by default the clock is published once a minute, with publish_seconds once a second")
    func period() {
        #expect(face("UTC").period == 60)
        #expect(face("UTC", publishSeconds: true).period == 1)
    }

    @Test("the next tick after 07:04:59.5 is exactly 07:05:00")
    func nextTickJustBefore() {
        let berlin = face("Europe/Berlin")
        #expect(berlin.nextTick(after: mondayMorning.addingTimeInterval(-0.5)) == mondayMorning)
    }

    @Test("the next tick after exactly 07:05:00 is 07:06:00")
    func nextTickOnBoundary() {
        #expect(face("Europe/Berlin").nextTick(after: mondayMorning) == UTC.date(2026, 9, 7, 5, 6, 0))
    }

    @Test("the tick changes exactly when the minute does")
    func tickChangesAtMinute() {
        let berlin = face("Europe/Berlin")
        let tick = berlin.tick(at: mondayMorning)
        #expect(berlin.tick(at: mondayMorning.addingTimeInterval(-0.001)) == tick - 1)
        #expect(berlin.tick(at: mondayMorning.addingTimeInterval(59.999)) == tick)
        #expect(berlin.tick(at: mondayMorning.addingTimeInterval(60)) == tick + 1)
    }

    @Test("minute ticks fall on the wall clock's minute in every zone, even half- and quarter-hour ones", arguments: [
        "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "Australia/Eucla",
    ])
    func minuteTicksAlign(zone: String) {
        let face = face(zone)
        let wall = calendar(in: zone)
        var instant = UTC.date(2026, 9, 7, 5, 4, 17).addingTimeInterval(0.25)
        for _ in 0..<5 {
            let next = face.nextTick(after: instant)
            #expect(next > instant)
            #expect(next.timeIntervalSince(instant) <= 60)
            #expect(wall.component(.second, from: next) == 0)
            #expect(next.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) == 0)
            #expect(face.time(at: next) != face.time(at: instant))
            instant = next.addingTimeInterval(13.5)
        }
    }

    @Test("with publish_seconds the next tick is the start of the next second")
    func secondTicks() {
        let berlin = face("Europe/Berlin", seconds: true, publishSeconds: true)
        #expect(berlin.nextTick(after: mondayMorning.addingTimeInterval(-0.5)) == mondayMorning)
        #expect(berlin.nextTick(after: mondayMorning) == UTC.date(2026, 9, 7, 5, 5, 1))
        #expect(berlin.nextTick(after: mondayMorning.addingTimeInterval(0.25)) == UTC.date(2026, 9, 7, 5, 5, 1))
        #expect(berlin.tick(at: mondayMorning) + 1 == berlin.tick(at: mondayMorning.addingTimeInterval(1)))
        #expect(berlin.tick(at: mondayMorning) == berlin.tick(at: mondayMorning.addingTimeInterval(0.999)))
    }

    @Test("a tick lands where the display shows the new minute")
    func tickShowsNewMinute() {
        let berlin = face("Europe/Berlin")
        let next = berlin.nextTick(after: UTC.date(2026, 9, 7, 5, 4, 59).addingTimeInterval(0.5))
        #expect(berlin.time(at: next) == "07:05")
    }
}

@Suite("ISO time (SPEC §2: every time is ISO 8601 with its UTC offset)")
struct ISOTimeTests {
    private func zone(_ identifier: String) throws -> Zone {
        try #require(Zone(identifier: identifier))
    }

    @Test("UTC is written +00:00, never Z")
    func utc() throws {
        let instant = UTC.date(2026, 9, 7, 5, 5, 0)
        #expect(ISOTime.string(instant, in: try zone("UTC")) == "2026-09-07T05:05:00+00:00")
        #expect(ISOTime.string(instant, in: .utc) == "2026-09-07T05:05:00+00:00")
        #expect(!ISOTime.string(instant, in: try zone("UTC")).contains("Z"))
    }

    @Test("Kolkata is +05:30")
    func kolkata() throws {
        #expect(ISOTime.string(UTC.date(2026, 9, 7, 5, 5, 0), in: try zone("Asia/Kolkata")) == "2026-09-07T10:35:00+05:30")
    }

    @Test("New York is -05:00 in winter and -04:00 in summer")
    func newYork() throws {
        #expect(ISOTime.string(UTC.date(2026, 1, 15, 12, 0, 0), in: try zone("America/New_York")) == "2026-01-15T07:00:00-05:00")
        #expect(ISOTime.string(UTC.date(2026, 9, 7, 5, 5, 0), in: try zone("America/New_York")) == "2026-09-07T01:05:00-04:00")
    }

    @Test("Berlin is +02:00 in summer and +01:00 in winter")
    func berlin() throws {
        #expect(ISOTime.string(UTC.date(2026, 9, 7, 5, 5, 0), in: try zone("Europe/Berlin")) == "2026-09-07T07:05:00+02:00")
        // The example of SPEC §2.
        #expect(ISOTime.string(UTC.date(2026, 11, 22, 6, 30, 0), in: try zone("Europe/Berlin")) == "2026-11-22T07:30:00+01:00")
    }

    @Test("a negative offset with minutes keeps both: St John's is -03:30")
    func stJohns() throws {
        #expect(ISOTime.string(UTC.date(2026, 1, 15, 12, 0, 0), in: try zone("America/St_Johns")) == "2026-01-15T08:30:00-03:30")
    }

    @Test("the offset changes at the daylight-saving switch")
    func dstSwitch() throws {
        let berlin = try zone("Europe/Berlin")
        let change = UTC.date(2026, 3, 29, 1, 0, 0)
        #expect(ISOTime.string(change.addingTimeInterval(-1), in: berlin) == "2026-03-29T01:59:59+01:00")
        #expect(ISOTime.string(change, in: berlin) == "2026-03-29T03:00:00+02:00")
    }

    @Test("the local date rolls over with the zone")
    func rollsOver() throws {
        #expect(ISOTime.string(UTC.date(2026, 12, 31, 23, 30, 0), in: try zone("Asia/Kolkata")) == "2027-01-01T05:00:00+05:30")
        #expect(ISOTime.string(UTC.date(2027, 1, 1, 2, 0, 0), in: try zone("America/New_York")) == "2026-12-31T21:00:00-05:00")
    }

    @Test("fractions of a second are dropped, not rounded up")
    func fractions() throws {
        let instant = UTC.date(2026, 9, 7, 5, 4, 59).addingTimeInterval(0.9)
        #expect(ISOTime.string(instant, in: try zone("UTC")) == "2026-09-07T05:04:59+00:00")
    }

    @Test("the text parses back to the same instant", arguments: [
        "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham",
    ])
    func parsesBack(identifier: String) throws {
        let instant = UTC.date(2026, 9, 7, 5, 5, 42)
        let text = ISOTime.string(instant, in: try zone(identifier))
        let parsed = try Date(text, strategy: .iso8601)
        #expect(parsed == instant, "\(text)")
    }
}

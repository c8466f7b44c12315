import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

private func day(_ text: String) -> CivilDate {
    guard let date = CivilDate(iso: text) else { fatalError("not a date: \(text)") }
    return date
}

private func dates(_ calendar: HolidayCalendar?, _ year: Int) -> [String] {
    calendar?.holidays(in: year).map(\.date.iso) ?? []
}

/// Known dates, each checked by hand against a printed calendar. (The suite's
/// HolidayReferenceTests compares every region and year 2000-2050 with the Python reference.)
@Suite("Holidays: the rules, by known dates")
struct HolidayRuleTests {
    @Test("Easter Sunday by the Gregorian computus", arguments: [
        (2000, "2000-04-23"), (2008, "2008-03-23"), (2011, "2011-04-24"), (2019, "2019-04-21"), (2026, "2026-04-05"), (2038, "2038-04-25"),
    ])
    func easter(year: Int, expected: String) {
        let calendar = HolidayCalendar(country: "NL")
        #expect(dates(calendar, year).contains(expected))
        #expect(calendar?.holidays(in: year).first { $0.date.iso == expected }?.name(.en) == "Easter Sunday")
    }

    @Test("Germany: the national days, and what Bavaria, Saxony and Berlin add")
    func germany() throws {
        let national = try #require(HolidayCalendar(country: "DE"))
        #expect(dates(national, 2026) == [
            "2026-01-01", "2026-04-03", "2026-04-06", "2026-05-01", "2026-05-14", "2026-05-25", "2026-10-03", "2026-12-25", "2026-12-26",
        ])
        // 2017: Reformation Day everywhere, once.
        #expect(dates(national, 2017).contains("2017-10-31"))
        #expect(!dates(national, 2018).contains("2018-10-31"))
        let bavaria = try #require(HolidayCalendar(country: "de", region: "DE-BY"))
        #expect(bavaria.region == "BY")
        #expect(Set(dates(bavaria, 2026)).subtracting(dates(national, 2026)) == ["2026-01-06", "2026-06-04", "2026-11-01"])
        // Repentance Day: the Wednesday on or before 22 November (22 November itself in 2017).
        let saxony = try #require(HolidayCalendar(country: "DE", region: "SN"))
        #expect(dates(saxony, 2026).contains("2026-11-18"))
        #expect(dates(saxony, 2017).contains("2017-11-22"))
        #expect(saxony.holidays(in: 2026).first { $0.date.iso == "2026-11-18" }?.name(.de) == "Buß- und Bettag")
        let berlin = try #require(HolidayCalendar(country: "DE", region: "BE"))
        #expect(dates(berlin, 2025).contains("2025-05-08"))
        #expect(!dates(berlin, 2018).contains("2018-03-08"))
        #expect(dates(berlin, 2019).contains("2019-03-08"))
    }

    @Test("the United Kingdom's substitute days: Christmas on a weekend, Scotland's New Year")
    func unitedKingdom() throws {
        let england = try #require(HolidayCalendar(country: "GB", region: "ENG"))
        // 2021: Christmas on Saturday, Boxing Day on Sunday: Monday 27 and Tuesday 28 off.
        #expect(Set(dates(england, 2021)).isSuperset(of: ["2021-12-25", "2021-12-26", "2021-12-27", "2021-12-28"]))
        #expect(england.holidays(in: 2021).first { $0.date.iso == "2021-12-28" }?.name(.en) == "Boxing Day (observed)")
        // 2022: Christmas on Sunday: Tuesday 27 for it, Monday 26 is Boxing Day.
        #expect(Set(dates(england, 2022)).isSuperset(of: ["2022-12-26", "2022-12-27"]))
        // Scotland 2022: 1 January a Saturday, 2 January a Sunday: Monday 3 and Tuesday 4.
        let scotland = try #require(HolidayCalendar(country: "GB", region: "SCT"))
        #expect(Set(dates(scotland, 2022)).isSuperset(of: ["2022-01-03", "2022-01-04"]))
        #expect(!dates(scotland, 2022).contains("2022-04-18"), "no Easter Monday in Scotland")
        #expect(dates(england, 2022).contains("2022-04-18"))
        // The one-off days: the Queen's funeral.
        #expect(dates(england, 2022).contains("2022-09-19"))
    }

    @Test("the United States: a Saturday holiday is observed the Friday before, across the new year too")
    func unitedStates() throws {
        let federal = try #require(HolidayCalendar(country: "US"))
        // 1 January 2022 was a Saturday: observed on Friday 31 December 2021.
        #expect(dates(federal, 2021).contains("2021-12-31"))
        #expect(federal.holidays(in: 2021).last?.name(.en) == "New Year's Day (observed)")
        #expect(dates(federal, 2026).contains("2026-11-26"), "Thanksgiving: the fourth Thursday of November")
        #expect(dates(federal, 2026).contains("2026-07-03"), "4 July 2026 is a Saturday")
        #expect(!dates(federal, 2020).contains("2020-06-19"))
        #expect(dates(federal, 2021).contains("2021-06-18"))
    }

    @Test("Switzerland: a canton's own days, and the days kept only on some weekdays")
    func switzerland() throws {
        let geneva = try #require(HolidayCalendar(country: "CH", region: "GE"))
        #expect(dates(geneva, 2026).contains("2026-09-10"), "the Thursday after the first Sunday of September")
        #expect(dates(geneva, 2026).contains("2026-12-31"))
        let neuchatel = try #require(HolidayCalendar(country: "CH", region: "NE"))
        #expect(!dates(neuchatel, 2026).contains("2026-12-26"), "26 December only when it is a Monday")
        #expect(dates(neuchatel, 2022).contains("2022-12-26"))
        let glarus = try #require(HolidayCalendar(country: "CH", region: "GL"))
        // 2026: the first Thursday of April is 2 April, Maundy Thursday: a week later.
        #expect(dates(glarus, 2026).contains("2026-04-09"))
    }

    @Test("the Netherlands: King's Day moves to Saturday when it is a Sunday; Liberation Day every fifth year")
    func netherlands() throws {
        let netherlands = try #require(HolidayCalendar(country: "NL"))
        #expect(dates(netherlands, 2025).contains("2025-04-26"))
        #expect(dates(netherlands, 2026).contains("2026-04-27"))
        #expect(dates(netherlands, 2025).contains("2025-05-05"))
        #expect(!dates(netherlands, 2026).contains("2026-05-05"))
    }

    @Test("an unknown country or region is refused", arguments: [("XX", ""), ("DE", "XX"), ("AT", "9"), ("GB", "DE-BY"), ("", "")])
    func unknown(country: String, region: String) {
        #expect(HolidayCalendar(country: country, region: region) == nil)
    }

    @Test("every holiday has a name in both languages, and each year's list is in date order")
    func namesAndOrder() {
        for entry in HolidayCalendar.supported {
            for region in [""] + entry.regions {
                guard let calendar = HolidayCalendar(country: entry.country, region: region) else {
                    Issue.record("\(entry.country)-\(region) is listed but not accepted")
                    continue
                }
                for year in [2000, 2026, 2050] {
                    let list = calendar.holidays(in: year)
                    #expect(list.count >= 4, "\(entry.country)-\(region) \(year)")
                    #expect(list.map(\.date.daysSinceEpoch) == list.map(\.date.daysSinceEpoch).sorted())
                    #expect(Set(list.map(\.date)).count == list.count)
                    #expect(list.allSatisfy { $0.date.year == year && !$0.name(.en).isEmpty && !$0.name(.de).isEmpty })
                }
            }
        }
    }
}

@Suite("Days off: vacation, holidays and days off in the alarm schedule")
struct DaysOffScheduleTests {
    private let berlin = Zone(identifier: "Europe/Berlin")!

    private func at(_ text: String) -> Date {
        // "2026-12-24T07:00" in Berlin.
        let parts = text.split(separator: "T")
        let date = day(String(parts[0]))
        let time = AlarmTime(String(parts[1]))!
        return AlarmSchedule.occurrence(of: time, on: date, in: berlin)
    }

    private func weekdays(_ skip: Bool) -> Alarm {
        Alarm(id: "w", time: AlarmTime(hour: 7, minute: 0)!, days: [.mon, .tue, .wed, .thu, .fri], sound: "digital-alarm", skipHolidays: skip)
    }

    @Test("an alarm with skip_holidays passes over Christmas; one without rings on it")
    func christmas() throws {
        let daysOff = DaysOff(calendar: HolidayCalendar(country: "DE"), years: 2026...2027)
        let now = at("2026-12-24T08:00")
        #expect(AlarmSchedule.nextFire(of: weekdays(true), after: now, in: berlin, daysOff: daysOff) == at("2026-12-28T07:00"))
        #expect(AlarmSchedule.nextFire(of: weekdays(false), after: now, in: berlin, daysOff: daysOff) == at("2026-12-25T07:00"))
        let skip = try #require(AlarmSchedule.nextSkip(of: weekdays(true), after: now, in: berlin, daysOff: daysOff))
        #expect(skip.instant == at("2026-12-25T07:00"))
        #expect(skip.skip.reason == .holiday)
        #expect(skip.skip.name(.en) == "Christmas Day")
        #expect(skip.skip.name(.de) == "Erster Weihnachtstag")
    }

    @Test("a vacation pauses every alarm through its last day, skip_holidays or not; the look ahead grows with it")
    func vacation() {
        let daysOff = DaysOff(vacationUntil: day("2027-01-20"))
        let now = at("2026-12-20T12:00")
        for alarm in [weekdays(true), weekdays(false), Alarm(id: "o", time: AlarmTime(hour: 6, minute: 30)!, sound: "digital-alarm")] {
            let fire = AlarmSchedule.nextFire(of: alarm, after: now, in: berlin, daysOff: daysOff)
            #expect(fire.map { AlarmSchedule.localDate(of: $0, in: berlin) } == "2027-01-21", "\(alarm.id)")
        }
    }

    @Test("days off are kept only by alarms with skip_holidays")
    func dayOff() {
        let daysOff = DaysOff(dates: [day("2026-12-01")])
        let now = at("2026-11-30T08:00")
        #expect(AlarmSchedule.nextFire(of: weekdays(true), after: now, in: berlin, daysOff: daysOff) == at("2026-12-02T07:00"))
        #expect(AlarmSchedule.nextFire(of: weekdays(false), after: now, in: berlin, daysOff: daysOff) == at("2026-12-01T07:00"))
    }

    @Test("the clockwork reports a skipped occurrence once, with its reason, and rings the next")
    func clockworkReportsSkips() throws {
        var state = AlarmState()
        _ = try state.book.add(AlarmDraft(time: AlarmTime(hour: 7, minute: 0)!,
                                          AlarmFields(days: [.mon, .tue, .wed, .thu, .fri], skipHolidays: true)),
                               id: "w", defaultSound: "digital-alarm")
        let clockwork = AlarmClockwork(grace: 600)
        let daysOff = DaysOff(calendar: HolidayCalendar(country: "DE"), dates: [day("2026-12-28")], years: 2026...2027)
        var previous: Date? = nil
        var skipped: [(String, SkipReason)] = []
        var rang: [String] = []
        // A look every minute from the evening of 23 December to the morning of 29 December.
        var now = at("2026-12-23T20:00")
        while now <= at("2026-12-29T07:05") {
            let step = clockwork.step(state, now: now, previous: previous, zone: berlin, daysOff: daysOff)
            skipped += step.skipped.map { (AlarmSchedule.localDate(of: $0.firesAt, in: berlin), $0.skip.reason) }
            for case .ring(let due) in step.outcomes { rang.append(AlarmSchedule.localDate(of: due.firesAt, in: berlin)) }
            state = step.state
            previous = now
            now = now.addingTimeInterval(60)
        }
        #expect(skipped.map(\.0) == ["2026-12-25", "2026-12-28"])
        #expect(skipped.map(\.1) == [.holiday, .dayOff])
        #expect(rang == ["2026-12-24", "2026-12-29"])
    }

    @Test("property: the next fire is the first occurrence no rule skips, on days that are not holidays, days off or vacation")
    func property() async {
        let calendar = HolidayCalendar(country: "DE", region: "BY")
        let instants = Gen.int(in: 1_767_225_600...1_830_297_600)
        let times = Gen.int(in: 0...1439)
        let dayMasks = Gen.int(in: 1...127)
        let offsets = Gen.int(in: 0...40)
        await propertyCheck(count: 300, input: instants, times, dayMasks, offsets) { seconds, minuteOfDay, mask, vacationDays in
            await computeInTurn {
                let now = Date(timeIntervalSince1970: Double(seconds))
                let today = LocalTime(now, in: berlin).date
                let vacation = vacationDays == 0 ? nil : CivilDate(daysSinceEpoch: today.daysSinceEpoch + Int64(vacationDays))
                let offDays: Set<CivilDate> = [CivilDate(daysSinceEpoch: today.daysSinceEpoch + 1), CivilDate(daysSinceEpoch: today.daysSinceEpoch + 45)]
                let daysOff = DaysOff(calendar: calendar, dates: offDays, vacationUntil: vacation, years: today.year...(today.year + 1))
                let days = Set(Weekday.allCases.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element))
                let alarm = Alarm(id: "p", time: AlarmTime(hour: minuteOfDay / 60, minute: minuteOfDay % 60)!, days: days,
                                  sound: "digital-alarm", skipHolidays: true)
                guard let fire = AlarmSchedule.nextFire(of: alarm, after: now, in: berlin, daysOff: daysOff) else {
                    Issue.record("an enabled alarm has a next fire after any vacation")
                    return
                }
                let fireDay = LocalTime(fire, in: berlin).date
                #expect(fire > now)
                #expect(daysOff.skip(alarm, on: fireDay) == nil)
                #expect(!offDays.contains(fireDay))
                #expect(calendar?.holidays(in: fireDay.year).contains { $0.date == fireDay } == false)
                if let vacation { #expect(fireDay.daysSinceEpoch > vacation.daysSinceEpoch) }
                // Nothing rings in between: every earlier occurrence is skipped.
                let plain = AlarmSchedule.nextFire(of: alarm, after: now, in: berlin)
                if let plain, plain < fire {
                    #expect(daysOff.skip(alarm, on: LocalTime(plain, in: berlin).date) != nil)
                }
            }
        }
    }
}

@Suite("Configuration: wake.holidays")
struct WakeConfigurationTests {
    private func resolve(_ file: [String: String]) throws(ConfigurationError) -> Configuration.Wake {
        try ConfigurationSchema.resolve(file: file, fileName: "test.yaml", environment: [:], hostname: "host").configuration.wake
    }

    @Test("no country: no holidays")
    func none() throws {
        #expect(try resolve([:]).holidays == nil)
    }

    @Test("a country and region, with or without the country's prefix")
    func countryAndRegion() throws {
        #expect(try resolve(["wake.holidays.country": "DE", "wake.holidays.region": "BY"]).holidays == HolidayCalendar(country: "DE", region: "BY"))
        #expect(try resolve(["wake.holidays.country": "GB", "wake.holidays.region": "GB-SCT"]).holidays?.region == "SCT")
        #expect(try resolve(["wake.holidays.country": "US"]).holidays?.country == "US")
    }

    @Test("a bad country or region is refused, naming the key", arguments: [
        (["wake.holidays.country": "XX"], "wake.holidays.country"),
        (["wake.holidays.country": "DE", "wake.holidays.region": "Bavaria"], "wake.holidays.region"),
        (["wake.holidays.country": "US", "wake.holidays.region": "CA"], "wake.holidays.region"),
        (["wake.holidays.region": "BY"], "wake.holidays.region"),
    ])
    func refused(file: [String: String], key: String) throws {
        let error = try #require(throws: ConfigurationError.self) { try resolve(file) }
        #expect(error.key == key)
    }
}

/// The holiday rules of each supported country (SPEC §12), as data for `HolidayCalendar`; each
/// matches the Python `holidays` package 0.60 for 2000-2050 (HolidayReferenceTests).

private func rule(_ en: String, _ de: String, _ day: HolidayDay) -> HolidayRule {
    HolidayRule(name: HolidayName(en: en, de: de), day: day)
}

private func once(_ en: String, _ de: String, _ year: Int, _ month: Int, _ day: Int) -> HolidayRule {
    rule(en, de, .fixed(month, day)).only(year...year)
}

private let sun = 0, mon = 1, thu = 4

// The days most countries share.
private let newYear = rule("New Year's Day", "Neujahr", .fixed(1, 1))
private let epiphany = rule("Epiphany", "Heilige Drei Könige", .fixed(1, 6))
private let goodFriday = rule("Good Friday", "Karfreitag", .easter(-2))
private let easterSunday = rule("Easter Sunday", "Ostersonntag", .easter(0))
private let easterMonday = rule("Easter Monday", "Ostermontag", .easter(1))
private let labourDay = rule("Labour Day", "Tag der Arbeit", .fixed(5, 1))
private let ascension = rule("Ascension Day", "Christi Himmelfahrt", .easter(39))
private let whitSunday = rule("Whit Sunday", "Pfingstsonntag", .easter(49))
private let whitMonday = rule("Whit Monday", "Pfingstmontag", .easter(50))
private let corpusChristi = rule("Corpus Christi", "Fronleichnam", .easter(60))
private let assumption = rule("Assumption Day", "Mariä Himmelfahrt", .fixed(8, 15))
private let allSaints = rule("All Saints' Day", "Allerheiligen", .fixed(11, 1))
private let immaculate = rule("Immaculate Conception", "Mariä Empfängnis", .fixed(12, 8))
private let christmas = rule("Christmas Day", "Weihnachten", .fixed(12, 25))
private let stJoseph = rule("Saint Joseph's Day", "Josefstag", .fixed(3, 19))

extension HolidayCalendar {
    static let countries: [CountryRules] = [germany, austria, switzerland, unitedKingdom, unitedStates, france, netherlands]
}

// MARK: - Germany

private let germany: CountryRules = {
    let firstDay = rule("Christmas Day", "Erster Weihnachtstag", .fixed(12, 25))
    let secondDay = rule("Second Day of Christmas", "Zweiter Weihnachtstag", .fixed(12, 26))
    let reformation = rule("Reformation Day", "Reformationstag", .fixed(10, 31))
    let womensDay = rule("International Women's Day", "Internationaler Frauentag", .fixed(3, 8))
    let repentance = rule("Repentance and Prayer Day", "Buß- und Bettag", .onOrBefore(weekday: 3, month: 11, day: 22))
    let southern = [epiphany, corpusChristi, allSaints]
    return CountryRules(
        code: "DE",
        common: [newYear, goodFriday, easterMonday, labourDay, ascension, whitMonday,
                 rule("German Unity Day", "Tag der Deutschen Einheit", .fixed(10, 3)), firstDay, secondDay,
                 reformation.only(2017...2017)],
        regions: [
            "BB": [easterSunday, whitSunday, reformation],
            "BE": [womensDay.from(2019),
                   once("75th anniversary of the liberation from Nazism and the end of the Second World War in Europe",
                        "75. Jahrestag der Befreiung vom Nationalsozialismus und der Beendigung des Zweiten Weltkriegs in Europa", 2020, 5, 8),
                   once("80th anniversary of the liberation from Nazism and the end of the Second World War in Europe",
                        "80. Jahrestag der Befreiung vom Nationalsozialismus und der Beendigung des Zweiten Weltkriegs in Europa", 2025, 5, 8),
                   once("75th anniversary of the East German uprising of 1953", "75. Jahrestag des Aufstandes vom 17. Juni 1953", 2028, 6, 17)],
            "BW": southern,
            "BY": southern,
            "HB": [reformation.from(2018)],
            "HE": [corpusChristi],
            "HH": [reformation.from(2018)],
            "MV": [womensDay.from(2023), reformation],
            "NI": [reformation.from(2018)],
            "NW": [corpusChristi, allSaints],
            "RP": [corpusChristi, allSaints],
            "SH": [reformation.from(2018)],
            "SL": [corpusChristi, assumption, allSaints],
            "SN": [reformation, repentance],
            "ST": [epiphany, reformation],
            "TH": [rule("World Children's Day", "Weltkindertag", .fixed(9, 20)).from(2019), reformation],
        ])
}()

// MARK: - Austria

private let austria = CountryRules(
    code: "AT",
    common: [newYear, epiphany, easterMonday, rule("Labour Day", "Staatsfeiertag", .fixed(5, 1)), ascension, whitMonday,
             corpusChristi, assumption, rule("National Day", "Nationalfeiertag", .fixed(10, 26)), allSaints, immaculate,
             rule("Christmas Day", "Christtag", .fixed(12, 25)), rule("Saint Stephen's Day", "Stefanitag", .fixed(12, 26))])

// MARK: - Switzerland (national days and all 26 cantons)

private let switzerland: CountryRules = {
    let berchtold = rule("Berchtold's Day", "Berchtoldstag", .fixed(1, 2))
    let stephen = rule("Saint Stephen's Day", "Stephanstag", .fixed(12, 26))
    return CountryRules(
        code: "CH",
        common: [rule("New Year's Day", "Neujahrestag", .fixed(1, 1)), ascension,
                 rule("National Day", "Nationalfeiertag", .fixed(8, 1)), christmas],
        regions: [
            "AG": [berchtold, goodFriday, easterMonday, labourDay, whitMonday, corpusChristi, assumption, allSaints, immaculate, stephen],
            "AI": [goodFriday, easterMonday, whitMonday, corpusChristi, assumption, allSaints, immaculate,
                   stephen.substitute(.notTuesdayOrSaturday)],
            "AR": [goodFriday, easterMonday, whitMonday, stephen.substitute(.notTuesdayOrSaturday)],
            "BE": [berchtold, goodFriday, easterMonday, whitMonday, stephen],
            "BL": [goodFriday, easterMonday, labourDay, whitMonday, stephen],
            "BS": [goodFriday, easterMonday, labourDay, whitMonday, stephen],
            "FR": [goodFriday],
            "GE": [goodFriday, easterMonday, whitMonday,
                   rule("Genevan Fast", "Genfer Bettag", .nth(1, weekday: sun, month: 9, plus: 4)),
                   rule("Restoration Day", "Wiederherstellung der Republik", .fixed(12, 31))],
            "GL": [rule("Battle of Naefels Victory Day", "Näfelser Fahrt", .naefels),
                   goodFriday, easterMonday, whitMonday, allSaints, stephen],
            "GR": [easterMonday, whitMonday, stephen],
            "JU": [berchtold, goodFriday, easterMonday, labourDay, whitMonday, corpusChristi,
                   rule("Independence Day", "Fest der Unabhängigkeit", .fixed(6, 23)), assumption, allSaints],
            "LU": [berchtold, goodFriday, easterMonday, whitMonday, corpusChristi, assumption, allSaints, immaculate, stephen],
            "NE": [berchtold.substitute(.mondayOnly),
                   rule("Republic Day", "Jahrestag der Ausrufung der Republik", .fixed(3, 1)),
                   goodFriday, labourDay, corpusChristi, stephen.substitute(.mondayOnly)],
            "NW": [stJoseph, goodFriday, corpusChristi, assumption, allSaints, immaculate],
            "OW": [goodFriday, corpusChristi, assumption, rule("Saint Nicholas of Flüe", "Bruder Klaus", .fixed(9, 25)),
                   allSaints, immaculate],
            "SG": [goodFriday, easterMonday, whitMonday, allSaints, stephen],
            "SH": [goodFriday, easterMonday, labourDay, whitMonday, stephen],
            "SO": [goodFriday],
            "SZ": [epiphany, stJoseph, goodFriday, easterMonday, whitMonday, corpusChristi, assumption, allSaints, immaculate, stephen],
            "TG": [berchtold, labourDay, goodFriday, easterMonday, whitMonday, stephen],
            "TI": [epiphany, stJoseph, easterMonday, labourDay, whitMonday, corpusChristi,
                   rule("Saints Peter and Paul", "Peter und Paul", .fixed(6, 29)), assumption, allSaints, immaculate, stephen],
            "UR": [epiphany, stJoseph, goodFriday, easterMonday, whitMonday, corpusChristi, assumption, allSaints, immaculate,
                   stephen.substitute(.notTuesdayOrSaturday)],
            "VD": [berchtold, goodFriday, easterMonday, whitMonday,
                   rule("Prayer Monday", "Bettagsmontag", .nth(3, weekday: sun, month: 9, plus: 1))],
            "VS": [stJoseph, corpusChristi, assumption, allSaints, immaculate],
            "ZG": [goodFriday, corpusChristi, assumption, allSaints, immaculate],
            // Zurich's law on days of rest (Ruhetagsgesetz, LS 822.4) does not name Berchtold's Day:
            // `holidays` 0.109 keeps it no longer, and the node follows.
            "ZH": [goodFriday, easterMonday, labourDay, whitMonday, stephen],
        ])
}()

// MARK: - United Kingdom (England, Wales, Scotland, Northern Ireland)

private let unitedKingdom: CountryRules = {
    let newYearOff = newYear.substitute(.nextMonday)
    let christmasOff = christmas.substitute(.nextMondayTuesday)
    let boxing = rule("Boxing Day", "Zweiter Weihnachtstag", .fixed(12, 26)).substitute(.nextMondayTuesday)
    let lateSummer = rule("Late Summer Bank Holiday", "Spätsommer-Feiertag", .nth(-1, weekday: mon, month: 8, plus: 0))
    let southern = [newYearOff, christmasOff, boxing, easterMonday, lateSummer]
    return CountryRules(
        code: "GB",
        common: [
            goodFriday,
            rule("May Day", "Maifeiertag", .moved(.nth(1, weekday: mon, month: 5, plus: 0),
                                                  exceptions: [1995: CivilDate(year: 1995, month: 5, day: 8),
                                                               2020: CivilDate(year: 2020, month: 5, day: 8)])),
            rule("Spring Bank Holiday", "Frühlings-Feiertag", .moved(.nth(-1, weekday: mon, month: 5, plus: 0),
                                                                     exceptions: [2002: CivilDate(year: 2002, month: 6, day: 4),
                                                                                  2012: CivilDate(year: 2012, month: 6, day: 4),
                                                                                  2022: CivilDate(year: 2022, month: 6, day: 2)])),
            once("Golden Jubilee of Elizabeth II", "Goldenes Thronjubiläum Elisabeths II.", 2002, 6, 3),
            once("Wedding of William and Catherine", "Hochzeit von William und Catherine", 2011, 4, 29),
            once("Diamond Jubilee of Elizabeth II", "Diamantenes Thronjubiläum Elisabeths II.", 2012, 6, 5),
            once("Platinum Jubilee of Elizabeth II", "Platin-Thronjubiläum Elisabeths II.", 2022, 6, 3),
            once("State Funeral of Queen Elizabeth II", "Staatsbegräbnis von Königin Elisabeth II.", 2022, 9, 19),
            once("Coronation of Charles III", "Krönung von Charles III.", 2023, 5, 8),
        ],
        national: [newYearOff, christmasOff, boxing],
        regions: [
            "ENG": southern,
            "WLS": southern,
            "NIR": southern + [rule("Saint Patrick's Day", "St.-Patricks-Tag", .fixed(3, 17)).substitute(.nextMonday),
                               rule("Battle of the Boyne", "Schlacht am Boyne", .fixed(7, 12)).substitute(.nextMonday)],
            "SCT": [newYearOff,
                    rule("New Year Holiday", "Neujahrsfeiertag", .fixed(1, 2)).substitute(.scottishSecond),
                    rule("Summer Bank Holiday", "Sommer-Feiertag", .nth(1, weekday: mon, month: 8, plus: 0)),
                    rule("Saint Andrew's Day", "St.-Andreas-Tag", .fixed(11, 30)).substitute(.nextMonday).from(2006),
                    christmasOff, boxing,
                    once("Scotland's participation in the FIFA World Cup final", "Schottlands Teilnahme an der Fußball-WM", 2026, 6, 15)],
        ])
}()

// MARK: - United States (federal)

private let unitedStates = CountryRules(
    code: "US",
    common: [
        newYear.substitute(.nearestWeekday),
        rule("Martin Luther King Jr. Day", "Martin-Luther-King-Tag", .nth(3, weekday: mon, month: 1, plus: 0)),
        rule("Washington's Birthday", "Washingtons Geburtstag", .nth(3, weekday: mon, month: 2, plus: 0)),
        rule("Memorial Day", "Gedenktag für die Gefallenen", .nth(-1, weekday: mon, month: 5, plus: 0)),
        rule("Juneteenth National Independence Day", "Juneteenth", .fixed(6, 19)).substitute(.nearestWeekday).from(2021),
        rule("Independence Day", "Unabhängigkeitstag", .fixed(7, 4)).substitute(.nearestWeekday),
        rule("Labor Day", "Tag der Arbeit", .nth(1, weekday: mon, month: 9, plus: 0)),
        rule("Columbus Day", "Kolumbustag", .nth(2, weekday: mon, month: 10, plus: 0)),
        rule("Veterans Day", "Veteranentag", .fixed(11, 11)).substitute(.nearestWeekday),
        rule("Thanksgiving", "Thanksgiving", .nth(4, weekday: thu, month: 11, plus: 0)),
        christmas.substitute(.nearestWeekday),
    ])

// MARK: - France (metropolitan)

private let france = CountryRules(
    code: "FR",
    common: [newYear, labourDay, rule("Victory Day", "Tag des Sieges", .fixed(5, 8)),
             rule("National Day", "Nationalfeiertag", .fixed(7, 14)),
             rule("Armistice Day", "Waffenstillstandstag", .fixed(11, 11)), easterMonday,
             whitMonday.only(Int.min...2004), whitMonday.from(2008),
             ascension, assumption, allSaints, christmas])

// MARK: - Netherlands

private let netherlands = CountryRules(
    code: "NL",
    // Good Friday is one of the generally recognised holidays of the Algemene termijnenwet (art. 3),
    // as `holidays` 0.109 has it (0.60 did not); whether work stops is the employer's choice.
    common: [newYear, goodFriday, easterSunday, easterMonday,
             rule("Queen's Day", "Koninginnedag", .saturdayIfSunday(month: 4, day: 30)).only(1980...2013),
             rule("King's Day", "Koningsdag", .saturdayIfSunday(month: 4, day: 27)).from(2014),
             rule("Liberation Day", "Befreiungstag", .fixed(5, 5)).from(1950).every(5),
             ascension, whitSunday, whitMonday, rule("Christmas Day", "Erster Weihnachtstag", .fixed(12, 25)),
             rule("Second Day of Christmas", "Zweiter Weihnachtstag", .fixed(12, 26))])

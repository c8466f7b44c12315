/// What the clock says (SPEC §16), in the node's languages: a text as the face and the events show
/// it, and the same as the engine should read it (`spoken`).
public struct Phrase: Sendable, Hashable {
    public var text: String
    public var spoken: String

    public init(_ text: String, _ language: Language) {
        self.text = text
        spoken = NumberWords.spoken(text, language)
    }
}

/// The talking clock's sentences: the time and date, the next alarm, the morning briefing.
public enum TalkingClock {
    static let weekdays: [Language: [String]] = [
        .en: ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"],
        .de: ["Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"],
    ]
    static let months: [Language: [String]] = [
        .en: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"],
        .de: ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"],
    ]

    static func weekday(_ date: CivilDate, _ language: Language) -> String { weekdays[language]?[date.weekday] ?? "" }
    static func month(_ date: CivilDate, _ language: Language) -> String { months[language]?[date.month - 1] ?? "" }

    /// "Tuesday, December 1st" / "Dienstag, der 1. Dezember" (`article` "dem" after "am").
    public static func date(_ date: CivilDate, _ language: Language, article: String = "der") -> String {
        switch language {
        case .en: "\(weekday(date, .en)), \(month(date, .en)) \(NumberWords.englishOrdinal(date.day))"
        case .de: "\(weekday(date, .de)), \(article) \(date.day). \(month(date, .de))"
        }
    }

    /// `say/time`: "It's seven oh two in the morning, Tuesday, December 1st." / "Es ist sieben Uhr
    /// zwei, Dienstag, der 1. Dezember."
    public static func now(_ local: LocalTime, _ language: Language) -> Phrase {
        let time = NumberWords.time(hour: local.hour, minute: local.minute, language)
        switch language {
        case .en:
            let period = local.minute == 0 && (local.hour == 0 || local.hour == 12) ? "" : " " + NumberWords.englishPeriod(hour: local.hour)
            return Phrase("It's \(time)\(period), \(date(local.date, .en)).", .en)
        case .de:
            return Phrase("Es ist \(time), \(date(local.date, .de)).", .de)
        }
    }

    /// The labels an alarm has when nobody named it: not worth saying.
    static let unnamed: Set<String> = ["Alarm", "Wecker", ""]

    /// `say/next_alarm`: when the next alarm rings, seen from `today`; nil: none is set.
    public static func nextAlarm(_ next: (at: LocalTime, label: String)?, today: CivilDate, _ language: Language) -> Phrase {
        guard let next else {
            return Phrase(language == .de ? "Es ist kein Wecker gestellt." : "No alarm is set.", language)
        }
        let days = next.at.date.daysSinceEpoch - today.daysSinceEpoch
        let time = NumberWords.time(hour: next.at.hour, minute: next.at.minute, language)
        let label = unnamed.contains(next.label) ? "" : ", \(next.label),"
        switch language {
        case .en:
            let day = days == 0 ? "today" : days == 1 ? "tomorrow" : days < 7 ? "on \(weekday(next.at.date, .en))" : "on \(date(next.at.date, .en)),"
            let period = next.at.minute == 0 && (next.at.hour == 0 || next.at.hour == 12) ? "" : " " + NumberWords.englishPeriod(hour: next.at.hour)
            return Phrase("Your next alarm\(label) rings \(day) at \(time)\(period).", .en)
        case .de:
            let day = days == 0 ? "heute" : days == 1 ? "morgen" : days < 7 ? "am \(weekday(next.at.date, .de))"
                : "am \(date(next.at.date, .de, article: "dem")),"
            return Phrase("Dein nächster Wecker\(label) klingelt \(day) um \(time).", .de)
        }
    }

    /// "Good morning" until noon, "Good afternoon" until six, then "Good evening".
    public static func greeting(hour: Int, _ language: Language) -> String {
        switch (language, hour) {
        case (.en, 4..<12): "Good morning."
        case (.en, 12..<18): "Good afternoon."
        case (.en, _): "Good evening."
        case (.de, 4..<11): "Guten Morgen."
        case (.de, 11..<18): "Guten Tag."
        case (.de, _): "Guten Abend."
        }
    }

    /// The morning briefing after an alarm's dismiss: a greeting, the time and date, today's holiday,
    /// and what the day's sources add (`extras`: the weather, the first events; SPEC §17), each a
    /// sentence of its own.
    public static func briefing(_ local: LocalTime, holiday: String?, extras: [String] = [], _ language: Language) -> Phrase {
        let time = NumberWords.time(hour: local.hour, minute: local.minute, language)
        var sentences = [greeting(hour: local.hour, language)]
        switch language {
        case .en:
            sentences.append("It's \(time), \(date(local.date, .en)).")
            if let holiday { sentences.append("Today is \(holiday).") }
        case .de:
            sentences.append("Es ist \(time), \(date(local.date, .de)).")
            if let holiday { sentences.append("Heute ist Feiertag: \(holiday).") }
        }
        return Phrase((sentences + extras).joined(separator: " "), language)
    }
}

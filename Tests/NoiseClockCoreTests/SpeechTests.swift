import FoundationEssentials
import NoiseClockCore
import Testing

/// `members` as a command's arguments.
private func arguments(_ members: [String: JSONValue]) -> CommandArguments { CommandArguments(members) }

/// A local time in UTC.
private func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> LocalTime {
    let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
    let instant = Date(timeIntervalSince1970: Double(days * 86_400 + Int64(hour * 3600 + minute * 60)))
    return LocalTime(instant, in: Zone.system(tz: "UTC", etc: "UTC"))
}

@Suite("Speaking: numbers and times in words, the talking clock, the queue, quiet hours (SPEC §16)")
struct SpeechTests {
    @Test("cardinals as written out in English and German")
    func cardinals() {
        #expect(NumberWords.cardinal(0, .en) == "zero" && NumberWords.cardinal(21, .en) == "twenty-one")
        #expect(NumberWords.cardinal(45, .en) == "forty-five" && NumberWords.cardinal(30, .en) == "thirty")
        #expect(NumberWords.cardinal(1, .de) == "eins" && NumberWords.cardinal(21, .de) == "einundzwanzig")
        #expect(NumberWords.cardinal(45, .de) == "fünfundvierzig" && NumberWords.cardinal(30, .de) == "dreißig")
        #expect(NumberWords.cardinal(16, .de) == "sechzehn" && NumberWords.cardinal(17, .de) == "siebzehn")
        #expect(NumberWords.cardinal(120, .en) == "120")
    }

    @Test("clock times read as a person reads them", arguments: [
        (7, 2, "seven oh two", "sieben Uhr zwei"), (0, 0, "midnight", "null Uhr"), (12, 0, "noon", "zwölf Uhr"),
        (12, 30, "twelve thirty", "zwölf Uhr dreißig"), (13, 5, "one oh five", "dreizehn Uhr fünf"),
        (19, 0, "seven o'clock", "neunzehn Uhr"), (1, 0, "one o'clock", "ein Uhr"), (0, 15, "twelve fifteen", "null Uhr fünfzehn"),
        (21, 1, "nine oh one", "einundzwanzig Uhr eins"), (6, 45, "six forty-five", "sechs Uhr fünfundvierzig"),
    ])
    func times(hour: Int, minute: Int, english: String, german: String) {
        #expect(NumberWords.time(hour: hour, minute: minute, .en) == english)
        #expect(NumberWords.time(hour: hour, minute: minute, .de) == german)
    }

    @Test("German ordinals are spoken with the ending their article asks for; English is read as written")
    func ordinals() {
        #expect(NumberWords.spoken("Dienstag, der 1. Dezember.", .de) == "Dienstag, der erste Dezember.")
        #expect(NumberWords.spoken("am 3. März um 7 Uhr", .de) == "am dritten März um 7 Uhr")
        #expect(NumberWords.spoken("Freitag, dem 11. Dezember,", .de) == "Freitag, dem elften Dezember,")
        #expect(NumberWords.spoken("Heute ist Feiertag: 1. Weihnachtstag.", .de) == "Heute ist Feiertag: Erster Weihnachtstag.")
        #expect(NumberWords.spoken("der 20. Juli und der 31. Mai", .de) == "der zwanzigste Juli und der einunddreißigste Mai")
        #expect(NumberWords.spoken("der 7. Juni, der 8. Juni", .de) == "der siebte Juni, der achte Juni")
        // Not a date: a number at a sentence's end, or before a word in lower case.
        #expect(NumberWords.spoken("Es ist Tag 2. und so weiter", .de) == "Es ist Tag 2. und so weiter")
        #expect(NumberWords.spoken("December 1st", .en) == "December 1st")
        #expect(NumberWords.englishOrdinal(1) == "1st" && NumberWords.englishOrdinal(12) == "12th" && NumberWords.englishOrdinal(22) == "22nd")
        #expect(NumberWords.englishOrdinal(13) == "13th" && NumberWords.englishOrdinal(23) == "23rd" && NumberWords.englishOrdinal(111) == "111th")
    }

    @Test("say/time: the time and the date, in both languages")
    func now() {
        let morning = local(2026, 12, 1, 7, 2)
        #expect(TalkingClock.now(morning, .en).text == "It's seven oh two in the morning, Tuesday, December 1st.")
        let german = TalkingClock.now(morning, .de)
        #expect(german.text == "Es ist sieben Uhr zwei, Dienstag, der 1. Dezember.")
        #expect(german.spoken == "Es ist sieben Uhr zwei, Dienstag, der erste Dezember.")
        #expect(TalkingClock.now(local(2026, 12, 6, 0, 0), .en).text == "It's midnight, Sunday, December 6th.")
        #expect(TalkingClock.now(local(2026, 12, 6, 23, 40), .en).text == "It's eleven forty at night, Sunday, December 6th.")
    }

    @Test("the briefing: greeting, time and date, the holiday, what the day's sources add")
    func briefing() {
        let morning = local(2026, 12, 1, 7, 2)
        #expect(TalkingClock.briefing(morning, holiday: nil, .de).text == "Guten Morgen. Es ist sieben Uhr zwei, Dienstag, der 1. Dezember.")
        #expect(TalkingClock.briefing(morning, holiday: nil, .en).text == "Good morning. It's seven oh two, Tuesday, December 1st.")
        let christmas = local(2026, 12, 25, 8, 30)
        let calendar = HolidayCalendar(country: "DE")
        let name = calendar?.holidays(in: 2026).first { $0.date == christmas.date }?.name(.de)
        let german = TalkingClock.briefing(christmas, holiday: name, extras: ["Es schneit."], .de)
        #expect(name == "Erster Weihnachtstag")
        #expect(german.text == "Guten Morgen. Es ist acht Uhr dreißig, Freitag, der 25. Dezember. Heute ist Feiertag: Erster Weihnachtstag. Es schneit.")
        #expect(german.spoken.contains("der fünfundzwanzigste Dezember") && german.spoken.contains("Erster Weihnachtstag"), "\(german.spoken)")
        #expect(TalkingClock.briefing(local(2026, 12, 1, 14, 0), holiday: "Labour Day", .en).text
            == "Good afternoon. It's two o'clock, Tuesday, December 1st. Today is Labour Day.")
        #expect(TalkingClock.greeting(hour: 19, .de) == "Guten Abend." && TalkingClock.greeting(hour: 3, .en) == "Good evening.")
    }

    @Test("say/next_alarm: today, tomorrow, a weekday, a date further off, a label, none")
    func nextAlarm() {
        let today = CivilDate(year: 2026, month: 12, day: 1)
        #expect(TalkingClock.nextAlarm(nil, today: today, .en).text == "No alarm is set.")
        #expect(TalkingClock.nextAlarm(nil, today: today, .de).text == "Es ist kein Wecker gestellt.")
        #expect(TalkingClock.nextAlarm((local(2026, 12, 1, 18, 30), "Alarm"), today: today, .en).text
            == "Your next alarm rings today at six thirty in the evening.")
        #expect(TalkingClock.nextAlarm((local(2026, 12, 2, 6, 45), "Work"), today: today, .en).text
            == "Your next alarm, Work, rings tomorrow at six forty-five in the morning.")
        #expect(TalkingClock.nextAlarm((local(2026, 12, 2, 6, 45), "Wecker"), today: today, .de).text
            == "Dein nächster Wecker klingelt morgen um sechs Uhr fünfundvierzig.")
        #expect(TalkingClock.nextAlarm((local(2026, 12, 4, 7, 0), "Alarm"), today: today, .de).text
            == "Dein nächster Wecker klingelt am Freitag um sieben Uhr.")
        let far = TalkingClock.nextAlarm((local(2026, 12, 11, 7, 0), "Alarm"), today: today, .de)
        #expect(far.text == "Dein nächster Wecker klingelt am Freitag, dem 11. Dezember, um sieben Uhr.")
        #expect(far.spoken.contains("dem elften Dezember"))
        #expect(TalkingClock.nextAlarm((local(2026, 12, 11, 7, 0), "Alarm"), today: today, .en).text
            == "Your next alarm rings on Friday, December 11th, at seven o'clock in the morning.")
    }

    @Test("quiet hours across midnight and within a day")
    func quietHours() {
        let night = QuietHours(start: 22 * 60 + 30, end: 7 * 60)
        #expect(night.contains(minute: 23 * 60) && night.contains(minute: 0) && night.contains(minute: 6 * 60 + 59))
        #expect(!night.contains(minute: 7 * 60) && !night.contains(minute: 12 * 60) && !night.contains(minute: 22 * 60 + 29))
        #expect(night.minutesLeft(at: 23 * 60) == 8 * 60 && night.minutesLeft(at: 6 * 60 + 59) == 1 && night.minutesLeft(at: 9 * 60) == 0)
        let nap = QuietHours(start: 13 * 60, end: 15 * 60)
        #expect(nap.contains(minute: 14 * 60) && !nap.contains(minute: 15 * 60) && !nap.contains(minute: 12 * 60))
        #expect(QuietHours.minutes("07:00") == 420 && QuietHours.minutes("23:59") == 1439)
        for bad in ["7:00", "24:00", "07:60", "0700", "", "ab:cd"] { #expect(QuietHours.minutes(bad) == nil, "\(bad)") }
    }

    @Test("the queue: ten wait at most, the eleventh is a conflict; in quiet hours normal messages wait")
    func queue() throws {
        var queue = SpeechQueue()
        func utterance(_ n: Int, _ kind: Utterance.Kind = .say, _ priority: Utterance.Priority = .normal) -> Utterance {
            Utterance(id: "s\(n)", text: "message \(n)", kind: kind, priority: priority, volume: 70, chime: true, language: .en)
        }
        for n in 1...10 { #expect(try queue.add(utterance(n)) == n) }
        #expect(throws: CommandError.self) { try queue.add(utterance(11)) }
        do { _ = try queue.add(utterance(11)) } catch { #expect(error.code == .conflict) }
        #expect(queue.count == 10)
        _ = queue.removeAll()
        _ = try queue.add(utterance(1))
        _ = try queue.add(utterance(2, .say, .urgent))
        _ = try queue.add(utterance(3, .time))
        _ = try queue.add(utterance(4))
        #expect(queue.held(quiet: true) == 2 && queue.held(quiet: false) == 0)
        #expect(queue.next(quiet: true)?.id == "s2")
        #expect(queue.next(quiet: true)?.id == "s3")
        #expect(queue.next(quiet: true) == nil, "normal messages wait")
        #expect(queue.next(quiet: false)?.id == "s1")
        #expect(queue.next(quiet: false)?.id == "s4")
    }

    @Test("say's arguments: each error names its field", arguments: [
        (["text": JSONValue.string("")], "text"), (["text": .string("   ")], "text"),
        (["text": .string(String(repeating: "a", count: 1001))], "text"), (["text": .string("bell\u{7}")], "text"),
        (["text": .string("hi"), "priority": .string("loud")], "priority"), (["text": .string("hi"), "volume": .number(101)], "volume"),
        (["text": .string("hi"), "language": .string("fr")], "language"), (["text": .string("hi"), "chime": .string("yes")], "chime"),
        (["text": .string("hi"), "voice": .string("en")], "voice"), (["volume": .number(50)], "text"),
    ])
    func sayErrors(members: [String: JSONValue], field: String) {
        do {
            _ = try SayRequest(arguments(members))
            Issue.record("accepted \(members)")
        } catch {
            #expect(error.field == field, "\(error)")
        }
    }

    @Test("say's arguments: a thousand characters, line breaks, and every option")
    func sayAccepted() throws {
        let long = String(repeating: "ä", count: 1000)
        #expect(try SayRequest(arguments(["text": .string(long)])).text == long)
        let full = try SayRequest(arguments([
            "text": .string("Leave in\nten minutes"), "volume": .number(40), "chime": .bool(false), "priority": .string("urgent"),
            "language": .string("de"),
        ]))
        #expect(full == SayRequest(text: "Leave in\nten minutes", volume: 40, chime: false, priority: .urgent, language: .de))
    }

    private func speech(_ file: [String: String]) throws -> Configuration.Speech {
        try ConfigurationSchema.resolve(file: file, fileName: "test.yaml", environment: [:], hostname: "host").configuration.speech
    }

    @Test("speech.* keys: the defaults, quiet hours off, and errors that name the key")
    func configuration() throws {
        let defaults = try speech([:])
        #expect(defaults == Configuration.Speech())
        #expect(defaults.engine == .espeakNG && defaults.rate == 160 && defaults.volume == 70 && defaults.chime)
        #expect(defaults.quietHours == QuietHours(start: 1350, end: 420))
        #expect(try speech(["speech.quiet_hours.start": "", "speech.quiet_hours.end": ""]).quietHours == nil)
        let piper = try speech(["speech.engine": "command", "speech.command": "piper --model de.onnx --output_file -", "speech.voice": "de"])
        #expect(piper.engine == .command && piper.command.hasPrefix("piper"))
        for (file, key) in [
            (["speech.engine": "command"], "speech.command"), (["speech.engine": "festival"], "speech.engine"),
            (["speech.quiet_hours.start": "7:00"], "speech.quiet_hours.start"), (["speech.quiet_hours.end": "25:00"], "speech.quiet_hours.end"),
            (["speech.rate": "500"], "speech.rate"), (["speech.volume": "-1"], "speech.volume"), (["speech.voice": "en; rm -rf /"], "speech.voice"),
        ] {
            #expect { _ = try speech(file) } throws: { ($0 as? ConfigurationError)?.key == key }
        }
    }

    @Test("B/speech: what is spoken, what waits, the quiet hours, the last error")
    func state() {
        let utterance = Utterance(id: "s3", text: "Hello", kind: .time, volume: 70, chime: false, language: .en)
        let state = SpeechState(engine: "espeak-ng", speaking: (utterance, "2026-12-06T07:00:00+01:00"), queued: 2, held: 1, quiet: true)
        #expect(state.json == [
            "engine": "espeak-ng", "speaking": ["id": "s3", "text": "Hello", "kind": "time", "started": "2026-12-06T07:00:00+01:00"],
            "queued": 2, "held": 1, "quiet": true, "error": nil,
        ])
        #expect(SpeechState(engine: "none", error: "boom").json[member: "speaking"] == .null)
    }

    @Test("an alarm's briefing: true or false, stored and read back; anything else names the field")
    func alarmBriefing() throws {
        let fields = try AlarmFields(arguments(["time": .string("06:45"), "briefing": .bool(true)]))
        #expect(fields.briefing == true)
        do {
            _ = try AlarmFields(arguments(["briefing": .string("yes")]))
            Issue.record("accepted briefing: yes")
        } catch {
            #expect(error.field == "briefing")
        }
        let alarm = Alarm(id: "a1", time: AlarmTime(hour: 6, minute: 45) ?? .midnight, sound: "digital-alarm", briefing: true)
        #expect(try Alarm(stored: alarm.stored).briefing)
        var older = alarm.stored.objectValue ?? [:]
        older["briefing"] = nil
        #expect(try Alarm(stored: .object(older)).briefing == false, "an alarm stored before briefings has none")
        older["briefing"] = .string("maybe")
        #expect { _ = try Alarm(stored: .object(older)) } throws: { ($0 as? CommandError)?.field == "briefing" }
    }
}

/// Numbers and clock times as a person reads them aloud, in the node's languages (SPEC §16): the
/// engines get words, so "7:02" is "seven oh two" and "sieben Uhr zwei", never "seven colon zero two".
public enum NumberWords {
    private static let englishOnes = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
        "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    private static let englishTens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    private static let germanOnes = [
        "null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwölf", "dreizehn",
        "vierzehn", "fünfzehn", "sechzehn", "siebzehn", "achtzehn", "neunzehn",
    ]
    private static let germanTens = ["", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig"]

    /// 0-99 in words; other numbers as digits (the engines read those themselves).
    public static func cardinal(_ n: Int, _ language: Language) -> String {
        guard (0...99).contains(n) else { return "\(n)" }
        switch language {
        case .en:
            if n < 20 { return englishOnes[n] }
            return englishTens[n / 10] + (n % 10 == 0 ? "" : "-" + englishOnes[n % 10])
        case .de:
            if n < 20 { return germanOnes[n] }
            // 21: "einundzwanzig", not "einsundzwanzig".
            let one = n % 10 == 1 ? "ein" : germanOnes[n % 10]
            return (n % 10 == 0 ? "" : one + "und") + germanTens[n / 10]
        }
    }

    /// German ordinal stems for days of the month: "erst", "zweit", "dritt", "siebt", "zwanzigst".
    static func germanOrdinalStem(_ n: Int) -> String {
        switch n {
        case 1: "erst"
        case 3: "dritt"
        case 7: "siebt"
        case 8: "acht"
        case 2...19: cardinal(n, .de) + "t"
        default: cardinal(n, .de) + "st"
        }
    }

    /// English ordinal suffix as written: 1st, 2nd, 3rd, 11th, 22nd.
    public static func englishOrdinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }

    /// A clock time read aloud. English: twelve-hour ("seven oh two", "seven o'clock", "midnight",
    /// "noon"). German: the hour as written on a 24-hour clock ("sieben Uhr zwei", "null Uhr
    /// fünfzehn", "ein Uhr").
    public static func time(hour: Int, minute: Int, _ language: Language) -> String {
        switch language {
        case .en:
            if minute == 0 && hour == 0 { return "midnight" }
            if minute == 0 && hour == 12 { return "noon" }
            let h = hour % 12 == 0 ? 12 : hour % 12
            let m = minute == 0 ? "o'clock" : minute < 10 ? "oh " + cardinal(minute, .en) : cardinal(minute, .en)
            return cardinal(h, .en) + " " + m
        case .de:
            let h = hour == 1 ? "ein" : cardinal(hour, .de)
            return minute == 0 ? "\(h) Uhr" : "\(h) Uhr \(cardinal(minute, .de))"
        }
    }

    /// English: the part of the day a twelve-hour time needs ("in the morning").
    static func englishPeriod(hour: Int) -> String {
        switch hour {
        case 5..<12: "in the morning"
        case 12..<18: "in the afternoon"
        case 18..<22: "in the evening"
        default: "at night"
        }
    }

    /// `text` as an engine should read it: German "N." before a word (a day of the month, "1.
    /// Weihnachtstag") becomes the ordinal in words with the ending its article asks for ("der
    /// erste Dezember", "am zweiten", "Erster Weihnachtstag"); espeak-ng reads "der 1. Dezember" as
    /// "der eins Dezember". English is read as written ("December 1st" is "December first").
    public static func spoken(_ text: String, _ language: Language) -> String {
        guard language == .de else { return text }
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        for index in words.indices {
            let word = words[index]
            guard word.count >= 2, word.last == ".", let n = Int(word.dropLast()), (1...31).contains(n), index + 1 < words.count,
                words[index + 1].first?.isUppercase == true
            else { continue }
            let previous = index > 0 ? words[index - 1].lowercased() : ""
            let stem = germanOrdinalStem(n)
            switch previous {
            case "der", "die", "das": words[index] = stem + "e"
            case "dem", "den", "am", "vom", "zum", "im": words[index] = stem + "en"
            default:
                let strong = stem + "er"
                words[index] = strong.prefix(1).uppercased() + strong.dropFirst()
            }
        }
        return words.joined(separator: " ")
    }
}

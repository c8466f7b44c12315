import NoiseClockCore
import Testing

@Suite("Clock settings and the settings verb")
struct ClockSettingsTests {
    private func patch(_ values: [String: JSONValue]) throws(CommandError) -> SettingsPatch {
        try SettingsPatch(CommandArguments(values))
    }

    private func patchError(_ values: [String: JSONValue]) throws -> CommandError {
        try #require(throws: CommandError.self) { try patch(values) }
    }

    @Test("the defaults are those of SPEC §1 clock.*")
    func defaults() {
        let settings = ClockSettings()
        #expect(settings.timeFormat == .twentyFourHour)
        #expect(settings.showSeconds == false)
        #expect(settings.timezone == "")
        #expect(settings.locale == "")
        #expect(settings.publishSeconds == false)
        #expect(settings.language == .en)
    }

    @Test("an empty locale writes the date in the node's language; a set one wins over it")
    func dateLocale() {
        #expect(ClockSettings(language: .de).dateLocale == "de")
        #expect(ClockSettings(language: .en).dateLocale == "en")
        #expect(ClockSettings(locale: "en_GB", language: .de).dateLocale == "en_GB")
        #expect(ClockSettings(locale: "de_AT", language: .en).dateLocale == "de_AT")
        // Back to following the language: "" is a value a patch may set.
        let set = ClockSettings(locale: "fr_FR", language: .de)
        #expect(set.applying(SettingsPatch(locale: "")).dateLocale == "de")
    }

    @Test("time formats are spelled 24h and 12h")
    func timeFormatNames() {
        #expect(TimeFormat.twentyFourHour.rawValue == "24h")
        #expect(TimeFormat.twelveHour.rawValue == "12h")
    }

    @Test("settings publish every field under its SPEC name")
    func settingsJSON() {
        let settings = ClockSettings(timeFormat: .twelveHour, showSeconds: true, timezone: "Europe/Berlin", locale: "de_DE", publishSeconds: true,
            language: .de)
        #expect(settings.json == [
            "time_format": "12h", "show_seconds": true, "timezone": "Europe/Berlin", "locale": "de_DE", "publish_seconds": true,
            "face": FaceStyle().json, "meditation": MeditationSettings().json, "language": "de",
            "wake": ["skip_holidays": false, "days_off": [], "vacation_until": nil, "escalate_after_s": 0, "sunrise_min": 0, "lights": false, "sound": nil,
                     "calendar_days_off": ["vacation", "Urlaub", "Ferien"]],
            "bedtime": [
                "time": nil, "reminder_min": 15, "wind_down_min": 30, "sounds": ["heavy-rain-white-noise"], "volume": 30, "sleep_min": 45,
                "breathe": false,
            ],
            "kids": [
                "enabled": false, "warn_min": 15, "ok_min": 60, "show_time": true, "sleep_from": "19:00",
                "wake": ["mon": "07:00", "tue": "07:00", "wed": "07:00", "thu": "07:00", "fri": "07:00", "sat": "07:30", "sun": "07:30"],
            ],
        ])
    }

    @Test("an empty settings command is an empty patch")
    func emptyPatch() throws {
        let empty = try patch([:])
        #expect(empty.isEmpty)
        #expect(empty.json == .object([:]))
    }

    @Test("time_format accepts 24h and 12h", arguments: [("24h", TimeFormat.twentyFourHour), ("12h", .twelveHour)])
    func timeFormat(raw: String, expected: TimeFormat) throws {
        let patch = try patch(["time_format": .string(raw)])
        #expect(patch.timeFormat == expected)
        #expect(!patch.isEmpty)
    }

    @Test("time_format rejects other values and types, naming the field", arguments: [
        JSONValue.string("25h"), "12H", "", .number(12), .bool(true),
    ])
    func timeFormatRejects(value: JSONValue) throws {
        let error = try patchError(["time_format": value])
        #expect(error.code == .invalidField)
        #expect(error.field == "time_format")
    }

    @Test("show_seconds and publish_seconds take booleans, also as ON/OFF", arguments: [
        (JSONValue.bool(true), true), (.bool(false), false), ("ON", true), ("OFF", false),
    ])
    func booleans(value: JSONValue, expected: Bool) throws {
        #expect(try patch(["show_seconds": value]).showSeconds == expected)
        #expect(try patch(["publish_seconds": value]).publishSeconds == expected)
    }

    @Test("show_seconds and publish_seconds reject non-booleans, naming the field", arguments: ["show_seconds", "publish_seconds"])
    func booleansReject(field: String) throws {
        for value: JSONValue in ["sometimes", 1, nil] {
            let error = try patchError([field: value])
            #expect(error.code == .invalidField)
            #expect(error.field == field)
        }
    }

    @Test("timezone accepts IANA names, and empty for the system's zone", arguments: [
        "Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC", "",
    ])
    func timezone(zone: String) throws {
        #expect(try patch(["timezone": .string(zone)]).timezone == zone)
    }

    @Test("timezone rejects unknown zones and non-strings, naming the field", arguments: [
        JSONValue.string("Mars/Olympus_Mons"), "Europe/Atlantis", "Berlin time", .number(1),
    ])
    func timezoneRejects(value: JSONValue) throws {
        let error = try patchError(["timezone": value])
        #expect(error.code == .invalidField)
        #expect(error.field == "timezone")
    }

    @Test("locale accepts ICU names with _ or -, and empty for the node's language", arguments: ["en_US", "de_DE", "de", "de-DE", "fr_FR", ""])
    func locale(name: String) throws {
        #expect(try patch(["locale": .string(name)]).locale == name)
    }

    @Test("locale rejects unknown names and non-strings, naming the field", arguments: [
        JSONValue.string("xx_NOPE"), "klingon", " ", .bool(true),
    ])
    func localeRejects(value: JSONValue) throws {
        let error = try patchError(["locale": value])
        #expect(error.code == .invalidField)
        #expect(error.field == "locale")
    }

    @Test("an unknown field is rejected, naming it, even beside valid ones")
    func unknownField() throws {
        let error = try patchError(["time_format": "12h", "colour": "red"])
        #expect(error.code == .invalidField)
        #expect(error.field == "colour")
    }

    @Test("one bad field rejects the whole patch")
    func allOrNothing() throws {
        let error = try patchError(["time_format": "12h", "show_seconds": true, "timezone": "Nowhere/Land"])
        #expect(error.field == "timezone")
    }

    @Test("a patch with every field reads each one")
    func everyField() throws {
        let patch = try patch([
            "time_format": "12h", "show_seconds": true, "timezone": "Asia/Kolkata", "locale": "de_DE", "publish_seconds": "ON",
        ])
        #expect(patch == SettingsPatch(timeFormat: .twelveHour, showSeconds: true, timezone: "Asia/Kolkata", locale: "de_DE", publishSeconds: true))
        #expect(patch.json == ["time_format": "12h", "show_seconds": true, "timezone": "Asia/Kolkata", "locale": "de_DE", "publish_seconds": true])
    }

    @Test("a patch publishes only the fields it sets")
    func patchJSON() {
        #expect(SettingsPatch(showSeconds: false).json == ["show_seconds": false])
        #expect(SettingsPatch(timezone: "").json == ["timezone": ""])
    }

    @Test("merging lays the newer patch's fields over the older one's")
    func merging() {
        let older = SettingsPatch(timeFormat: .twelveHour, showSeconds: false, timezone: "Europe/Berlin")
        let newer = SettingsPatch(showSeconds: true, timezone: "Asia/Kolkata", publishSeconds: true)
        #expect(older.merging(newer) == SettingsPatch(
            timeFormat: .twelveHour, showSeconds: true, timezone: "Asia/Kolkata", locale: nil, publishSeconds: true))
    }

    @Test("merging an empty patch changes nothing, and merging into an empty patch gives the newer one")
    func mergingEmpty() {
        let patch = SettingsPatch(timeFormat: .twelveHour, locale: "de_DE")
        #expect(patch.merging(SettingsPatch()) == patch)
        #expect(SettingsPatch().merging(patch) == patch)
    }

    @Test("applying a patch changes only the fields it sets")
    func applying() {
        let settings = ClockSettings(timeFormat: .twentyFourHour, showSeconds: false, timezone: "Europe/Berlin", locale: "en_US", publishSeconds: false)
        let changed = settings.applying(SettingsPatch(timeFormat: .twelveHour, locale: "de_DE"))
        #expect(changed == ClockSettings(timeFormat: .twelveHour, showSeconds: false, timezone: "Europe/Berlin", locale: "de_DE", publishSeconds: false))
        let all = settings.applying(SettingsPatch(timeFormat: .twelveHour, showSeconds: true, timezone: "", locale: "fr_FR", publishSeconds: true))
        #expect(all == ClockSettings(timeFormat: .twelveHour, showSeconds: true, timezone: "", locale: "fr_FR", publishSeconds: true))
    }

    @Test("applying an empty patch leaves the settings as they were")
    func applyingEmpty() {
        let settings = ClockSettings(timeFormat: .twelveHour, showSeconds: true, timezone: "Asia/Kolkata", locale: "de_DE", publishSeconds: true)
        #expect(settings.applying(SettingsPatch()) == settings)
    }

    @Test("ClockValidation explains unknown zones and locales, and accepts known ones")
    func validation() {
        #expect(ClockValidation.timezoneProblem("Europe/Berlin") == nil)
        #expect(ClockValidation.timezoneProblem("") == nil)
        #expect(ClockValidation.timezoneProblem("Mars/Olympus_Mons")?.contains("Mars/Olympus_Mons") == true)
        #expect(ClockValidation.localeProblem("en_US") == nil)
        #expect(ClockValidation.localeProblem("de-DE") == nil)
        #expect(ClockValidation.localeProblem("xx_NOPE")?.contains("xx_NOPE") == true)
        #expect(ClockValidation.localeProblem("") == nil)
        #expect(ClockValidation.localeProblem(" ")?.contains("the node's language") == true)
    }
}

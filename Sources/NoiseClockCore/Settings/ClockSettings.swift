import FoundationEssentials

public enum TimeFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case twentyFourHour = "24h"
    case twelveHour = "12h"
}

/// The user-changeable clock settings (SPEC §1 `clock.*`, the `settings` verb).
public struct ClockSettings: Sendable, Hashable {
    public var timeFormat: TimeFormat
    public var showSeconds: Bool
    /// An IANA zone name; empty means the system's zone.
    public var timezone: String
    /// The names and form of the date (`de_DE`, `en_GB`, …); empty means the node's language
    /// (SPEC §11): see `dateLocale`.
    public var locale: String
    public var publishSeconds: Bool
    /// The clock face's style (SPEC §9).
    public var face: FaceStyle
    /// The defaults of a meditation session (SPEC §10).
    public var meditation: MeditationSettings
    /// The language of the face, Home Assistant's names and default labels (SPEC §11).
    public var language: Language
    /// Holidays, days off and vacation (SPEC §12).
    public var wake: WakeSettings
    /// The wind-down before bedtime (SPEC §13).
    public var bedtime: BedtimeSettings
    /// The kids' OK-to-wake clock (SPEC §13).
    public var kids: KidsSettings

    public init(
        timeFormat: TimeFormat = .twentyFourHour, showSeconds: Bool = false, timezone: String = "",
        locale: String = "", publishSeconds: Bool = false, face: FaceStyle = FaceStyle(),
        meditation: MeditationSettings = MeditationSettings(), language: Language = .en, wake: WakeSettings = WakeSettings(),
        bedtime: BedtimeSettings = BedtimeSettings(), kids: KidsSettings = KidsSettings()
    ) {
        self.timeFormat = timeFormat
        self.showSeconds = showSeconds
        self.timezone = timezone
        self.locale = locale
        self.publishSeconds = publishSeconds
        self.face = face
        self.meditation = meditation
        self.language = language
        self.wake = wake
        self.bedtime = bedtime
        self.kids = kids
    }

    public var json: JSONValue {
        [
            "time_format": .string(timeFormat.rawValue),
            "show_seconds": .bool(showSeconds),
            "timezone": .string(timezone),
            "locale": .string(locale),
            "publish_seconds": .bool(publishSeconds),
            "face": face.json,
            "meditation": meditation.json,
            "language": .string(language.rawValue),
            "wake": wake.json,
            "bedtime": bedtime.json,
            "kids": kids.json,
        ]
    }

    /// The locale the date is written in: `locale` when the user set one, else the node's language.
    public var dateLocale: String { locale.isEmpty ? language.rawValue : locale }

    /// The zone in force: `timezone`, or `system` when it is empty (or, impossibly after
    /// validation, unknown).
    public func zone(system: Zone) -> Zone {
        timezone.isEmpty ? system : (Zone(identifier: timezone) ?? system)
    }

    public func applying(_ patch: SettingsPatch) -> ClockSettings {
        var copy = self
        if let v = patch.timeFormat { copy.timeFormat = v }
        if let v = patch.showSeconds { copy.showSeconds = v }
        if let v = patch.timezone { copy.timezone = v }
        if let v = patch.locale { copy.locale = v }
        if let v = patch.publishSeconds { copy.publishSeconds = v }
        if let v = patch.language { copy.language = v }
        // Checked when the patch was made; a stored patch that no longer applies leaves the style.
        if let v = patch.face, let style = try? copy.face.applying(v) { copy.face = style }
        if let v = patch.meditation, let meditation = try? copy.meditation.applying(v) { copy.meditation = meditation }
        if let v = patch.wake, let wake = try? copy.wake.applying(v) { copy.wake = wake }
        if let v = patch.bedtime, let bedtime = try? copy.bedtime.applying(v) { copy.bedtime = bedtime }
        if let v = patch.kids, let kids = try? copy.kids.applying(v) { copy.kids = kids }
        return copy
    }
}

/// A partial change of settings, validated as a whole: either every field is right or nothing applies.
public struct SettingsPatch: Sendable, Hashable {
    public var timeFormat: TimeFormat?
    public var showSeconds: Bool?
    public var timezone: String?
    public var locale: String?
    public var publishSeconds: Bool?
    /// A partial `settings.face` object, already checked against `FaceStyle.applying`.
    public var face: [String: JSONValue]?
    /// A partial `settings.meditation` object, already checked against `MeditationSettings.applying`.
    public var meditation: [String: JSONValue]?
    public var language: Language?
    /// A partial `settings.wake` object, already checked against `WakeSettings.applying`.
    public var wake: [String: JSONValue]?
    /// A partial `settings.bedtime` object, already checked against `BedtimeSettings.applying`.
    public var bedtime: [String: JSONValue]?
    /// A partial `settings.kids` object, already checked against `KidsSettings.applying`.
    public var kids: [String: JSONValue]?

    public init(
        timeFormat: TimeFormat? = nil, showSeconds: Bool? = nil, timezone: String? = nil, locale: String? = nil,
        publishSeconds: Bool? = nil, face: [String: JSONValue]? = nil, meditation: [String: JSONValue]? = nil,
        language: Language? = nil, wake: [String: JSONValue]? = nil, bedtime: [String: JSONValue]? = nil,
        kids: [String: JSONValue]? = nil
    ) {
        self.timeFormat = timeFormat
        self.showSeconds = showSeconds
        self.timezone = timezone
        self.locale = locale
        self.publishSeconds = publishSeconds
        self.face = face
        self.meditation = meditation
        self.language = language
        self.wake = wake
        self.bedtime = bedtime
        self.kids = kids
    }

    public static let fields: Set<String> = [
        "time_format", "show_seconds", "timezone", "locale", "publish_seconds", "face", "meditation", "language", "wake",
        "bedtime", "kids",
    ]

    public init(_ arguments: CommandArguments) throws(CommandError) {
        try arguments.allowOnly(Self.fields)
        if let raw = try arguments.string("time_format") {
            guard let format = TimeFormat(rawValue: raw) else {
                throw .invalidField("time_format", "must be 24h or 12h, not \"\(raw)\"")
            }
            timeFormat = format
        }
        language = try arguments.language()
        showSeconds = try arguments.bool("show_seconds")
        publishSeconds = try arguments.bool("publish_seconds")
        if let zone = try arguments.string("timezone") {
            if let reason = ClockValidation.timezoneProblem(zone) { throw .invalidField("timezone", reason) }
            timezone = zone
        }
        if let locale = try arguments.string("locale") {
            if let reason = ClockValidation.localeProblem(locale) { throw .invalidField("locale", reason) }
            self.locale = locale
        }
        if let value = arguments.values["face"] {
            guard let members = value.objectValue else { throw .invalidField("face", "must be a JSON object") }
            _ = try FaceStyle().applying(members)
            face = members
        }
        if let value = arguments.values["meditation"] {
            guard let members = value.objectValue else { throw .invalidField("meditation", "must be a JSON object") }
            _ = try MeditationSettings().applying(members)
            meditation = members
        }
        if let value = arguments.values["wake"] {
            guard let members = value.objectValue else { throw .invalidField("wake", "must be a JSON object") }
            _ = try WakeSettings().applying(members)
            wake = members
        }
        if let value = arguments.values["bedtime"] {
            guard let members = value.objectValue else { throw .invalidField("bedtime", "must be a JSON object") }
            _ = try BedtimeSettings().applying(members)
            bedtime = members
        }
        if let value = arguments.values["kids"] {
            guard let members = value.objectValue else { throw .invalidField("kids", "must be a JSON object") }
            _ = try KidsSettings().applying(members)
            kids = members
        }
    }

    public var isEmpty: Bool { self == SettingsPatch() }

    /// This patch with `newer`'s fields laid over it.
    public func merging(_ newer: SettingsPatch) -> SettingsPatch {
        SettingsPatch(
            timeFormat: newer.timeFormat ?? timeFormat, showSeconds: newer.showSeconds ?? showSeconds,
            timezone: newer.timezone ?? timezone, locale: newer.locale ?? locale,
            publishSeconds: newer.publishSeconds ?? publishSeconds,
            face: newer.face.map { FaceStyle.merge(face ?? [:], $0) } ?? face,
            meditation: newer.meditation.map { (meditation ?? [:]).merging($0) { _, new in new } } ?? meditation,
            language: newer.language ?? language,
            wake: newer.wake.map { (wake ?? [:]).merging($0) { _, new in new } } ?? wake,
            bedtime: newer.bedtime.map { Self.mergeBedtime(bedtime ?? [:], $0) } ?? bedtime,
            kids: newer.kids.map { Self.mergeKids(kids ?? [:], $0) } ?? kids)
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = [:]
        if let timeFormat { members["time_format"] = .string(timeFormat.rawValue) }
        if let showSeconds { members["show_seconds"] = .bool(showSeconds) }
        if let language { members["language"] = .string(language.rawValue) }
        if let timezone { members["timezone"] = .string(timezone) }
        if let locale { members["locale"] = .string(locale) }
        if let publishSeconds { members["publish_seconds"] = .bool(publishSeconds) }
        if let face { members["face"] = .object(face) }
        if let meditation { members["meditation"] = .object(meditation) }
        if let wake { members["wake"] = .object(wake) }
        if let bedtime { members["bedtime"] = .object(bedtime) }
        if let kids { members["kids"] = .object(kids) }
        return .object(members)
    }

    /// A later `bedtime.time` replaces the earlier one whole (a time for every day, a list of days,
    /// or null); the other members replace theirs.
    static func mergeBedtime(_ older: [String: JSONValue], _ newer: [String: JSONValue]) -> [String: JSONValue] {
        older.merging(newer) { _, new in new }
    }

    /// A later `kids.wake` of some days changes those days and keeps the others'; one time for
    /// all replaces every day.
    static func mergeKids(_ older: [String: JSONValue], _ newer: [String: JSONValue]) -> [String: JSONValue] {
        var merged = older.merging(newer) { _, new in new }
        guard case .object(let days)? = newer["wake"] else { return merged }
        switch older["wake"] {
        case .object(let before)?: merged["wake"] = .object(before.merging(days) { _, new in new })
        case .string(let every)?:
            let before = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0.rawValue, JSONValue.string(every)) })
            merged["wake"] = .object(before.merging(days) { _, new in new })
        default: break
        }
        return merged
    }
}

/// Checks shared by the configuration file and the `settings` verb.
public enum ClockValidation {
    /// Nil when `zone` is empty (the system's zone) or a zone this machine knows.
    public static func timezoneProblem(_ zone: String) -> String? {
        // IANA names only ("Area/City", or UTC): the zone files also hold "EST" or "GMT+5",
        // which B/clock would then show as such.
        if zone.isEmpty || zone == "UTC" || (zone.contains("/") && Zone(identifier: zone) != nil) { return nil }
        return "unknown time zone \"\(zone)\"; use an IANA name such as Europe/Berlin"
    }

    /// Nil when the node has month and weekday names for `locale` (en_US, de_DE, de-DE, de, ...),
    /// or when it is empty (the node's language).
    public static func localeProblem(_ locale: String) -> String? {
        if locale.isEmpty || DateNames.names(for: locale) != nil { return nil }
        return "unknown locale \"\(locale)\"; use \"\" (the node's language) or one of \(DateNames.identifiers.joined(separator: ", "))"
    }
}

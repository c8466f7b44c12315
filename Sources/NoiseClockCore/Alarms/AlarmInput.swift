/// The fields of an alarm that a command may set, each already checked; nil means "not given".
/// Decoded once at the edge (from a command's arguments), like `SettingsPatch`; the book and the
/// scheduler only ever see these typed values.
public struct AlarmFields: Sendable, Hashable {
    public var time: AlarmTime?
    public var label: String?
    public var days: Set<Weekday>?
    public var enabled: Bool?
    /// A sound id or catalog name, checked only for form here (the node resolves it).
    public var sound: String?
    public var volume: Int?
    public var snoozeMinutes: Int?
    public var fadeInSeconds: Int?
    public var ringTimeoutMinutes: Int?
    public var skipHolidays: Bool?
    public var escalateAfterSeconds: Int?
    /// A sound id or catalog name, checked only for form here; empty: the alarm's own sound.
    public var escalateSound: String?
    public var sunriseMinutes: Int?
    public var lights: Bool?
    public var briefing: Bool?
    /// `earlier_if`: given (an object, or null to clear) or not.
    public var earlierIf: EarlierIf??
    /// `calendar`: given (an object, or null to clear) or not.
    public var calendar: AlarmCalendar??

    public init(
        time: AlarmTime? = nil, label: String? = nil, days: Set<Weekday>? = nil, enabled: Bool? = nil, sound: String? = nil,
        volume: Int? = nil, snoozeMinutes: Int? = nil, fadeInSeconds: Int? = nil, ringTimeoutMinutes: Int? = nil,
        skipHolidays: Bool? = nil, escalateAfterSeconds: Int? = nil, escalateSound: String? = nil, sunriseMinutes: Int? = nil,
        lights: Bool? = nil, briefing: Bool? = nil
    ) {
        self.time = time
        self.label = label
        self.days = days
        self.enabled = enabled
        self.sound = sound
        self.volume = volume
        self.snoozeMinutes = snoozeMinutes
        self.fadeInSeconds = fadeInSeconds
        self.ringTimeoutMinutes = ringTimeoutMinutes
        self.skipHolidays = skipHolidays
        self.escalateAfterSeconds = escalateAfterSeconds
        self.escalateSound = escalateSound
        self.sunriseMinutes = sunriseMinutes
        self.lights = lights
        self.briefing = briefing
    }

    /// The names `alarm/add` and `alarm/update` accept (besides `id`).
    public static let names: Set<String> = [
        "time", "label", "days", "enabled", "sound", "volume", "snooze_min", "fade_in_s", "ring_timeout_min", "skip_holidays",
        "escalate_after_s", "escalate_sound", "sunrise_min", "lights", "briefing", "earlier_if", "calendar",
    ]

    /// Reads and checks every field present; the first bad one is named in the error.
    public init(_ arguments: CommandArguments) throws(CommandError) {
        if let text = try arguments.string("time") { time = try Self.time(text) }
        if let text = try arguments.string("label") { label = try Self.label(text) }
        if let value = arguments.values["days"] { days = try Self.days(value) }
        enabled = try arguments.bool("enabled")
        if let text = try arguments.string("sound") { sound = try Self.sound(text) }
        volume = try arguments.int("volume", in: Self.volumes)
        if let snooze = try arguments.int("snooze_min", in: 1...60) { snoozeMinutes = try Self.snooze(snooze) }
        fadeInSeconds = try arguments.int("fade_in_s", in: Self.fadeIns)
        ringTimeoutMinutes = try arguments.int("ring_timeout_min", in: Self.ringTimeouts)
        skipHolidays = try arguments.bool("skip_holidays")
        escalateAfterSeconds = try arguments.int("escalate_after_s", in: Self.escalations)
        if let value = arguments.values["escalate_sound"] { escalateSound = try Self.escalateSound(value) }
        sunriseMinutes = try arguments.int("sunrise_min", in: Self.sunrises)
        lights = try arguments.bool("lights")
        briefing = try arguments.bool("briefing")
        if let value = arguments.values["earlier_if"] { earlierIf = .some(try Self.earlierIf(value)) }
        if let value = arguments.values["calendar"] { calendar = .some(try Self.calendar(value)) }
    }

    /// `earlier_if`: an object, or null (or all zero) for none.
    static func earlierIf(_ value: JSONValue) throws(CommandError) -> EarlierIf? {
        if value == .null { return nil }
        let earlier = try EarlierIf(value)
        return earlier.isOff ? nil : earlier
    }

    static func calendar(_ value: JSONValue) throws(CommandError) -> AlarmCalendar? {
        value == .null ? nil : try AlarmCalendar(value)
    }

    /// `alarm` with the given fields laid over it.
    public func applied(to alarm: Alarm) -> Alarm {
        var copy = alarm
        if let time { copy.time = time }
        if let label { copy.label = label }
        if let days { copy.days = days }
        if let enabled { copy.enabled = enabled }
        if let sound { copy.sound = sound }
        if let volume { copy.volume = volume }
        if let snoozeMinutes { copy.snoozeMinutes = snoozeMinutes }
        if let fadeInSeconds { copy.fadeInSeconds = fadeInSeconds }
        if let ringTimeoutMinutes { copy.ringTimeoutMinutes = ringTimeoutMinutes }
        if let skipHolidays { copy.skipHolidays = skipHolidays }
        if let escalateAfterSeconds { copy.escalateAfterSeconds = escalateAfterSeconds }
        if let escalateSound { copy.escalateSound = escalateSound }
        if let sunriseMinutes { copy.sunriseMinutes = sunriseMinutes }
        if let lights { copy.lights = lights }
        if let briefing { copy.briefing = briefing }
        if let earlierIf { copy.earlierIf = earlierIf }
        if let calendar { copy.calendar = calendar }
        return copy
    }

    // MARK: The checks, shared with the stored form

    static let volumes = 0...100
    static let fadeIns = 0...600
    static let ringTimeouts = 1...120
    /// `escalate_after_s`: up to an hour; 0 is off.
    public static let escalations = 0...3600
    /// `sunrise_min`: up to an hour; 0 is none.
    public static let sunrises = 0...60

    /// `escalate_sound`: a tone, or null or "" for the alarm's own.
    static func escalateSound(_ value: JSONValue) throws(CommandError) -> String {
        if value == .null { return "" }
        guard let text = value.stringValue else { throw .invalidField("escalate_sound", "must name an alarm tone, or be null for the alarm's own") }
        return text
    }

    static func time(_ text: String) throws(CommandError) -> AlarmTime {
        guard let time = AlarmTime(text) else { throw .invalidField("time", "must be HH:MM (00:00 to 23:59), not \"\(text)\"") }
        return time
    }

    static func label(_ text: String) throws(CommandError) -> String {
        guard !text.isEmpty, text.count <= Alarm.maximumLabelLength else {
            throw .invalidField("label", "must be 1 to \(Alarm.maximumLabelLength) characters")
        }
        return text
    }

    static func days(_ value: JSONValue) throws(CommandError) -> Set<Weekday> {
        guard case .array(let items) = value else { throw .invalidField("days", "must be a list such as [\"mon\",\"fri\"]") }
        var days: Set<Weekday> = []
        for item in items {
            guard let name = item.stringValue, let day = Weekday(rawValue: name.lowercased()) else {
                throw .invalidField("days", "days are mon, tue, wed, thu, fri, sat, sun; not \(item.serialized)")
            }
            days.insert(day)
        }
        return days
    }

    static func sound(_ text: String) throws(CommandError) -> String {
        guard !text.isEmpty else { throw .invalidField("sound", "must name an alarm tone") }
        return text
    }

    static func snooze(_ minutes: Int) throws(CommandError) -> Int {
        guard Alarm.snoozeChoices.contains(minutes) else {
            throw .invalidField("snooze_min", "must be one of \(Alarm.snoozeChoices.sorted().map(String.init).joined(separator: ", "))")
        }
        return minutes
    }
}

/// `alarm/add`: a new alarm's fields; `time` is required, the rest default as SPEC §3 says.
public struct AlarmDraft: Sendable, Hashable {
    public var fields: AlarmFields

    public init(time: AlarmTime, _ fields: AlarmFields = AlarmFields()) {
        var fields = fields
        fields.time = time
        self.fields = fields
    }

    public init(_ arguments: CommandArguments) throws(CommandError) {
        try arguments.allowOnly(AlarmFields.names)
        let fields = try AlarmFields(arguments)
        guard fields.time != nil else { throw .invalidField("time", "an alarm needs a time, HH:MM") }
        self.fields = fields
    }

    /// The alarm this draft makes, with `id` and, unless the draft names one, `defaultSound`.
    public func alarm(id: String, defaultSound: String) -> Alarm {
        fields.applied(to: Alarm(id: id, time: .midnight, sound: defaultSound))
    }
}

/// `alarm/update`: the alarm named by `id` and the fields to change.
public struct AlarmPatch: Sendable, Hashable {
    public var id: String
    public var fields: AlarmFields

    public init(id: String, _ fields: AlarmFields) {
        self.id = id
        self.fields = fields
    }

    public init(_ arguments: CommandArguments) throws(CommandError) {
        try arguments.allowOnly(AlarmFields.names.union(["id"]))
        id = try arguments.requiredString("id", "the id of the alarm to change is required")
        fields = try AlarmFields(arguments)
    }
}

// MARK: Stored form (`alarms.json`)

extension Alarm {
    /// The alarm as stored: the object of SPEC §3 without `next_fire`.
    public var stored: JSONValue {
        guard var members = json(nextFire: nil).objectValue else { return .null }
        members["next_fire"] = nil
        return .object(members)
    }

    /// Reads a stored alarm with the same checks as `alarm/add`, naming the member at fault.
    /// Members other than `id` and `time` may be missing (an older file): they take their defaults.
    public init(stored value: JSONValue) throws(CommandError) {
        let fields = try StoredFields(value, "alarm")
        let id = try fields.string("id")
        // Without its time an alarm is damaged, not a 00:00 alarm.
        guard fields.values["time"] != nil else { throw .invalidField("time", "is missing from the stored alarm \(id)") }
        self.init(id: id, time: try AlarmFields.time(try fields.string("time")), sound: "")
        if fields.values["label"] != nil { label = try AlarmFields.label(try fields.string("label")) }
        if let days = fields.values["days"] { self.days = try AlarmFields.days(days) }
        if let enabled = fields.values["enabled"] {
            guard let on = enabled.boolValue else { throw .invalidField("enabled", "must be true or false") }
            self.enabled = on
        }
        // A missing sound is the default tone, as at ring time a tone that went missing is.
        if fields.values["sound"] != nil { sound = try AlarmFields.sound(try fields.string("sound")) }
        if fields.values["volume"] != nil { volume = try fields.int("volume", in: AlarmFields.volumes) }
        if fields.values["snooze_min"] != nil { snoozeMinutes = try AlarmFields.snooze(try fields.int("snooze_min")) }
        if fields.values["fade_in_s"] != nil { fadeInSeconds = try fields.int("fade_in_s", in: AlarmFields.fadeIns) }
        if fields.values["ring_timeout_min"] != nil {
            ringTimeoutMinutes = try fields.int("ring_timeout_min", in: AlarmFields.ringTimeouts)
        }
        if let skip = fields.values["skip_holidays"] {
            guard let on = skip.boolValue else { throw .invalidField("skip_holidays", "must be true or false") }
            skipHolidays = on
        }
        if fields.values["escalate_after_s"] != nil { escalateAfterSeconds = try fields.int("escalate_after_s", in: AlarmFields.escalations) }
        if let value = fields.values["escalate_sound"] { escalateSound = try AlarmFields.escalateSound(value) }
        if fields.values["sunrise_min"] != nil { sunriseMinutes = try fields.int("sunrise_min", in: AlarmFields.sunrises) }
        if let value = fields.values["lights"] {
            guard let on = value.boolValue else { throw .invalidField("lights", "must be true or false") }
            lights = on
        }
        if let value = fields.values["briefing"] {
            guard let on = value.boolValue else { throw .invalidField("briefing", "must be true or false") }
            briefing = on
        }
        if let value = fields.values["earlier_if"] { earlierIf = try AlarmFields.earlierIf(value) }
        if let value = fields.values["calendar"] { calendar = try AlarmFields.calendar(value) }
        if let skip = fields.values["skip_next"], skip != .null {
            guard let date = skip.stringValue else { throw .invalidField("skip_next", "must be a date or null") }
            skipNext = date
        }
    }
}

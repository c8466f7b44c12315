/// The user's side of waking up (SPEC §12), `settings.wake`: the default of `skip_holidays` for new
/// alarms, the days off (school holidays, bridge days) and a vacation that pauses every alarm.
public struct WakeSettings: Sendable, Hashable {
    /// New alarms keep quiet on public holidays and days off.
    public var skipHolidays = false
    /// ISO dates, sorted, at most `DaysOff.maximumCount`.
    public var daysOff: [CivilDate] = []
    /// The vacation's last day; nil: no vacation.
    public var vacationUntil: CivilDate?
    /// New alarms get firm after ringing this long (`escalate_after_s`); 0: never.
    public var escalateAfterSeconds = 0
    /// New alarms' minutes of sunrise (`sunrise_min`); 0: none.
    public var sunriseMinutes = 0
    /// New alarms' sunrise drives `wake.lights` (`lights`).
    public var lights = false
    /// New alarms' sound (`sound`): an alarm tone's id or `radio:<station id>`; nil: the built-in
    /// default tone. Resolved against the catalog and the stations when set (`resolvingSound`).
    public var sound: String?
    /// Keywords of the calendars' all-day events that are days off (SPEC §17): an all-day event
    /// whose title contains one (any case) keeps calendar alarms, and alarms with
    /// `skip_holidays`, quiet.
    public var calendarDaysOff: [String] = Self.defaultCalendarDaysOff

    public static let defaultCalendarDaysOff = ["vacation", "Urlaub", "Ferien"]
    public static let maximumCalendarDaysOff = 20

    public init(
        skipHolidays: Bool = false, daysOff: [CivilDate] = [], vacationUntil: CivilDate? = nil, escalateAfterSeconds: Int = 0,
        sunriseMinutes: Int = 0, lights: Bool = false, sound: String? = nil
    ) {
        self.skipHolidays = skipHolidays
        self.daysOff = daysOff
        self.vacationUntil = vacationUntil
        self.escalateAfterSeconds = escalateAfterSeconds
        self.sunriseMinutes = sunriseMinutes
        self.lights = lights
        self.sound = sound
    }

    public static let fields: Set<String> = ["skip_holidays", "days_off", "vacation_until", "escalate_after_s", "sunrise_min", "lights", "sound", "calendar_days_off"]

    public var json: JSONValue {
        [
            "skip_holidays": .bool(skipHolidays), "days_off": .array(daysOff.map { .string($0.iso) }),
            "vacation_until": vacationUntil.map { .string($0.iso) } ?? .null,
            "escalate_after_s": .number(Double(escalateAfterSeconds)), "sunrise_min": .number(Double(sunriseMinutes)),
            "lights": .bool(lights), "sound": sound.map(JSONValue.string) ?? .null,
            "calendar_days_off": .array(calendarDaysOff.map(JSONValue.string)),
        ]
    }

    /// The days alarms keep quiet, with the public holidays of `calendar` for `years`.
    public func daysOff(calendar: HolidayCalendar?, years: ClosedRange<Int>) -> DaysOff {
        var days = DaysOff(calendar: calendar, dates: Set(daysOff), vacationUntil: vacationUntil, years: years)
        days.calendarDaysOff = calendarDaysOff
        return days
    }

    /// These settings with the members of `patch` laid over them; every member is checked and named
    /// by its path (`wake.days_off`); on error nothing applies.
    public func applying(_ patch: [String: JSONValue], path: String = "wake") throws(CommandError) -> WakeSettings {
        var next = self
        let fields = PatchFields(patch, path: path)
        try fields.allowOnly(Self.fields)
        if let skip = try fields.bool("skip_holidays") { next.skipHolidays = skip }
        if let seconds = try fields.int("escalate_after_s", AlarmFields.escalations) { next.escalateAfterSeconds = seconds }
        if let minutes = try fields.int("sunrise_min", AlarmFields.sunrises) { next.sunriseMinutes = minutes }
        if let on = try fields.bool("lights") { next.lights = on }
        if let value = patch["sound"] {
            switch value {
            case .null: next.sound = nil
            case .string(let text) where !text.isEmpty && text.count <= 128: next.sound = text
            default: throw .invalidField(fields.name("sound"), "must be an alarm tone, radio:<station id> or null, not \(value.serialized)")
            }
        }
        if let value = patch["days_off"] { next.daysOff = try Self.dates(value, field: fields.name("days_off")) }
        if let value = patch["calendar_days_off"] { next.calendarDaysOff = try Self.keywords(value, field: fields.name("calendar_days_off")) }
        if let value = patch["vacation_until"] {
            if value == .null {
                next.vacationUntil = nil
            } else {
                guard let text = value.stringValue, let date = CivilDate(iso: text) else {
                    throw .invalidField(fields.name("vacation_until"), "must be a date YYYY-MM-DD or null, not \(value.serialized)")
                }
                next.vacationUntil = date
            }
        }
        return next
    }

    /// `patch` with its `sound` resolved to an alarm tone's id or `radio:<station id>` (a tone may
    /// be named by its catalog name, a station by its name); an unknown one is `not_found`.
    public static func resolvingSound(
        _ patch: [String: JSONValue], in catalog: SoundCatalog, stations: RadioStations, path: String = "wake"
    ) throws(CommandError) -> [String: JSONValue] {
        guard let name = patch["sound"]?.stringValue else { return patch }
        var resolved = patch
        if name.hasPrefix("radio:") {
            let reference = String(name.dropFirst("radio:".count))
            guard let station = stations.station(named: reference) else {
                throw CommandError(.notFound, "no station \(reference)", field: "\(path).sound")
            }
            resolved["sound"] = .string("radio:\(station.id)")
        } else {
            guard let sound = catalog.sound(named: name), sound.kind == .alarm else {
                throw CommandError(.notFound, "no alarm tone \(name)", field: "\(path).sound")
            }
            resolved["sound"] = .string(sound.id)
        }
        return resolved
    }

    /// Keywords: a list of 1-64 character texts, at most `maximumCalendarDaysOff`, repeats dropped.
    public static func keywords(_ value: JSONValue, field: String) throws(CommandError) -> [String] {
        guard case .array(let items) = value else { throw .invalidField(field, "must be a list of words such as [\"Urlaub\", \"vacation\"]") }
        var words: [String] = []
        for item in items {
            guard let text = item.stringValue, (1...64).contains(text.count) else {
                throw .invalidField(field, "each keyword is 1 to 64 characters; not \(item.serialized)")
            }
            if !words.contains(text) { words.append(text) }
        }
        guard words.count <= maximumCalendarDaysOff else { throw .invalidField(field, "at most \(maximumCalendarDaysOff) keywords") }
        return words
    }

    /// A list of ISO dates, sorted, without repeats; at most `DaysOff.maximumCount`.
    public static func dates(_ value: JSONValue, field: String) throws(CommandError) -> [CivilDate] {
        guard case .array(let items) = value else { throw .invalidField(field, "must be a list of dates such as [\"2026-12-24\"]") }
        var dates = Set<CivilDate>()
        for item in items {
            guard let text = item.stringValue, let date = CivilDate(iso: text) else {
                throw .invalidField(field, "dates are YYYY-MM-DD; not \(item.serialized)")
            }
            dates.insert(date)
        }
        guard dates.count <= DaysOff.maximumCount else {
            throw .invalidField(field, "at most \(DaysOff.maximumCount) days off, not \(dates.count)")
        }
        return dates.sorted { $0.daysSinceEpoch < $1.daysSinceEpoch }
    }
}

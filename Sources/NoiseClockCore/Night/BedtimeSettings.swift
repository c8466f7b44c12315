/// The user's side of bedtime (SPEC §13), `settings.bedtime`: when to go to bed (one time, or one
/// per weekday), the reminder before it, the wind-down (a sunset on the screen, the sleep sounds
/// with their sleep timer, a breathing guide) and what it plays.
public struct BedtimeSettings: Sendable, Hashable {
    /// The bedtime on each weekday; a day without one has no reminder and no wind-down. Empty: off.
    public var times: [Weekday: AlarmTime] = [:]
    /// `time` was given as one time for every day (kept so it reads back as it was written).
    public var sameEveryDay = true
    /// The reminder comes this long before the bedtime; 0: none.
    public var reminderMinutes = 15
    /// The wind-down starts this long before the bedtime (and lasts as long when started by hand).
    public var windDownMinutes = 30
    /// What the wind-down plays (the sound catalogue's names), mixed; empty: silence.
    public var sounds: [String] = ["heavy-rain-white-noise"]
    public var volume = 30
    /// The sleep timer the sounds start with; 0: they play until stopped.
    public var sleepMinutes = 45
    /// A 4-7-8 breathing guide on the face during the wind-down.
    public var breathe = false

    public init() {}

    public static let fields: Set<String> = ["time", "reminder_min", "wind_down_min", "sounds", "volume", "sleep_min", "breathe"]
    public static let reminders = 0...120
    public static let windDowns = 0...120
    public static let sleeps = 0...480
    public static let volumes = 0...100
    /// As many sounds as the mixer plays at once.
    public static let maximumSounds = 4

    public var isOn: Bool { !times.isEmpty }

    /// The bedtime on `weekday`, if there is one.
    public func time(on weekday: Weekday) -> AlarmTime? { times[weekday] }

    /// `time` as written: "HH:MM", `{"mon":"HH:MM",…}` (the days that have one) or null.
    public var timeJSON: JSONValue {
        if times.isEmpty { return .null }
        if sameEveryDay, times.count == Weekday.allCases.count, Set(times.values).count == 1, let time = times[.mon] {
            return .string(time.description)
        }
        return .object(Dictionary(uniqueKeysWithValues: times.map { ($0.key.rawValue, JSONValue.string($0.value.description)) }))
    }

    public var json: JSONValue {
        [
            "time": timeJSON, "reminder_min": .number(Double(reminderMinutes)), "wind_down_min": .number(Double(windDownMinutes)),
            "sounds": .array(sounds.map { .string($0) }), "volume": .number(Double(volume)),
            "sleep_min": .number(Double(sleepMinutes)), "breathe": .bool(breathe),
        ]
    }

    /// These settings with the members of `patch` laid over them; every member is checked and named
    /// by its path (`bedtime.time.mon`); on error nothing applies. Sounds are checked against the
    /// catalogue by the caller, which knows it.
    public func applying(_ patch: [String: JSONValue], path: String = "bedtime") throws(CommandError) -> BedtimeSettings {
        var next = self
        let fields = PatchFields(patch, path: path)
        try fields.allowOnly(Self.fields)
        if let value = patch["time"] {
            (next.times, next.sameEveryDay) = try Self.times(value, field: fields.name("time"))
        }
        if let minutes = try fields.int("reminder_min", Self.reminders) { next.reminderMinutes = minutes }
        if let minutes = try fields.int("wind_down_min", Self.windDowns) { next.windDownMinutes = minutes }
        if let minutes = try fields.int("sleep_min", Self.sleeps) { next.sleepMinutes = minutes }
        if let volume = try fields.int("volume", Self.volumes) { next.volume = volume }
        if let breathe = try fields.bool("breathe") { next.breathe = breathe }
        if let value = patch["sounds"] {
            guard case .array(let items) = value else {
                throw .invalidField(fields.name("sounds"), "must be a list of sound names such as [\"heavy-rain-white-noise\"]")
            }
            var names: [String] = []
            for item in items {
                guard let name = item.stringValue, !name.isEmpty else {
                    throw .invalidField(fields.name("sounds"), "sound names are strings; not \(item.serialized)")
                }
                if !names.contains(name) { names.append(name) }
            }
            guard names.count <= Self.maximumSounds else {
                throw .invalidField(fields.name("sounds"), "at most \(Self.maximumSounds) sounds play together, not \(names.count)")
            }
            next.sounds = names
        }
        return next
    }

    /// `patch` with its sounds resolved to the catalogue's noise sounds (by id or name, as the
    /// noise verbs take them); an unknown one is an error naming `bedtime.sounds`.
    /// A station (`radio:<id or name>`, SPEC §15) is one of `stations` and plays alone.
    public static func resolvingSounds(
        _ patch: [String: JSONValue], in catalog: SoundCatalog, stations: RadioStations = RadioStations(), path: String = "bedtime"
    ) throws(CommandError) -> [String: JSONValue] {
        guard case .array(let items)? = patch["sounds"] else { return patch }
        var resolved = patch
        var ids: [JSONValue] = []
        for item in items {
            if let name = item.stringValue, name.hasPrefix("radio:") {
                let reference = String(name.dropFirst("radio:".count))
                guard let station = stations.station(named: reference) else {
                    throw CommandError(.notFound, "no station \(reference)", field: "\(path).sounds")
                }
                guard items.count == 1 else {
                    throw .invalidField("\(path).sounds", "a station plays alone, not with other sounds")
                }
                ids.append(.string("radio:\(station.id)"))
                continue
            }
            guard let name = item.stringValue, let sound = catalog.sound(named: name), sound.kind == .noise else {
                throw CommandError(.notFound, "no noise sound \(item.serialized)", field: "\(path).sounds")
            }
            ids.append(.string(sound.id))
        }
        resolved["sounds"] = .array(ids)
        return resolved
    }

    /// `null`, "HH:MM" for every day, or `{"mon":"HH:MM",…}` (a day left out, or null, has none).
    static func times(_ value: JSONValue, field: String) throws(CommandError) -> ([Weekday: AlarmTime], Bool) {
        switch value {
        case .null:
            return ([:], true)
        case .string(let text):
            guard let time = AlarmTime(text) else { throw .invalidField(field, "must be HH:MM (00:00 to 23:59), not \"\(text)\"") }
            return (Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, time) }), true)
        case .object(let days):
            var times: [Weekday: AlarmTime] = [:]
            for (key, item) in days {
                guard let day = Weekday(rawValue: key) else {
                    throw .invalidField("\(field).\(key)", "unknown day; expected one of \(Weekday.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                if item == .null { continue }
                guard let text = item.stringValue, let time = AlarmTime(text) else {
                    throw .invalidField("\(field).\(key)", "must be HH:MM (00:00 to 23:59) or null, not \(item.serialized)")
                }
                times[day] = time
            }
            return (times, false)
        default:
            throw .invalidField(field, "must be HH:MM, an object of days such as {\"mon\":\"22:30\"}, or null; not \(value.serialized)")
        }
    }
}

import FoundationEssentials

/// The node's alarms and what it has handled of them: the model behind the `alarm/*` verbs and
/// `alarms.json`. Every change is checked as a whole and either applies or throws.
public struct AlarmBook: Sendable, Hashable {
    public private(set) var alarms: [Alarm] = []
    /// The last occurrence of each alarm that was rung or reported missed, so none comes twice.
    public private(set) var lastHandled: [String: Date] = [:]

    public init(alarms: [Alarm] = [], lastHandled: [String: Date] = [:]) {
        self.alarms = alarms
        self.lastHandled = lastHandled
    }

    public func alarm(_ id: String) throws(CommandError) -> Alarm {
        guard let alarm = alarms.first(where: { $0.id == id }) else { throw CommandError(.notFound, "no alarm \"\(id)\"", field: "id") }
        return alarm
    }

    /// `alarm/add`: the draft's alarm under `id`, with `defaultSound` unless the draft names one.
    public mutating func add(_ draft: AlarmDraft, id: String, defaultSound: String) throws(CommandError) -> Alarm {
        guard alarms.count < Alarm.maximumCount else {
            throw CommandError(.conflict, "there are already \(Alarm.maximumCount) alarms", field: "id")
        }
        let alarm = draft.alarm(id: id, defaultSound: defaultSound)
        alarms.append(alarm)
        return alarm
    }

    /// `alarm/update`: the fields the patch carries change; its `id` names the alarm.
    public mutating func update(_ patch: AlarmPatch) throws(CommandError) -> Alarm {
        let updated = patch.fields.applied(to: try alarm(patch.id))
        replace(updated)
        return updated
    }

    public mutating func delete(_ id: String) throws(CommandError) -> Alarm {
        let alarm = try alarm(id)
        alarms.removeAll { $0.id == id }
        lastHandled[id] = nil
        return alarm
    }

    public mutating func duplicate(_ id: String, newID: String) throws(CommandError) -> Alarm {
        var copy = try alarm(id)
        guard alarms.count < Alarm.maximumCount else {
            throw CommandError(.conflict, "there are already \(Alarm.maximumCount) alarms", field: "id")
        }
        copy.id = newID
        copy.skipNext = nil
        alarms.append(copy)
        return copy
    }

    public mutating func setEnabled(_ id: String, _ enabled: Bool) throws(CommandError) -> Alarm {
        var alarm = try alarm(id)
        alarm.enabled = enabled
        if !enabled { alarm.skipNext = nil }
        replace(alarm)
        return alarm
    }

    /// `alarm/skip_next`: passes over the next occurrence of a repeating alarm that would ring
    /// (one a holiday, a day off or the vacation keeps quiet anyway is not it).
    public mutating func skipNext(_ id: String, now: Date, in zone: Zone, daysOff: DaysOff = .none) throws(CommandError) -> Alarm {
        var alarm = try alarm(id)
        guard !alarm.isOneShot else {
            throw CommandError(.conflict, "a one-shot alarm cannot skip; disable it instead", field: "id")
        }
        var unskipped = alarm
        unskipped.skipNext = nil
        guard let next = AlarmSchedule.nextFire(of: unskipped, after: now, in: zone, daysOff: daysOff) else {
            throw CommandError(.conflict, "alarm \"\(id)\" is disabled", field: "id")
        }
        alarm.skipNext = AlarmSchedule.localDate(of: next, in: zone)
        replace(alarm)
        return alarm
    }

    /// Clears skips whose date is before `today` (`YYYY-MM-DD`): the skipped occurrence is over.
    public mutating func clearSkips(before today: String) {
        for index in alarms.indices {
            if let skip = alarms[index].skipNext, skip < today { alarms[index].skipNext = nil }
        }
    }

    public mutating func unskip(_ id: String) throws(CommandError) -> Alarm {
        var alarm = try alarm(id)
        alarm.skipNext = nil
        replace(alarm)
        return alarm
    }

    /// Records an occurrence as rung or reported, so it never comes again.
    public mutating func handled(_ id: String, at occurrence: Date) {
        if lastHandled[id].map({ $0 < occurrence }) ?? true { lastHandled[id] = occurrence }
    }

    private mutating func replace(_ alarm: Alarm) {
        if let index = alarms.firstIndex(where: { $0.id == alarm.id }) { alarms[index] = alarm }
    }
}

// MARK: Stored form (`alarms.json`)

extension AlarmBook {
    public var stored: JSONValue {
        [
            "alarms": .array(alarms.map(\.stored)),
            "last_handled": .object(lastHandled.mapValues { .number($0.timeIntervalSince1970) }),
        ]
    }

    public init(stored value: JSONValue) throws(CommandError) {
        let fields = try StoredFields(value, "alarms document")
        var alarms: [Alarm] = []
        for item in try fields.array("alarms") {
            let alarm = try Alarm(stored: item)
            guard !alarms.contains(where: { $0.id == alarm.id }) else { throw .invalidField("id", "\(alarm.id) appears twice") }
            alarms.append(alarm)
        }
        var handled: [String: Date] = [:]
        for (id, instant) in try fields.object("last_handled") {
            guard case .number(let seconds) = instant else { throw .invalidField("last_handled", "must map ids to seconds since 1970") }
            handled[id] = Date(timeIntervalSince1970: seconds)
        }
        self.init(alarms: alarms, lastHandled: handled)
    }
}

import FoundationEssentials

/// A timed session or a guided meditation (SPEC §10).
public enum MeditationKind: String, Sendable, Hashable, CaseIterable {
    case timed, guided
}

/// One finished or stopped session, as `meditation-history.json` keeps it.
public struct MeditationRecord: Sendable, Hashable {
    public var startedAt: Date
    /// The minutes actually meditated (preparation and pauses not counted), rounded.
    public var minutes: Int
    public var kind: MeditationKind
    public var completed: Bool

    public init(startedAt: Date, minutes: Int, kind: MeditationKind, completed: Bool) {
        self.startedAt = startedAt
        self.minutes = minutes
        self.kind = kind
        self.completed = completed
    }

    /// Meditated seconds as whole minutes, to the nearest.
    public static func minutes(meditated seconds: TimeInterval) -> Int { Int((max(0, seconds) / 60).rounded()) }
}

/// Every session recorded, the newest last, capped at `limit`; what falls off the front still
/// counts in the totals.
public struct MeditationHistory: Sendable, Hashable {
    public static let documentName = "meditation-history.json"
    public static let limit = 5000

    public private(set) var records: [MeditationRecord]
    /// Sessions and minutes of the records dropped by the cap.
    public private(set) var droppedSessions = 0
    public private(set) var droppedMinutes = 0

    public init(records: [MeditationRecord] = []) {
        self.records = records
    }

    public mutating func append(_ record: MeditationRecord, limit: Int = MeditationHistory.limit) {
        records.append(record)
        while records.count > limit {
            droppedSessions += 1
            droppedMinutes += records.removeFirst().minutes
        }
    }

    public var stored: JSONValue {
        [
            "version": 1,
            "dropped": ["sessions": .number(Double(droppedSessions)), "minutes": .number(Double(droppedMinutes))],
            "sessions": .array(records.map { record in
                [
                    "started_at": .number(record.startedAt.timeIntervalSince1970), "minutes": .number(Double(record.minutes)),
                    "kind": .string(record.kind.rawValue), "completed": .bool(record.completed),
                ]
            }),
        ]
    }

    public init(stored value: JSONValue) throws(CommandError) {
        let fields = try StoredFields(value, "meditation history")
        var records: [MeditationRecord] = []
        for item in try fields.array("sessions") {
            let entry = try StoredFields(item, "session")
            guard let kind = MeditationKind(rawValue: try entry.string("kind")) else {
                throw .invalidField("kind", "must be timed or guided")
            }
            guard let completed = entry.values["completed"]?.boolValue else { throw .invalidField("completed", "must be true or false") }
            records.append(
                MeditationRecord(
                    startedAt: try entry.instant("started_at"), minutes: try entry.int("minutes", in: 0...100_000), kind: kind,
                    completed: completed))
        }
        self.init(records: records)
        let dropped = try fields.object("dropped")
        droppedSessions = max(0, dropped["sessions"]?.intValue ?? 0)
        droppedMinutes = max(0, dropped["minutes"]?.intValue ?? 0)
    }
}

/// `B/meditation/stats`: `{"sessions","minutes_total","minutes_7d","streak_days"}`. Days are the
/// node's local calendar days (in the zone in force), so a 23 or 25 hour day around a
/// daylight-saving change is one day like any other.
public struct MeditationStats: Sendable, Hashable {
    public var sessions: Int
    public var minutesTotal: Int
    /// Minutes of the sessions started on the last 7 local days, today included.
    public var minutes7d: Int
    /// Consecutive local days with at least one session, ending today or yesterday (0 if neither).
    public var streakDays: Int

    public init(sessions: Int, minutesTotal: Int, minutes7d: Int, streakDays: Int) {
        self.sessions = sessions
        self.minutesTotal = minutesTotal
        self.minutes7d = minutes7d
        self.streakDays = streakDays
    }

    public var json: JSONValue {
        [
            "sessions": .number(Double(sessions)), "minutes_total": .number(Double(minutesTotal)),
            "minutes_7d": .number(Double(minutes7d)), "streak_days": .number(Double(streakDays)),
        ]
    }

    public init(_ history: MeditationHistory, now: Date, zone: Zone) {
        self.init(Days(history, zone: zone), today: Self.day(of: now, in: zone))
    }

    init(_ days: Days, today: Int64) {
        sessions = days.sessions
        minutesTotal = days.minutesTotal
        minutes7d = (today - 6...today).reduce(0) { $0 + (days.minutes[$1] ?? 0) }
        var streak = 0
        var day = days.minutes[today] != nil ? today : today - 1
        while days.minutes[day] != nil {
            streak += 1
            day -= 1
        }
        streakDays = streak
    }

    /// The local day (days since 1970-01-01) of `instant`.
    public static func day(of instant: Date, in zone: Zone) -> Int64 { LocalTime(instant, in: zone).date.daysSinceEpoch }

    /// The next instant after `now` at which the stats change by themselves: a local midnight at
    /// which a day leaves the last 7 or the streak breaks. Nil when no midnight of the next 8 days
    /// changes them (nothing in the last week and no streak): nothing needs waking for them.
    public static func nextChange(_ history: MeditationHistory, now: Date, zone: Zone) -> Date? {
        let days = Days(history, zone: zone)
        let today = day(of: now, in: zone)
        let current = MeditationStats(days, today: today)
        for ahead in Int64(1)...8 where MeditationStats(days, today: today + ahead) != current {
            return AlarmSchedule.occurrence(of: .midnight, on: CivilDate(daysSinceEpoch: today + ahead), in: zone)
        }
        return nil
    }

    /// The history by local day.
    struct Days {
        var minutes: [Int64: Int] = [:]
        var sessions: Int
        var minutesTotal: Int

        init(_ history: MeditationHistory, zone: Zone) {
            sessions = history.droppedSessions + history.records.count
            minutesTotal = history.droppedMinutes + history.records.reduce(0) { $0 + $1.minutes }
            for record in history.records { minutes[MeditationStats.day(of: record.startedAt, in: zone), default: 0] += record.minutes }
        }
    }
}

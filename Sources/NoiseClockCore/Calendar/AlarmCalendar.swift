import FoundationEssentials

/// An alarm's `calendar` (SPEC §17): on a day with a timed event in `feed` (containing
/// `keyword`, when set) it rings `lead_min` before the first one, never before `earliest` nor
/// after `latest`; on a day without one it rings at its own time or skips (`no_event`).
public struct AlarmCalendar: Sendable, Hashable {
    public enum NoEvent: String, Sendable, Hashable, CaseIterable {
        case ring, skip
    }

    public static let leads = 0...720
    public static let maximumKeywordLength = 64

    public var feed: String
    public var leadMinutes: Int
    public var earliest: AlarmTime
    public var latest: AlarmTime
    public var keyword: String
    public var noEvent: NoEvent

    public init(
        feed: String, leadMinutes: Int = 60, earliest: AlarmTime = AlarmTime(hour: 5, minute: 30) ?? .midnight,
        latest: AlarmTime = AlarmTime(hour: 9, minute: 30) ?? .midnight, keyword: String = "", noEvent: NoEvent = .ring
    ) {
        self.feed = feed
        self.leadMinutes = leadMinutes
        self.earliest = earliest
        self.latest = latest
        self.keyword = keyword
        self.noEvent = noEvent
    }

    public var json: JSONValue {
        [
            "feed": .string(feed), "lead_min": .number(Double(leadMinutes)), "earliest": .string(earliest.description),
            "latest": .string(latest.description), "keyword": .string(keyword), "no_event": .string(noEvent.rawValue),
        ]
    }

    /// `calendar`: `{"feed", "lead_min", "earliest", "latest", "keyword", "no_event"}`, all but
    /// `feed` optional; the field at fault is named (`calendar.latest`). Whether the feed exists is
    /// the node's to check (it knows `calendar.feeds`).
    public init(_ value: JSONValue) throws(CommandError) {
        guard case .object(let members) = value else {
            throw .invalidField("calendar", "must be an object such as {\"feed\":\"work\",\"lead_min\":60}, or null")
        }
        let known: Set<String> = ["feed", "lead_min", "earliest", "latest", "keyword", "no_event"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidField("calendar.\(unknown)", "is not known; calendar takes \(known.sorted().joined(separator: ", "))")
        }
        guard let feed = members["feed"]?.stringValue, Configuration.CalendarFeeds.isValidID(feed) else {
            throw .invalidField("calendar.feed", "must name a feed of calendar.feeds")
        }
        self.init(feed: feed)
        if let lead = members["lead_min"] {
            guard let minutes = lead.intValue, Self.leads.contains(minutes) else {
                throw .invalidField("calendar.lead_min", "must be a whole number of minutes from 0 to 720")
            }
            leadMinutes = minutes
        }
        func time(_ key: String) throws(CommandError) -> AlarmTime? {
            guard let value = members[key] else { return nil }
            guard let text = value.stringValue, let time = AlarmTime(text) else { throw .invalidField("calendar.\(key)", "must be HH:MM") }
            return time
        }
        if let earliest = try time("earliest") { self.earliest = earliest }
        if let latest = try time("latest") { self.latest = latest }
        guard (earliest.hour, earliest.minute) <= (latest.hour, latest.minute) else {
            throw .invalidField("calendar.latest", "must not be before calendar.earliest (\(earliest))")
        }
        if let value = members["keyword"] {
            guard let text = value.stringValue, text.count <= Self.maximumKeywordLength else {
                throw .invalidField("calendar.keyword", "must be text of at most \(Self.maximumKeywordLength) characters")
            }
            keyword = text
        }
        if let value = members["no_event"] {
            guard let text = value.stringValue, let choice = NoEvent(rawValue: text) else {
                throw .invalidField("calendar.no_event", "must be ring or skip")
            }
            noEvent = choice
        }
    }

    /// The ring for an event at `start` on `day`: `lead_min` before it, within `earliest` and
    /// `latest` of that day.
    public func fire(before start: Date, on day: CivilDate, in zone: Zone) -> Date {
        let earliest = AlarmSchedule.occurrence(of: earliest, on: day, in: zone)
        let latest = AlarmSchedule.occurrence(of: latest, on: day, in: zone)
        return min(max(start.addingTimeInterval(-Double(leadMinutes * 60)), earliest), latest)
    }
}

/// Why an occurrence is not at its alarm's own time (SPEC §17): `B/alarm/next`'s
/// `earlier_by_min`, `reason` and `event`, and the face's "06:20 · Dentist at 07:30".
public struct AlarmMove: Sendable, Hashable {
    public struct Event: Sendable, Hashable {
        public var feed: String
        public var title: String
        public var start: Date

        public init(feed: String, title: String, start: Date) {
            self.feed = feed
            self.title = title
            self.start = start
        }
    }

    public var earlierBy: Int
    public var reason: WakeWeather?
    public var event: Event?

    public init(earlierBy: Int = 0, reason: WakeWeather? = nil, event: Event? = nil) {
        self.earlierBy = earlierBy
        self.reason = reason
        self.event = event
    }

    public func json(iso: (Date) -> String) -> JSONValue {
        [
            "earlier_by_min": .number(Double(earlierBy)), "reason": reason.map { .string($0.rawValue) } ?? .null,
            "event": event.map { ["feed": .string($0.feed), "title": .string($0.title), "start": .string(iso($0.start))] } ?? .null,
        ]
    }
}

/// What `earlier_if` decided for an alarm's occurrence (SPEC §17: at the latest 8 hours before
/// its own time; later forecasts do not move it again). Kept in `alarms.json`.
public struct EarlierDecision: Sendable, Hashable {
    /// The decision is made this long before the occurrence, at the latest.
    public static let lead: TimeInterval = 8 * 3600

    public var day: CivilDate
    public var minutes: Int
    public var reason: WakeWeather?

    public init(day: CivilDate, minutes: Int, reason: WakeWeather?) {
        self.day = day
        self.minutes = minutes
        self.reason = reason
    }

    public var stored: JSONValue {
        ["day": .string(day.iso), "min": .number(Double(minutes)), "reason": reason.map { .string($0.rawValue) } ?? .null]
    }

    public init?(stored value: JSONValue) {
        guard let members = value.objectValue, let day = members["day"]?.stringValue.flatMap(CivilDate.init(iso:)),
              let minutes = members["min"]?.intValue, EarlierIf.minutes.contains(minutes)
        else { return nil }
        self.init(day: day, minutes: minutes, reason: members["reason"]?.stringValue.flatMap(WakeWeather.init(rawValue:)))
    }
}

import FoundationEssentials

/// An occurrence of a calendar event (SPEC §17), as the `noiseclock-calendar` helper expands a
/// feed: timed (an instant) or all-day (local dates, the end excluded).
public struct CalendarEvent: Sendable, Hashable {
    public enum When: Sendable, Hashable {
        case timed(start: Date, end: Date)
        case allDay(first: CivilDate, end: CivilDate)
    }

    public static let maximumTitleLength = 200

    public var title: String
    public var when: When

    public init(title: String, when: When) {
        self.title = String(title.prefix(Self.maximumTitleLength))
        self.when = when
    }

    public var start: Date? {
        if case .timed(let start, _) = when { return start }
        return nil
    }

    /// Whether an all-day event covers `day`.
    public func covers(_ day: CivilDate) -> Bool {
        guard case .allDay(let first, let end) = when else { return false }
        return first.daysSinceEpoch <= day.daysSinceEpoch && day.daysSinceEpoch < max(end.daysSinceEpoch, first.daysSinceEpoch + 1)
    }

    /// One line of the helper's output: `{"summary","start","end","all_day":false}` or
    /// `{"summary","date","end_date","all_day":true}`; nil for a line that is not one.
    public init?(line: ArraySlice<UInt8>) {
        guard let members = try? JSONValue.parse(Array(line)).objectValue else { return nil }
        let title = members["summary"]?.stringValue ?? ""
        if members["all_day"]?.boolValue == true {
            guard let first = members["date"]?.stringValue.flatMap(CivilDate.init(iso:)) else { return nil }
            let end = members["end_date"]?.stringValue.flatMap(CivilDate.init(iso:)) ?? CivilDate(daysSinceEpoch: first.daysSinceEpoch + 1)
            self.init(title: title, when: .allDay(first: first, end: end))
        } else {
            guard let start = members["start"]?.numberValue, start.isFinite else { return nil }
            let end = members["end"]?.numberValue.flatMap { $0.isFinite ? $0 : nil } ?? start
            self.init(title: title, when: .timed(start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: max(start, end))))
        }
    }

    /// The helper's whole output, one event a line; at most `limit` kept (the window is days long).
    public static func lines(_ output: [UInt8], limit: Int = 5000) -> [CalendarEvent] {
        var events: [CalendarEvent] = []
        for line in output.split(separator: UInt8(ascii: "\n")) where events.count < limit {
            if let event = CalendarEvent(line: line) { events.append(event) }
        }
        return events
    }
}

/// What one feed says of the coming days, and how its last refresh went.
public struct FeedAgenda: Sendable, Hashable {
    public var id: String
    /// The occurrences of the days the node looks at (yesterday to a week ahead).
    public var events: [CalendarEvent]
    /// Whether the node has a copy of the feed at all: a feed never fetched leaves its alarms at
    /// their own time.
    public var known: Bool
    /// When the copy the events come from was fetched.
    public var fetchedAt: Date?
    /// Why the last refresh failed (the events are the stored copy's).
    public var error: String?

    public init(id: String, events: [CalendarEvent] = [], known: Bool = false, fetchedAt: Date? = nil, error: String? = nil) {
        self.id = id
        self.events = events
        self.known = known
        self.fetchedAt = fetchedAt
        self.error = error
    }

    /// The first timed event starting on `day` (local to `zone`) whose title contains `keyword`
    /// (any case; empty: every event).
    public func firstEvent(on day: CivilDate, keyword: String, in zone: Zone) -> (title: String, start: Date)? {
        let needle = keyword.lowercased()
        return events.compactMap { event -> (String, Date)? in
            guard let start = event.start, LocalTime(start, in: zone).date == day else { return nil }
            guard needle.isEmpty || event.title.lowercased().contains(needle) else { return nil }
            return (event.title, start)
        }.min { $0.1 < $1.1 }
    }

    /// The title of an all-day event on `day` that names one of `keywords` (any case).
    public func dayOff(on day: CivilDate, keywords: [String]) -> String? {
        let needles = keywords.map { $0.lowercased() }.filter { !$0.isEmpty }
        guard !needles.isEmpty else { return nil }
        return events.first { event in
            event.covers(day) && needles.contains { event.title.lowercased().contains($0) }
        }?.title
    }
}

/// The feeds' coming days (SPEC §17): what calendar alarms follow, and retained `B/calendar`.
public struct Agenda: Sendable, Hashable {
    public var feeds: [String: FeedAgenda]

    public init(feeds: [String: FeedAgenda] = [:]) { self.feeds = feeds }

    /// The title of an all-day event in any feed on `day` that names a keyword of
    /// `settings.wake.calendar_days_off`.
    public func dayOff(on day: CivilDate, keywords: [String]) -> String? {
        feeds.keys.sorted().lazy.compactMap { self.feeds[$0]?.dayOff(on: day, keywords: keywords) }.first
    }

    /// `B/calendar`: each feed's next seven days from `today`, the first timed event of each and
    /// the day off, with how the last refresh went.
    public func json(today: CivilDate, zone: Zone, keywords: [String], iso: (Date) -> String) -> JSONValue {
        .object([
            "feeds": .array(feeds.keys.sorted().compactMap { id -> JSONValue? in
                guard let feed = feeds[id] else { return nil }
                let days: [JSONValue] = (0..<7).map { offset in
                    let day = CivilDate(daysSinceEpoch: today.daysSinceEpoch + Int64(offset))
                    let first = feed.firstEvent(on: day, keyword: "", in: zone)
                    return [
                        "date": .string(day.iso),
                        "first": first.map { ["title": .string($0.title), "start": .string(iso($0.start))] } ?? .null,
                        "day_off": feed.dayOff(on: day, keywords: keywords).map { .string($0) } ?? .null,
                    ]
                }
                return [
                    "id": .string(id), "ok": .bool(feed.known && feed.error == nil), "error": feed.error.map { .string($0) } ?? .null,
                    "fetched_at": feed.fetchedAt.map { .string(iso($0)) } ?? .null, "events": .number(Double(feed.events.count)),
                    "days": .array(days),
                ]
            })
        ])
    }
}

extension Agenda {
    /// What the briefing says of `day` (SPEC §16, §17): the first timed event of each feed, at
    /// most three, in order: "First today: Dentist at seven thirty." / "Heute zuerst: Zahnarzt um
    /// sieben Uhr dreißig." nil without events.
    public func briefing(on day: CivilDate, zone: Zone, _ language: Language) -> String? {
        let firsts = feeds.values.compactMap { $0.firstEvent(on: day, keyword: "", in: zone) }
            .sorted { ($0.start, $0.title) < ($1.start, $1.title) }.prefix(3)
        guard !firsts.isEmpty else { return nil }
        let items = firsts.map { first -> String in
            let local = LocalTime(first.start, in: zone)
            let time = NumberWords.time(hour: local.hour, minute: local.minute, language)
            let title = first.title.isEmpty ? (language == .de ? "ein Termin" : "an event") : first.title
            return language == .de ? "\(title) um \(time)" : "\(title) at \(time)"
        }
        return (language == .de ? "Heute zuerst: " : "First today: ") + items.joined(separator: ", ") + "."
    }
}

import CICal

/// A time a property names: its wall time and the zone that wall time is in (a DATE has the
/// window's zone, which only places it for sorting).
struct ReadTime {
    var wall: icaltimetype
    let zone: OpaquePointer

    var isDate: Bool { wall.is_date != 0 }
    var date: CalendarDate? { CalendarDate(year: Int(wall.year), month: Int(wall.month), day: Int(wall.day)) }

    var instant: Int64 { ReadTime.instant(of: wall, in: zone) }

    /// The instant of a wall time in `zone` as RFC 5545 §3.3.5 reads it: a time that occurs twice
    /// (the autumn change) is the first of the two; one that does not occur (the spring change) is
    /// read with the offset before the gap. libical's own conversion
    /// (`icaltime_as_timet_with_zone`) takes the second of two, so the offsets come from libical's
    /// zone (`icaltimezone_get_utc_offset_of_utc_time`) and the choice is made here.
    static func instant(of wall: icaltimetype, in zone: OpaquePointer) -> Int64 {
        let day = CalendarDate(year: Int(wall.year), month: Int(wall.month), day: Int(wall.day))?.daysSinceEpoch ?? 0
        let naive = Int64(day) * 86_400 + Int64(wall.hour) * 3600 + Int64(wall.minute) * 60 + Int64(wall.second)
        let before = offset(of: zone, at: naive - 86_400), after = offset(of: zone, at: naive + 86_400)
        let fits = [naive - before, naive - after].filter { offset(of: zone, at: $0) == naive - $0 }
        return fits.min() ?? naive - before
    }

    /// Seconds east of UTC in `zone` at `instant`.
    static func offset(of zone: OpaquePointer, at instant: Int64) -> Int64 {
        var utc = icaltime_from_timet_with_zone(time_t(instant), 0, icaltimezone_get_utc_timezone())
        var daylight: Int32 = 0
        return Int64(icaltimezone_get_utc_offset_of_utc_time(zone, &utc, &daylight))
    }

    /// What identifies an instance of a series: its instant, or its day for a DATE.
    var key: InstanceKey { isDate ? .day(date?.daysSinceEpoch ?? 0) : .instant(instant) }
}

enum InstanceKey: Hashable {
    case instant(Int64)
    case day(Int)
}

/// How long each instance of an event lasts: days (all-day), exact seconds (DTEND: RFC 5545
/// §3.8.5.3, "the same exact duration will apply to all the members"), or a nominal DURATION
/// added to the wall time.
enum EventLength {
    case days(Int)
    case seconds(Int64)
    case nominal(icaldurationtype)
}

/// Expands the VEVENTs of a feed: each series (RRULE, RDATE, EXDATE) grouped with the
/// RECURRENCE-ID overrides of its UID, which replace (or, cancelled, remove) the instances they name.
struct Expander {
    let feed: ParsedFeed
    let window: Window
    private(set) var skipped = 0
    private var masters: [OpaquePointer] = []
    private var overrides: [String: [OpaquePointer]] = [:]

    init(feed: ParsedFeed, window: Window) {
        self.feed = feed
        self.window = window
    }

    mutating func collect(_ calendar: OpaquePointer) {
        var child = icalcomponent_get_first_component(calendar, ICAL_VEVENT_COMPONENT)
        while let event = child {
            if icalcomponent_get_first_property(event, ICAL_RECURRENCEID_PROPERTY) != nil {
                overrides[Self.uid(event), default: []].append(event)
            } else {
                masters.append(event)
            }
            child = icalcomponent_get_next_component(calendar, ICAL_VEVENT_COMPONENT)
        }
    }

    mutating func expandAll() -> [CalendarOccurrence] {
        var found: [CalendarOccurrence] = []
        var replaced: [String: Set<InstanceKey>] = [:]
        for (uid, events) in overrides {
            for event in events {
                guard let id = readTime(event, ICAL_RECURRENCEID_PROPERTY, floating: feed.windowZone) else {
                    skipped += 1
                    continue
                }
                replaced[uid, default: []].insert(id.key)
                if Self.cancelled(event) { continue }
                guard let start = readTime(event, ICAL_DTSTART_PROPERTY, floating: feed.windowZone) else {
                    skipped += 1
                    continue
                }
                let occurrence = instance(of: event, uid: uid, at: start, length: length(of: event, from: start))
                if window.contains(occurrence.timing) { found.append(occurrence) }
            }
        }
        for event in masters where !Self.cancelled(event) {
            guard let start = readTime(event, ICAL_DTSTART_PROPERTY, floating: feed.windowZone) else {
                skipped += 1
                continue
            }
            let uid = Self.uid(event)
            found += series(event, uid: uid, start: start, replaced: replaced[uid] ?? [])
        }
        return found
    }

    /// The instances of one series in the window: DTSTART, its RRULEs' and RDATEs', less EXDATEs
    /// and the instances overrides replace.
    private func series(_ event: OpaquePointer, uid: String, start: ReadTime, replaced: Set<InstanceKey>) -> [CalendarOccurrence] {
        let length = length(of: event, from: start)
        let reach: Int = if case .days(let days) = length { days } else { 0 }
        var candidates: [InstanceKey: ReadTime] = [:]
        /// false once past the window's end.
        func offer(_ time: ReadTime) -> Bool {
            if time.isDate {
                let day = time.date?.daysSinceEpoch ?? Int.max
                if day >= window.endDay { return false }
                if day + reach > window.firstDay { candidates[time.key] = time }
            } else {
                let instant = time.instant
                if instant >= window.end { return false }
                if instant >= window.start { candidates[.instant(instant)] = time }
            }
            return candidates.count < ICalFeed.maximumOccurrencesPerEvent
        }
        _ = offer(start)
        forEach(event, ICAL_RRULE_PROPERTY) { property in
            // The rule runs on wall times with no zone: libical 3.0's iterator, given the zone,
            // moves an instance in the spring gap (02:30 to 03:30) and the week after it too. A UTC
            // UNTIL becomes the wall time it is in the event's zone, so the bound stays the same.
            var rule = icalproperty_get_rrule(property)
            if icaltime_is_null_time(rule.until) == 0, rule.until.is_date == 0, icaltime_is_utc(rule.until) != 0, !start.isDate {
                rule.until = icaltime_from_timet_with_zone(time_t(ReadTime(wall: rule.until, zone: feed.utc).instant), 0, start.zone)
            }
            rule.until.zone = nil
            var first = start.wall
            first.zone = nil
            guard let iterator = icalrecur_iterator_new(rule, first) else { return }
            defer { icalrecur_iterator_free(iterator) }
            for _ in 0..<ICalFeed.maximumStepsPerRule {
                let next = icalrecur_iterator_next(iterator)
                if icaltime_is_null_time(next) != 0 { break }
                var wall = next
                wall.is_date = start.wall.is_date
                if !offer(ReadTime(wall: wall, zone: start.zone)) { break }
            }
        }
        forEach(event, ICAL_RDATE_PROPERTY) { property in
            let value = icalproperty_get_rdate(property)
            let time = icaltime_is_null_time(value.time) == 0 ? value.time : value.period.start
            if let rdate = read(property, time, floating: start.zone) { _ = offer(rdate) }
        }
        var excluded = Set<InstanceKey>()
        var excludedDays = Set<Int>()
        forEach(event, ICAL_EXDATE_PROPERTY) { property in
            guard let exdate = read(property, icalproperty_get_exdate(property), floating: start.zone) else { return }
            // A DATE excluded from a timed series takes out that day's instances.
            if exdate.isDate && !start.isDate {
                excludedDays.insert(exdate.date?.daysSinceEpoch ?? Int.min)
            } else {
                excluded.insert(exdate.key)
            }
        }
        var found: [CalendarOccurrence] = []
        for (key, time) in candidates where !excluded.contains(key) && !replaced.contains(key) {
            if !excludedDays.isEmpty, let day = time.date?.daysSinceEpoch, excludedDays.contains(day) { continue }
            let occurrence = instance(of: event, uid: uid, at: time, length: length)
            if window.contains(occurrence.timing) { found.append(occurrence) }
        }
        return found
    }

    private func instance(of event: OpaquePointer, uid: String, at start: ReadTime, length: EventLength) -> CalendarOccurrence {
        let summary = icalcomponent_get_summary(event).map { String(cString: $0) } ?? ""
        let timing: CalendarOccurrence.Timing
        switch length {
        case .days(let days):
            let date = start.date ?? CalendarDate(daysSinceEpoch: 0)
            timing = .allDay(date: date, endDate: date.adding(days: days))
        case .seconds(let seconds):
            let first = start.instant
            timing = .timed(start: first, end: first + seconds)
        case .nominal(let duration):
            let end = ReadTime(wall: icaltime_add(start.wall, duration), zone: start.zone)
            timing = .timed(start: start.instant, end: max(start.instant, end.instant))
        }
        return CalendarOccurrence(uid: uid, summary: summary, timing: timing)
    }

    /// DTEND (exclusive), else DURATION, else one day (all-day) or no time at all (timed).
    private func length(of event: OpaquePointer, from start: ReadTime) -> EventLength {
        let end = readTime(event, ICAL_DTEND_PROPERTY, floating: start.zone)
        let duration = icalcomponent_get_first_property(event, ICAL_DURATION_PROPERTY).map(icalproperty_get_duration)
        if start.isDate {
            if let end, end.isDate, let first = start.date, let last = end.date {
                return .days(max(1, last.daysSinceEpoch - first.daysSinceEpoch))
            }
            if let duration, duration.is_neg == 0 { return .days(max(1, Int(duration.days) + 7 * Int(duration.weeks))) }
            return .days(1)
        }
        if let end, !end.isDate { return .seconds(max(0, end.instant - start.instant)) }
        if let duration, duration.is_neg == 0 { return .nominal(duration) }
        return .seconds(0)
    }

    /// The time of the first property of `kind` (DTSTART, DTEND, RECURRENCE-ID), nil when missing or unreadable.
    private func readTime(_ event: OpaquePointer, _ kind: icalproperty_kind, floating: OpaquePointer) -> ReadTime? {
        guard let property = icalcomponent_get_first_property(event, kind) else { return nil }
        let value: icaltimetype
        switch kind {
        case ICAL_DTSTART_PROPERTY: value = icalproperty_get_dtstart(property)
        case ICAL_DTEND_PROPERTY: value = icalproperty_get_dtend(property)
        default: value = icalproperty_get_recurrenceid(property)
        }
        return read(property, value, floating: floating)
    }

    /// `value` of `property` with its zone: UTC (a Z time), its TZID's, or `floating`.
    private func read(_ property: OpaquePointer, _ value: icaltimetype, floating: OpaquePointer) -> ReadTime? {
        guard icaltime_is_null_time(value) == 0, (1...9999).contains(value.year), (1...12).contains(value.month),
            (1...31).contains(value.day), (0...23).contains(value.hour), (0...59).contains(value.minute),
            (0...60).contains(value.second)
        else { return nil }
        var wall = value
        wall.zone = nil
        if value.is_date != 0 { return ReadTime(wall: wall, zone: feed.windowZone) }
        if icaltime_is_utc(value) != 0 { return ReadTime(wall: wall, zone: feed.utc) }
        if let parameter = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER),
            let tzid = icalparameter_get_tzid(parameter)
        {
            return ReadTime(wall: wall, zone: feed.zone(named: String(cString: tzid)))
        }
        return ReadTime(wall: wall, zone: floating)
    }

    private func forEach(_ event: OpaquePointer, _ kind: icalproperty_kind, _ body: (OpaquePointer) -> Void) {
        var property = icalcomponent_get_first_property(event, kind)
        while let current = property {
            body(current)
            property = icalcomponent_get_next_property(event, kind)
        }
    }

    static func uid(_ event: OpaquePointer) -> String { icalcomponent_get_uid(event).map { String(cString: $0) } ?? "" }

    static func cancelled(_ event: OpaquePointer) -> Bool { icalcomponent_get_status(event) == ICAL_STATUS_CANCELLED }
}

import FoundationEssentials

/// An occurrence of an alarm as the day makes it (SPEC §12, §17): when it rings, or why it keeps
/// quiet, and why it is not at the alarm's own time.
public struct PlannedOccurrence: Sendable, Hashable {
    public var instant: Date
    public var skip: Skip?
    public var move: AlarmMove?
    /// The alarm's own time that day (the 8 hours of `earlier_if` count back from it).
    public var own: Date
}

extension DaysOff {
    /// `alarm` on `day`: a skip (`skip_next`, a vacation, a holiday, a day off, a calendar's day
    /// off, a calendar day without an event and `no_event: skip`), or the ring: at its own time,
    /// moved by its calendar (`lead_min` before the first event, within `earliest`-`latest`), then
    /// earlier by `earlier_if` for the weather of its morning (as decided, or as forecast now
    /// while it is more than 8 hours away).
    public func plan(_ alarm: Alarm, on day: CivilDate, in zone: Zone) -> PlannedOccurrence {
        let own = AlarmSchedule.occurrence(of: alarm.time, on: day, in: zone)
        if let skip = skip(alarm, on: day) { return PlannedOccurrence(instant: own, skip: skip, own: own) }
        if alarm.skipHolidays || alarm.calendar != nil, let title = agenda.dayOff(on: day, keywords: calendarDaysOff) {
            return PlannedOccurrence(instant: own, skip: Skip(reason: .dayOff, title: title), own: own)
        }
        var instant = own
        var move = AlarmMove()
        if let rule = alarm.calendar, let feed = agenda.feeds[rule.feed], feed.known {
            if let first = feed.firstEvent(on: day, keyword: rule.keyword, in: zone) {
                instant = rule.fire(before: first.start, on: day, in: zone)
                move.event = AlarmMove.Event(feed: rule.feed, title: first.title, start: first.start)
            } else if rule.noEvent == .skip {
                return PlannedOccurrence(instant: own, skip: Skip(reason: .noEvent), own: own)
            }
        }
        if let earlierIf = alarm.earlierIf, !earlierIf.isOff {
            let found: (minutes: Int, reason: WakeWeather)?
            if let decided = earlier[alarm.id], decided.day == day {
                found = decided.reason.map { (decided.minutes, $0) }
            } else {
                found = weather.flatMap { earlierIf.earlier(for: $0.morning(at: instant, on: day)) }
            }
            if let found {
                instant = instant.addingTimeInterval(-Double(found.minutes * 60))
                move.earlierBy = found.minutes
                move.reason = found.reason
            }
        }
        return PlannedOccurrence(instant: instant, move: move == AlarmMove() ? nil : move, own: own)
    }

    /// What `earlier_if` says now for `alarm` on `day`, to be kept as its decision.
    public func decideEarlier(_ alarm: Alarm, on day: CivilDate, in zone: Zone) -> EarlierDecision? {
        guard let earlierIf = alarm.earlierIf, !earlierIf.isOff else { return nil }
        var undecided = self
        undecided.earlier[alarm.id] = nil
        let planned = undecided.plan(alarm, on: day, in: zone)
        guard planned.skip == nil else { return nil }
        return EarlierDecision(day: day, minutes: planned.move?.earlierBy ?? 0, reason: planned.move?.reason)
    }
}

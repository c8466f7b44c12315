/// The calendar components of the discovery payload (SPEC §17), from retained `B/calendar`: one
/// sensor per feed of `calendar.feeds`, "Calendar <feed>", a timestamp: the start of the first
/// timed event of today, or of the first of the next days that has one (the seven days
/// `B/calendar` holds, moved on at midnight). Its attributes say which event (`title`, `date`),
/// whether today is a day off (`day_off`, the all-day event's title), how the last refresh went
/// (`ok`, `error`, `fetched_at`) and the seven days as the node has them (`days`). A feed never
/// fetched is unknown; one whose refresh failed shows its stored copy, as its alarms ring by it.
extension HomeAssistantDiscovery {
    /// The component key of a feed's sensor.
    public static func calendarKey(_ feed: String) -> String { "calendar_\(feed)" }

    var calendarComponents: [String: JSONValue] {
        var components: [String: JSONValue] = [:]
        let calendar = topics.state(StateTopic.calendar)
        for feed in calendarFeeds {
            let key = Self.calendarKey(feed)
            // The feed's entry, and its first day with a timed event (`| first` of nothing would log a warning).
            let found = "{% set feeds = value_json.feeds | selectattr('id', 'eq', \(quoted(feed))) | list %}"
                + "{% set feed = feeds[0] if feeds else none %}"
                + "{% set days = (feed.days | selectattr('first') | list) if feed else [] %}{% set day = days[0] if days else none %}"
            let attributes = "{{ {'feed': \(quoted(feed)), 'title': day.first.title if day else none, 'date': day.date if day else none, "
                + "'day_off': feed.days[0].day_off if feed and feed.days else none, 'ok': feed.ok if feed else false, "
                + "'error': feed.error if feed else none, 'fetched_at': feed.fetched_at if feed else none, "
                + "'days': feed.days if feed else []} | tojson }}"
            components[key] = component(
                "sensor", key, named: names.calendar(feed: feed), english: english.calendar(feed: feed), state: calendar,
                [
                    "device_class": "timestamp", "value_template": .string(found + "{{ day.first.start if day else 'None' }}"),
                    "json_attributes_topic": .string(calendar), "json_attributes_template": .string(found + attributes),
                    "icon": "mdi:calendar-clock",
                ])
        }
        return components
    }
}

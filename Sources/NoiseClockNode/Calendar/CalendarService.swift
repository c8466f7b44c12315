import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockHTTP
import NoiseClockHub
import NoiseClockSystem

/// The calendars (SPEC §17): each feed of `calendar.feeds` fetched at most every
/// `calendar.refresh_min` (an address through the node's HTTP client, a file read on a worker),
/// with backoff after a failure; its copy kept under `<state.dir>/calendar/` and expanded by the
/// `noiseclock-calendar` helper (libical) for yesterday to a week ahead. A feed that cannot be
/// fetched keeps its copy and the alarms ring by it; a feed never fetched leaves them at their own
/// time. Retained `B/calendar`, and the `agenda` signal for the alarms and the briefing.
@NodeActor
public final class CalendarService {
    /// SPEC §17 bounds a feed at 20 MB.
    nonisolated static let limits = HTTPLimits(maxBodyBytes: CalendarCopy.maximumBytes, maxRedirects: 5, connectTimeout: .seconds(10), timeout: .seconds(60))
    nonisolated static let firstRetry: TimeInterval = 60
    /// The days expanded: from yesterday (an event just after midnight) to a week ahead.
    nonisolated static let days = 9

    nonisolated let configuration: Configuration.CalendarFeeds
    nonisolated let folder: String
    nonisolated let helper: String
    nonisolated let hub: StateHub
    nonisolated let time: NodeTime
    nonisolated let logger: Logger
    public nonisolated let wakeUp = WakeUp()

    private struct FeedState {
        var nextFetch: Date?
        var failures = 0
        var busy = false
        /// The first day of the window its events were expanded for.
        var expandedFrom: CivilDate?
    }

    private var feeds: [String: FeedState] = [:]
    public private(set) var agenda = Agenda()

    public nonisolated init(
        configuration: Configuration.CalendarFeeds, stateDirectory: String, helper: String? = nil, hub: StateHub, time: NodeTime, logger: Logger
    ) {
        self.configuration = configuration
        self.folder = stateDirectory + "/calendar"
        self.helper = helper ?? CalendarCopy.defaultHelper
        self.hub = hub
        self.time = time
        self.logger = logger
    }

    private var today: CivilDate { LocalTime(time.now(), in: time.zone()).date }

    /// Refreshes `feed` (fetch or read, then expand), on the HTTP client's and a worker's threads.
    private func refresh(_ feed: Configuration.CalendarFeeds.Feed, fetch: Bool) {
        guard feeds[feed.id]?.busy != true else { return }
        feeds[feed.id, default: FeedState()].busy = true
        let from = CivilDate(daysSinceEpoch: today.daysSinceEpoch - 1)
        // The helper reads floating times in an IANA zone; a zone the node took from a POSIX TZ
        // string (`CET-1CEST,M3.5.0,M10.5.0/3`) has no name it knows, and floating times are then
        // read in UTC (timed events with a zone or in UTC, most feeds' all, are exact either way).
        let identifier = time.zone().identifier
        let zone = identifier.contains(",") || identifier.contains("<") ? "UTC" : identifier
        let copy = CalendarCopy(folder: folder, feedID: feed.id, helper: helper)
        NodeActor.task { [self] in
            var body: [UInt8]?, source: String?, fetchError: String?
            if fetch {
                switch feed.location {
                case .file(let path): source = path
                case .url(let url):
                    do throws(HTTPError) {
                        let response = try await HTTPClient().fetch(url, limits: Self.limits)
                        if response.status == 200 { body = response.body } else { fetchError = "the feed's server answered HTTP \(response.status)" }
                    } catch {
                        fetchError = "the feed could not be fetched: \(error.message)"
                    }
                }
            }
            let outcome = await withCheckedContinuation { (done: CheckedContinuation<CalendarCopy.Outcome, Never>) in
                Threads.start(name: "calendar", background: true) { [body, source] in
                    done.resume(returning: copy.update(body: body, source: source, from: from, days: Self.days, zone: zone))
                }
            }
            body = nil
            adopt(feed, outcome, error: fetchError ?? outcome.error, fetched: fetch, from: from)
        }
    }

    private func adopt(_ feed: Configuration.CalendarFeeds.Feed, _ outcome: CalendarCopy.Outcome, error: String?, fetched: Bool, from: CivilDate) {
        var state = feeds[feed.id] ?? FeedState()
        state.busy = false
        state.expandedFrom = from
        let now = time.now()
        if fetched {
            if let error {
                state.failures += 1
                let wait = min(Double(configuration.refreshMinutes * 60), Self.firstRetry * Double(1 << min(state.failures - 1, 10)))
                state.nextFetch = now.addingTimeInterval(wait)
                logger.warning("calendar refresh failed", metadata: ["feed": "\(feed.id)", "error": "\(error)", "retry_s": "\(Int(wait))"])
            } else {
                state.failures = 0
                state.nextFetch = now.addingTimeInterval(Double(configuration.refreshMinutes * 60))
            }
        }
        feeds[feed.id] = state
        var next = agenda
        next.feeds[feed.id] = FeedAgenda(
            id: feed.id, events: outcome.events ?? [], known: outcome.events != nil, fetchedAt: outcome.fetchedAt, error: error)
        if next != agenda {
            agenda = next
            hub.signals.send(.agenda(next))
        }
        publish()
        wakeUp.wake()
    }

    func publish() {
        let zone = time.zone()
        let keywords = time.settings.current.wake.calendarDaysOff
        hub.publish(StateTopic.calendar, agenda.json(today: today, zone: zone, keywords: keywords) { ISOTime.string($0, in: zone) })
    }

    /// The next refresh of any feed, or the next local midnight (the window moves on).
    var nextLook: Date? {
        let now = time.now(), zone = time.zone()
        let tomorrow = CivilDate(daysSinceEpoch: LocalTime(now, in: zone).date.daysSinceEpoch + 1)
        let midnight = AlarmSchedule.occurrence(of: .midnight, on: tomorrow, in: zone)
        return (feeds.values.compactMap(\.nextFetch) + [midnight]).min()
    }
}

/// The refreshes, and the window's move at midnight.
extension CalendarService: Clockwork {
    public func start() async {
        for feed in configuration.feeds { agenda.feeds[feed.id] = FeedAgenda(id: feed.id) }
        // `settings.wake.calendar_days_off` names the days off B/calendar shows.
        hub.signals.subscribe { [weak self] signal in if case .settings = signal { self?.publish() } }
        publish()
    }

    public func look() async -> Date? {
        let now = time.now()
        let from = CivilDate(daysSinceEpoch: today.daysSinceEpoch - 1)
        for feed in configuration.feeds {
            let state = feeds[feed.id] ?? FeedState()
            guard !state.busy else { continue }
            if state.expandedFrom == nil {
                // After a start: the stored copy first, so the alarms follow it while the fetch runs.
                refresh(feed, fetch: false)
            } else if state.nextFetch.map({ now >= $0 }) ?? true {
                refresh(feed, fetch: true)
            } else if state.expandedFrom != from {
                // A new day: the stored copy expanded for the window that moved on.
                refresh(feed, fetch: false)
            }
        }
        return nextLook
    }

    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }
}

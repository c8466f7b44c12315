import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockHTTP
import NoiseClockHub
import NoiseClockSystem

/// The weather (SPEC §17): from Open-Meteo at most every `weather.refresh_min` (on a thread of
/// the HTTP client, never the node's), with backoff after a failure, or from what an automation
/// publishes to `weather.topic`. The last report is kept in `weather.json`, so a restart shows it
/// at once; one older than three hours is shown as stale, never as now. Retained `B/weather`, and
/// the `weather` signal for the briefing.
@NodeActor
public final class WeatherService {
    public nonisolated static let documentName = "weather.json"
    /// Open-Meteo's answer for two days is a few KiB; SPEC §17 bounds JSON at 2 MB.
    nonisolated static let limits = HTTPLimits(maxBodyBytes: 2 << 20, maxRedirects: 3, connectTimeout: .seconds(5), timeout: .seconds(15))
    /// After a failure the next try waits 1, 2, 4… minutes, never longer than the refresh.
    nonisolated static let firstRetry: TimeInterval = 60

    nonisolated let configuration: Configuration.Weather
    nonisolated let hub: StateHub
    nonisolated let time: NodeTime
    nonisolated let logger: Logger
    public nonisolated let wakeUp = WakeUp()
    private var ledger: Ledger<Cache, Void>
    private var nextFetch: Date?
    private var failures = 0
    private var fetching = false
    private var error: String?

    /// What `weather.json` holds.
    struct Cache: Equatable, Sendable {
        var report: WeatherReport?
    }

    public nonisolated static func load(from store: any Store, logger: Logger) -> (report: WeatherReport?, problem: String?) {
        let (report, problem) = store.load(documentName) { try WeatherReport(stored: $0) }
        if let problem { logger.error("the stored weather was unreadable; waiting for the next", metadata: ["problem": "\(problem)"]) }
        return (report, problem)
    }

    public nonisolated init(
        configuration: Configuration.Weather, report: WeatherReport?, writer: StoreWriter, hub: StateHub, time: NodeTime, logger: Logger
    ) {
        self.configuration = configuration
        self.hub = hub
        self.time = time
        self.logger = logger
        ledger = Ledger(Self.documentName, Cache(report: report), writer: writer) { $0.report?.stored ?? .null }
    }

    public var report: WeatherReport? { ledger.current.report }

    /// What an automation published to `weather.topic`.
    public func received(_ payload: [UInt8]) {
        guard configuration.source == .mqtt else { return }
        do throws(OpenMeteo.AnswerError) {
            adopt(try PublishedWeather.report(payload, units: configuration.units, at: time.now(), zone: time.zone()))
        } catch {
            logger.warning("published weather refused", metadata: ["topic": "\(configuration.topic)", "error": "\(error)"])
            self.error = error.reason
            publish()
        }
    }

    private func adopt(_ report: WeatherReport) {
        error = nil
        failures = 0
        if ledger.current.report != report { ledger.adopt(Cache(report: report)) }
        hub.signals.send(.weather(report))
        publish()
        wakeUp.wake()
    }

    /// Asks Open-Meteo, on the HTTP client's thread; the answer comes back to the loop.
    private func fetch() {
        guard let latitude = configuration.latitude, let longitude = configuration.longitude, !fetching else { return }
        fetching = true
        let url = OpenMeteo.url(base: configuration.url, latitude: latitude, longitude: longitude, units: configuration.units)
        NodeActor.task { [self] in
            let result: Result<WeatherReport, OpenMeteo.AnswerError>
            do throws(HTTPError) {
                let response = try await HTTPClient().fetch(url, limits: Self.limits)
                let parsed: Result<WeatherReport, OpenMeteo.AnswerError>
                do throws(OpenMeteo.AnswerError) {
                    parsed = .success(try OpenMeteo.report(response.body, units: configuration.units, at: time.now(), zone: time.zone()))
                } catch {
                    parsed = .failure(error)
                }
                if response.status == 200 {
                    result = parsed
                } else if case .failure(let refused) = parsed, refused.reason.hasPrefix("the weather service refused") {
                    // Open-Meteo says why in its body ({"error":true,"reason":…}) on a 400.
                    result = .failure(refused)
                } else {
                    result = .failure(.init(reason: "the weather service answered HTTP \(response.status)"))
                }
            } catch {
                result = .failure(.init(reason: "the weather service could not be reached: \(error.message)"))
            }
            fetching = false
            let now = time.now()
            switch result {
            case .success(let report):
                nextFetch = now.addingTimeInterval(Double(configuration.refreshMinutes * 60))
                adopt(report)
            case .failure(let failure):
                failures += 1
                let wait = min(Double(configuration.refreshMinutes * 60), Self.firstRetry * Double(1 << min(failures - 1, 10)))
                nextFetch = now.addingTimeInterval(wait)
                error = failure.reason
                logger.warning("weather refresh failed", metadata: ["error": "\(failure.reason)", "retry_s": "\(Int(wait))"])
                publish()
                wakeUp.wake()
            }
        }
    }

    func publish() {
        let now = time.now(), zone = time.zone()
        let value = report.map { $0.json(at: now, error: error) { ISOTime.string($0, in: zone) } }
            ?? WeatherReport.none(source: configuration.source.rawValue, error: error)
        hub.publish(StateTopic.weather, value)
    }

    /// When to look again: the next refresh, or the instant the report turns stale (republished so).
    var nextLook: Date? {
        let stale = report.flatMap { report in
            report.isStale(at: time.now()) ? nil : report.updatedAt.addingTimeInterval(WeatherReport.staleAfter + 1)
        }
        return [nextFetch, stale].compactMap { $0 }.min()
    }
}

/// The refreshes, and the report's turn to stale.
extension WeatherService: Clockwork {
    public func start() async {
        if let report { hub.signals.send(.weather(report)) }
        publish()
    }

    public func look() async -> Date? {
        if configuration.source == .openMeteo, !fetching, nextFetch.map({ time.now() >= $0 }) ?? true {
            // The first look after a restart: a stored report still fresh waits for its refresh.
            if nextFetch == nil, let report, time.now().timeIntervalSince(report.updatedAt) < Double(configuration.refreshMinutes * 60) {
                nextFetch = report.updatedAt.addingTimeInterval(Double(configuration.refreshMinutes * 60))
            } else {
                fetch()
            }
        }
        publish()
        return nextLook
    }

    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }
}

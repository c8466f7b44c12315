// The day's rows (`--only day`, SPEC §7 and §17): two idle nodes side by side on the same broker,
// one plain and one with the weather (Open-Meteo from a local server, asked every 10 minutes, the
// least `weather.refresh_min` allows) and two calendar feeds (one over HTTP, one a file, each
// refreshed every 5 minutes, the least `calendar.refresh_min` allows), counted over the same
// window: their wake-ups (context switches over all threads), the refreshes the servers saw, and
// the anonymous memory once the feeds are expanded.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockTestSupport

/// `--day-idle-seconds N`: the window both nodes are counted over (a calendar refresh every 5 minutes).
let dayIdleSeconds = option("--day-idle-seconds", default: 330)

/// Open-Meteo's answer for three days with hours, in its documented shape.
func benchForecast() -> String {
    let hours = (0..<72).map { "\"2026-12-0\(6 + $0 / 24)T\($0 % 24 < 10 ? "0" : "")\($0 % 24):00\"" }.joined(separator: ",")
    let codes = (0..<72).map { $0 % 5 == 0 ? "71" : "3" }.joined(separator: ",")
    let temperatures = (0..<72).map { "\(Double($0 % 9) - 4)" }.joined(separator: ",")
    return """
        {"latitude":52.52,"longitude":13.419998,"utc_offset_seconds":3600,"timezone":"Europe/Berlin",
         "current":{"time":"2026-12-06T07:00","interval":900,"temperature_2m":-1.4,"apparent_temperature":-5.2,"weather_code":71,"wind_speed_10m":14.8},
         "daily":{"time":["2026-12-06","2026-12-07","2026-12-08"],"weather_code":[73,3,61],"temperature_2m_max":[1.6,3.2,5],
                  "temperature_2m_min":[-3.8,-1.0,2],"precipitation_probability_max":[85,10,60]},
         "hourly":{"time":[\(hours)],"weather_code":[\(codes)],"temperature_2m":[\(temperatures)]}}
        """
}

/// A calendar of `weeks` weekly lessons a weekday and a few all-day holidays, as a school's feed has them.
func benchFeed(name: String, lessons: Int) -> String {
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//NoiseClock bench//EN"]
    for index in 0..<lessons {
        let day = ["MO", "TU", "WE", "TH", "FR"][index % 5]
        lines += [
            "BEGIN:VEVENT", "UID:\(name)-\(index)@bench", "DTSTAMP:20260801T000000Z",
            "DTSTART;TZID=Europe/Berlin:20260907T\(8 + index % 8 < 10 ? "0" : "")\(8 + index % 8)0000",
            "DURATION:PT45M", "RRULE:FREQ=WEEKLY;BYDAY=\(day);UNTIL=20270715T000000Z", "SUMMARY:\(name) lesson \(index)", "END:VEVENT",
        ]
    }
    lines += ["BEGIN:VEVENT", "UID:\(name)-ferien@bench", "DTSTAMP:20260801T000000Z", "DTSTART;VALUE=DATE:20261221",
              "DTEND;VALUE=DATE:20270102", "SUMMARY:Weihnachtsferien", "END:VEVENT", "END:VCALENDAR"]
    return lines.joined(separator: "\r\n") + "\r\n"
}

func dayRows(brokerPort: Int) async throws -> [Row] {
    let directory = try makeTemporaryDirectory("bench-day")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try FileManager.default.createDirectory(atPath: "\(directory)/www/v1", withIntermediateDirectories: true)
    try benchForecast().write(toFile: "\(directory)/www/v1/forecast", atomically: true, encoding: .utf8)
    try benchFeed(name: "work", lessons: 40).write(toFile: "\(directory)/www/work.ics", atomically: true, encoding: .utf8)
    try benchFeed(name: "school", lessons: 30).write(toFile: "\(directory)/school.ics", atomically: true, encoding: .utf8)
    let server = try FileServer(directory: "\(directory)/www")
    let dayConfiguration = """
        display:
          latitude: 52.52
          longitude: 13.41
        weather:
          source: open-meteo
          url: "\(server.url("v1/forecast"))"
          refresh_min: 10
        calendar:
          refresh_min: 5
          feeds:
            - {id: work, url: "\(server.url("work.ics"))"}
            - {id: school, file: "\(directory)/school.ics"}
        """
    let plain = try NodeProcess(port: brokerPort, nodeID: "day-bench-plain", environment: ["NOISECLOCK_AUDIO_DEVICE": "null"])
    let knowing = try NodeProcess(port: brokerPort, nodeID: "day-bench", environment: ["NOISECLOCK_AUDIO_DEVICE": "null"], configuration: dayConfiguration)
    let plainProcess = try plain.start(logLevel: "warning")
    defer { plainProcess.signal(SIGKILL) }
    let process = try knowing.start(logLevel: "warning")
    defer { process.signal(SIGKILL) }
    let probe = try await Probe(port: brokerPort, subscriptions: [knowing.topics.state("calendar"), knowing.topics.state("weather")])
    // Both feeds expanded and the weather in: the node is as it will idle.
    var ready = (calendar: false, weather: false)
    let giveUp = ContinuousClock.now + .seconds(60)
    while !(ready.calendar && ready.weather), ContinuousClock.now < giveUp {
        guard let message = await probe.nextAny(timeout: .seconds(1)), let body = try? JSONValue.parse(message.payload) else { continue }
        if message.topic == knowing.topics.state("weather") { ready.weather = body["condition"] == 71 }
        if message.topic == knowing.topics.state("calendar"), case .array(let feeds)? = body["feeds"] {
            ready.calendar = feeds.count == 2 && feeds.allSatisfy { $0["ok"] == true }
        }
    }
    guard ready.calendar && ready.weather else {
        progress("day: the node did not get its weather and feeds in 60 s (\(ready)); log:\n\(process.log)")
        return [Row(what: "idle with the weather and two calendar feeds", measured: "not ready", baseline: "—", target: "—", met: false)]
    }
    try await Task.sleep(for: .seconds(5))
    let requestsBefore = server.requests.count
    async let withDay = idleWakeUps(process.pid, seconds: dayIdleSeconds)
    async let without = idleWakeUps(plainProcess.pid, seconds: dayIdleSeconds)
    let (day, base) = try await (withDay, without)
    let fetches = server.requests[requestsBefore...]
    let weatherFetches = fetches.filter { $0.hasPrefix("/v1/forecast") }.count, feedFetches = fetches.filter { $0 == "/work.ics" }.count
    let anonymous = procStatus(process.pid, "RssAnon"), plainAnonymous = procStatus(plainProcess.pid, "RssAnon")
    progress("day: \(day.total) switches in \(dayIdleSeconds) s (threads: \(day.threads)); plain \(base.total) (\(base.threads)); fetches \(Array(fetches))")
    // Each refresh costs the loop a few switches and its HTTP and worker threads theirs; the file
    // feed's refresh is the worker's alone. What is allowed over the plain node: the refreshes seen.
    let refreshes = weatherFetches + feedFetches * 2
    let extra = Double(day.total - base.total)
    return [
        Row(
            what: "idle wake-ups with the weather (every 10 min) and two calendar feeds (every 5 min), \(dayIdleSeconds) s, beside a plain node",
            measured: "\(f(day.perMinute, 1))/min vs \(f(base.perMinute, 1))/min (\(weatherFetches) weather + \(feedFetches) feed fetches, the file read as often)",
            baseline: "plain node", target: "the refreshes are the only extra wake-ups",
            met: extra <= Double(max(1, refreshes)) * 40),
        Row(
            what: "RssAnon with the weather and two feeds expanded (70 weekly lessons, holidays)",
            measured: "\(f(anonymous)) MB vs \(f(plainAnonymous)) MB plain", baseline: "plain node", target: "RssAnon ≤ 8 MB",
            met: anonymous <= 8),
    ]
}

import Foundation
import NoiseClockTestSupport

/// The checkout's root, from this file's path.
let checkoutRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// The `noiseclock-calendar` helper built beside the tests.
let calendarHelper: String = {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("noiseclock-calendar").path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    return "\(checkoutRoot)/.build/debug/noiseclock-calendar"
}()

/// What a run of the helper or the reference printed.
struct CalendarRun {
    let code: Int32
    let lines: [String]
    let errors: String
}

/// Runs `program` (the helper, or bash with the reference script) on `feed` written to a file, its
/// stdout and stderr kept apart.
func runCalendar(_ program: [String], feed: Data, from: String, days: Int, zone: String, extra: [String] = []) async throws
    -> CalendarRun
{
    let directory = try makeTemporaryDirectory("calendar")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try feed.write(to: URL(fileURLWithPath: "\(directory)/feed.ics"))
    let command = (program + ["--from", from, "--days", "\(days)", "--zone", zone] + extra + ["\(directory)/feed.ics"])
        .map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
    let (code, _) = try await runTool("/bin/sh", ["-c", "exec \(command) > '\(directory)/out' 2> '\(directory)/err'"])
    let out = (try? String(contentsOfFile: "\(directory)/out", encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: "\(directory)/err", encoding: .utf8)) ?? ""
    return CalendarRun(code: code, lines: out.split(separator: "\n").map(String.init), errors: err)
}

func runHelper(_ feed: String, from: String = "2026-01-01", days: Int = 731, zone: String = "Europe/Berlin") async throws -> CalendarRun {
    try await runCalendar([calendarHelper], feed: Data(feed.utf8), from: from, days: days, zone: zone)
}

func runReference(_ feed: String, from: String = "2026-01-01", days: Int = 731, zone: String = "Europe/Berlin") async throws -> CalendarRun {
    try await runCalendar(["/bin/bash", "\(checkoutRoot)/scripts/calendar-reference.sh"], feed: Data(feed.utf8), from: from, days: days, zone: zone)
}

/// One printed line, decoded for the assertions that look inside.
struct Line: Decodable, Hashable {
    let uid: String
    let summary: String
    let start: Int?
    let end: Int?
    let date: String?
    let end_date: String?
    let all_day: Bool

    init(_ text: String) throws { self = try JSONDecoder().decode(Line.self, from: Data(text.utf8)) }
}

/// Unix seconds of a wall time in a zone (Foundation's zones, a third opinion).
func instant(_ text: String, _ zone: String) -> Int {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: zone)
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return Int(formatter.date(from: text)?.timeIntervalSince1970 ?? -1)
}

// The calendar row (`--only calendar`, issue 48's "Measure"): the 5000-event feed of the reference
// test (`CalendarTestFeed.large`) parsed and expanded over two years by the `noiseclock-calendar`
// helper (libical) and by the reference (scripts/calendar-reference.sh: Python's icalendar and
// recurring_ical_events in their cached venv), `--calendar-runs` times each, one after the other on
// the same file. Each run: its wall time, its peak resident memory (ru_maxrss of wait4, the child
// and the children it reaped: the reference's bash and its Python) and its peak RssAnon (its
// process tree's /proc status, sampled every 2 ms while it runs).
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockTestSupport

/// `--calendar-runs N`: how many times each expands the feed.
let calendarRuns = option("--calendar-runs", default: 5)

/// What one run of a program measured.
struct ExpansionRun {
    var seconds = 0.0
    var maxRSS = 0.0, peakAnonymous = 0.0
    var lines = 0
    var code: Int32 = -1
}

/// Runs `arguments` with stdout to `output`, sampling its tree's RssAnon until it ends.
func measuredRun(_ arguments: [String], output: String) -> ExpansionRun {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let started = Date()
    guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else { return ExpansionRun() }
    var run = ExpansionRun()
    var status: Int32 = 0
    var usage = rusage()
    while true {
        let tree = [pid] + childProcesses(of: pid).flatMap { [$0] + childProcesses(of: $0) }
        let anonymous = tree.map { procStatus($0, "RssAnon") }.filter { !$0.isNaN }.reduce(0, +)
        run.peakAnonymous = max(run.peakAnonymous, anonymous)
        let done = wait4(pid, &status, WNOHANG, &usage)
        if done == pid { break }
        if done < 0 && errno != EINTR { return run }
        usleep(2000)
    }
    run.seconds = Date().timeIntervalSince(started)
    run.maxRSS = Double(usage.ru_maxrss) / 1024
    run.code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    run.lines = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").count
    return run
}

func calendarRows() throws -> [Row] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    let helper = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("noiseclock-calendar").path
    guard FileManager.default.isExecutableFile(atPath: helper) else {
        progress("no \(helper): calendar row skipped")
        return []
    }
    let directory = try makeTemporaryDirectory("bench-calendar")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let feed = "\(directory)/large.ics"
    try Data(CalendarTestFeed.large.utf8).write(to: URL(fileURLWithPath: feed))
    let window = ["--from", "2026-01-01", "--days", "731", "--zone", "Europe/Berlin", feed]
    let install = measuredRun(["/bin/bash", "\(root)/scripts/calendar-reference.sh", "--install"], output: "/dev/null")
    guard install.code == 0 else {
        progress("calendar-reference.sh --install failed: calendar row skipped")
        return []
    }
    var ours: [ExpansionRun] = [], reference: [ExpansionRun] = []
    for round in 1...max(1, calendarRuns) {
        ours.append(measuredRun([helper] + window, output: "\(directory)/ours.jsonl"))
        reference.append(measuredRun(["/bin/bash", "\(root)/scripts/calendar-reference.sh"] + window, output: "\(directory)/reference.jsonl"))
        progress("calendar \(round): noiseclock-calendar \(f(ours.last?.seconds ?? .nan, 3)) s, \(ours.last?.lines ?? 0) lines; "
            + "reference \(f(reference.last?.seconds ?? .nan, 3)) s, \(reference.last?.lines ?? 0) lines")
    }
    let bytes = CalendarTestFeed.large.utf8.count
    let ok = ours.allSatisfy { $0.code == 0 } && reference.allSatisfy { $0.code == 0 } && ours.first?.lines == reference.first?.lines
    func summary(_ runs: [ExpansionRun]) -> String {
        "\(f(percentile(runs.map(\.seconds), 50), 3)) s p50 (max \(f(runs.map(\.seconds).max() ?? .nan, 3))), "
            + "peak RSS \(f(runs.map(\.maxRSS).max() ?? .nan, 1)) MB, peak RssAnon \(f(runs.map(\.peakAnonymous).max() ?? .nan, 1)) MB, "
            + "\(runs.first?.lines ?? 0) occurrences"
    }
    return [Row(
        what: "calendar: the 5000-event feed (\(bytes / 1024) KiB) expanded over two years, \(calendarRuns) runs: wall time, peak memory",
        measured: "noiseclock-calendar (libical): \(summary(ours))",
        baseline: "Python icalendar + recurring_ical_events: \(summary(reference))",
        target: "the same occurrences; faster and smaller than the reference",
        met: ok && percentile(ours.map(\.seconds), 50) < percentile(reference.map(\.seconds), 50)
            && (ours.map(\.maxRSS).max() ?? .infinity) < (reference.map(\.maxRSS).max() ?? 0))]
}

// What a process does over a window, in counts that a shared machine's load moves little:
// task-clock (CPU time, from perf), context switches, wake-ups (voluntary switches: a thread
// blocked, so something woke it later) and, where the CPU lets perf count them, instructions.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockTestSupport

struct Counts {
    var seconds: Double
    /// CPU time in the window, in seconds (perf's task-clock, else /proc's utime + stime).
    var cpu: Double
    var contextSwitches: Double
    /// Voluntary context switches over all the process's threads (from /proc).
    var wakeUps: Double
    /// User-space instructions; nil where perf cannot count them (a VM without the PMU).
    var instructions: Double?

    var percent: Double { cpu / seconds * 100 }

    /// `0.109 % CPU (65.4 ms task-clock), 29.6 switches/s, 12.1 wake-ups/s, 1.2 G instructions`.
    var summary: String {
        "\(f(percent, 3)) % CPU (\(f(cpu * 1000, 1)) ms task-clock in \(f(seconds, 0)) s), \(f(contextSwitches / seconds, 1)) switches/s, "
            + "\(f(wakeUps / seconds, 1)) wake-ups/s, instructions \(instructions.map { f($0 / 1e6, 1) + " M" } ?? "n/a")"
    }

    /// Per event (a command, a message): CPU microseconds, switches, wake-ups and instructions.
    func per(_ events: Double) -> String {
        "\(f(cpu * 1e6 / events, 1)) µs CPU, \(f(contextSwitches / events, 2)) switches, \(f(wakeUps / events, 2)) wake-ups, "
            + "instructions \(instructions.map { f($0 / events, 0) } ?? "n/a")"
    }
}

/// Whether this machine's perf counts `instructions:u` (a VM often does not expose the PMU).
let perfCountsInstructions: Bool = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/perf"),
          let directory = try? makeTemporaryDirectory("perf") else { return false }
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let out = "\(directory)/out.csv"
    guard let probe = try? ChildProcess("/usr/bin/perf", ["stat", "-x", ",", "-o", out, "-e", "instructions:u", "--", "/bin/true"],
                                        logPath: "\(directory)/log") else { return false }
    while probe.isRunning { usleep(10_000) }
    let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    return text.contains("instructions") && !text.contains("<not supported>") && !text.contains("<not counted>")
}()

/// Counts one process from `init` to `stop()`: perf stat attached to it (ended by SIGINT, which
/// makes it write its counts), and its threads' switches from /proc at both ends.
final class CountWindow {
    let pid: pid_t
    private let perf: ChildProcess?
    private let output: String
    private let switches: ThreadSwitches
    private let startCPU: Double
    private let began = ContinuousClock.now

    init(pid: pid_t) throws {
        self.pid = pid
        output = "\(NSTemporaryDirectory())/noiseclock-bench-perf-\(pid)-\(UInt32.random(in: 0...UInt32.max)).csv"
        let events = "task-clock,context-switches" + (perfCountsInstructions ? ",instructions:u" : "")
        perf = FileManager.default.isExecutableFile(atPath: "/usr/bin/perf")
            ? try? ChildProcess("/usr/bin/perf", ["stat", "-x", ",", "-o", output, "-e", events, "-p", "\(pid)"], logPath: output + ".log")
            : nil
        switches = ThreadSwitches(pid: pid)
        switches.sample()
        startCPU = cpuSeconds(pid)
        // perf attaches to each thread when it starts: give it a moment, or the first
        // milliseconds are lost (a fixed cost, the same for the node and its baseline).
        usleep(100_000)
    }

    /// For long windows: samples the threads again, so one that starts and ends inside is seen.
    func sample() { switches.sample() }

    func stop() async -> Counts {
        switches.sample()
        let cpuEnd = cpuSeconds(pid)
        let seconds = ms(ContinuousClock.now - began) / 1000
        var counts = Counts(
            seconds: seconds, cpu: cpuEnd - startCPU, contextSwitches: Double(switches.threads.reduce(0) { $0 + $1.switches }),
            wakeUps: Double(switches.threads.reduce(0) { $0 + $1.counts.voluntary }), instructions: nil)
        if let perf {
            perf.signal(SIGINT)
            _ = await perf.waitForExit(timeout: .seconds(5))
            let lines = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
            func value(_ event: String) -> Double? {
                lines.first { $0.split(separator: ",").dropFirst(2).first.map { $0.hasPrefix(event) } ?? false }
                    .flatMap { Double($0.split(separator: ",").first ?? "") }
            }
            if let clock = value("task-clock") { counts.cpu = clock / 1000 }
            if let switches = value("context-switches") { counts.contextSwitches = switches }
            counts.instructions = value("instructions")
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: output + ".log")
        }
        return counts
    }

    /// Counts `pid` over `seconds`.
    static func over(_ seconds: Int, pid: pid_t) async throws -> Counts {
        let window = try CountWindow(pid: pid)
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            try await Task.sleep(for: min(.seconds(5), end - ContinuousClock.now))
            window.sample()
        }
        return await window.stop()
    }
}

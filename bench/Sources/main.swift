// NoiseClock benchmarks (SPEC §7): the node against a real Mosquitto on loopback, each figure
// printed beside its baseline from the same run. Run with `make bench` (a release build).
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport

let arguments = CommandLine.arguments
func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let n = Int(arguments[index + 1]) else { return value }
    return n
}
let idleSeconds = option("--idle-seconds", default: 60)
let roundTrips = option("--round-trips", default: 2000)
let burstSize = option("--burst", default: 10_000)
let startRuns = option("--start-runs", default: 10)
let noiseSeconds = option("--noise-seconds", default: 60)
let soakSeconds = option("--soak-seconds", default: 600)
let alarmNodes = option("--alarm-nodes", default: 5)
let alarmMinutes = option("--alarm-minutes", default: 4)
let manyNodes = option("--many-nodes", default: 50)
let manyRounds = option("--many-rounds", default: 20)
/// `--fleet-nodes N`: the large fleet of SPEC §7 "many nodes" (1000, a care home or a hotel); 0 leaves it out.
let fleetNodes = option("--fleet-nodes", default: 1000)
/// `--fleet-idle-seconds N`: the window over which the idle fleet's CPU and wake-ups are counted.
let fleetIdleSeconds = option("--fleet-idle-seconds", default: 60)
/// `--wake-seconds N`: the idle wake-ups window (SPEC §7: 5 minutes); 0 leaves the row out.
let wakeSeconds = option("--wake-seconds", default: 300)
/// `--only LIST`: run only these rows (comma-separated names from `benchRows`), e.g. `--only wake-ups`;
/// the broker and the first node always start, and the 10 alarms are always added.
let benchRows = ["round-trip", "idle", "wake-ups", "burst", "start-up", "alarms", "sessions", "many-nodes", "fleet", "noise", "face", "slow-storage", "slow-reads", "sunrise", "bedtime", "flood", "radio", "speech", "calendar", "day"]
let onlyRows: Set<String>? = arguments.firstIndex(of: "--only").map { index in
    guard index + 1 < arguments.count else { return [] }
    return Set(arguments[index + 1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
}
if let onlyRows, onlyRows.isEmpty || !onlyRows.isSubset(of: benchRows) {
    FileHandle.standardError.write(Data("--only takes a comma-separated list of: \(benchRows.joined(separator: ", "))\n".utf8))
    exit(2)
}
func runs(_ row: String) -> Bool { onlyRows?.contains(row) ?? true }
/// `--lnxlink PATH`: the lnxlink executable for the idle row's peer (bench/run.sh passes the one
/// bench/lnxlink.sh made); `--lnxlink none` (or `none:WHY`) leaves it out; without it the bench runs bench/lnxlink.sh itself.
let lnxlinkOption: String? = arguments.firstIndex(of: "--lnxlink").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }

struct Row {
    var what: String
    var measured: String
    var baseline: String
    var target: String
    var met: Bool
}
var rows: [Row] = []

func progress(_ text: String) {
    FileHandle.standardError.write(Data("[bench] \(text)\n".utf8))
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)
    return sorted[max(0, index)]
}

func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
func f(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }

/// A client that reads its messages in line, for precise timing.
final class Probe: @unchecked Sendable {
    let client: MQTTClient
    var iterator: AsyncStream<MQTTMessage>.AsyncIterator

    /// A topic of this probe's own: publishing to it wakes a `next` that waits for nothing.
    let wakeTopic = "bench/wake/\(UUID().uuidString.prefix(8))"

    init(port: Int, subscriptions: [String]) async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        client = try MQTTClient(
            options: MQTTOptions(
                port: port, clientID: "bench-\(UUID().uuidString.prefix(8))", queueLimit: 100_000, inFlightLimit: 1000),
            logger: logger)
        iterator = client.messages.makeAsyncIterator()
        client.subscribe(subscriptions + [wakeTopic])
        client.start()
        for await event in client.events where event == .subscribed { break }
    }

    func next(on topic: String, timeout: Duration = .seconds(10)) async -> MQTTMessage? {
        let deadline = ContinuousClock.now + timeout
        let (client, wake) = (self.client, wakeTopic)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            client.publish(MQTTMessage(topic: wake, payload: []))
        }
        defer { watchdog.cancel() }
        while ContinuousClock.now < deadline {
            guard let message = await iterator.next() else { return nil }
            if message.topic == topic { return message }
        }
        return nil
    }
}

extension Probe {
    /// The next message on any subscribed topic, or nil when `timeout` passes first.
    func nextAny(timeout: Duration) async -> MQTTMessage? {
        let (client, wake) = (self.client, wakeTopic)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            client.publish(MQTTMessage(topic: wake, payload: []))
        }
        defer { watchdog.cancel() }
        guard let message = await iterator.next(), message.topic != wake else { return nil }
        return message
    }
}

/// `Key: value kB` from /proc/PID/status.
func procStatus(_ pid: pid_t, _ key: String) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return .nan }
    for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
        let number = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""
        return (Double(number) ?? .nan) / 1024
    }
    return .nan
}

/// utime + stime of a process, in seconds.
func cpuSeconds(_ pid: pid_t) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return .nan }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // After the command: state is field 3, utime 14, stime 15 (1-based in proc(5)).
    let utime = Double(fields[11]) ?? .nan, stime = Double(fields[12]) ?? .nan
    return (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// A process and its live descendants.
func processTree(_ root: pid_t) -> [pid_t] {
    var children: [pid_t: [pid_t]] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = pid_t(entry), let text = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { continue }
        let fields = text[text.index(after: close)...].split(separator: " ")
        if fields.count > 1, let parent = pid_t(fields[1]) { children[parent, default: []].append(pid) }
    }
    var tree = [root], index = 0
    while index < tree.count {
        tree += children[tree[index]] ?? []
        index += 1
    }
    return tree
}

/// CPU seconds of a process and all its processes: utime + stime + cutime + cstime of each live one
/// (a child that has ended and been reaped is in its parent's cutime + cstime).
func treeCPUSeconds(_ root: pid_t) -> Double {
    processTree(root).reduce(0) { total, pid in
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return total }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14 else { return total }
        let ticks = fields[11...14].reduce(0.0) { $0 + (Double($1) ?? 0) }
        return total + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// VmRSS (or another /proc/PID/status size) of a process and all its live descendants, in MB.
func treeRSS(_ root: pid_t, _ key: String = "VmRSS") -> Double {
    processTree(root).reduce(0) { total, pid in
        let rss = procStatus(pid, key)
        return rss.isNaN ? total : total + rss
    }
}

/// Context switches (voluntary + involuntary) of every thread of a process, from
/// `/proc/PID/task/TID/status`, over a window: `sample()` at its start, then about once a second
/// (so a thread that comes and goes inside the window is still seen), and at its end. A thread
/// present at the first sample counts from its count then, one that appears later from 0; a
/// thread that has exited keeps what it had at its last sample (its switches after that are lost).
final class ThreadSwitches: Sendable {
    /// A thread's voluntary (it blocked: a wake-up follows) and involuntary (it was preempted)
    /// context switches.
    struct Counts: Equatable {
        var voluntary = 0
        var involuntary = 0
        var total: Int { voluntary + involuntary }
        static func - (a: Counts, b: Counts) -> Counts { Counts(voluntary: a.voluntary - b.voluntary, involuntary: a.involuntary - b.involuntary) }
    }

    struct Thread {
        var tid: Int
        var name: String
        var first: Counts
        var last: Counts
        var gone = false
        var counts: Counts { last - first }
        var switches: Int { counts.total }
    }

    let pid: pid_t
    private let state = Mutex<(threads: [Int: Thread], retired: [Thread], samples: Int)>(([:], [], 0))

    init(pid: pid_t) { self.pid = pid }

    /// voluntary_ctxt_switches and nonvoluntary_ctxt_switches of one thread, and its name; nil once it has exited.
    private static func read(_ pid: pid_t, _ tid: Int) -> (name: String, counts: Counts)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/status", encoding: .utf8) else { return nil }
        var counts = Counts(), found = 0
        for line in text.split(separator: "\n")
        where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
            guard let n = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else { return nil }
            if line.hasPrefix("voluntary") { counts.voluntary = n } else { counts.involuntary = n }
            found += 1
        }
        guard found == 2 else { return nil }
        let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        return (name, counts)
    }

    func sample() {
        let tids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).compactMap { Int($0) }
        var seen: [Int: (name: String, counts: Counts)] = [:]
        for tid in tids { seen[tid] = Self.read(pid, tid) }
        state.withLock { state in
            let baseline = state.samples == 0
            state.samples += 1
            for (tid, now) in seen {
                if var thread = state.threads[tid], !thread.gone, now.counts.voluntary >= thread.last.voluntary,
                   now.counts.involuntary >= thread.last.involuntary {
                    thread.last = now.counts
                    thread.name = now.name
                    state.threads[tid] = thread
                } else {
                    // New, or a thread id used again by a new thread: the old one's count is kept apart.
                    if let old = state.threads[tid] { state.retired.append(old) }
                    let first = baseline ? now.counts : Counts()
                    state.threads[tid] = Thread(tid: tid, name: now.name, first: first, last: now.counts)
                }
            }
            for tid in state.threads.keys where seen[tid] == nil { state.threads[tid]?.gone = true }
        }
    }

    /// Every thread seen in the window, the most switches first.
    var threads: [Thread] {
        state.withLock { Array($0.threads.values) + $0.retired }.sorted { ($0.switches, $1.tid) > ($1.switches, $0.tid) }
    }
}

let machine: String = {
    let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
        .first { $0.hasPrefix("model name") }.map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB"
}()

/// The first line of a command's output, or "?".
func firstLine(_ executable: String, _ arguments: [String]) async -> String {
    guard FileManager.default.isExecutableFile(atPath: executable),
          let run = try? await runToEnd(executable, arguments) else { return "?" }
    return run.output.split(separator: "\n").first.map(String.init) ?? "?"
}
let startedAt = Date()
let commit = await firstLine("/usr/bin/git", ["-C", URL(fileURLWithPath: #filePath).deletingLastPathComponent().path, "rev-parse", "--short", "HEAD"])
let kernel = await firstLine("/usr/bin/uname", ["-r"])
print("NoiseClock benchmarks, \(ISO8601DateFormatter().string(from: startedAt)), commit \(commit), on \(machine), Linux \(kernel)")
// A subscriber that takes every node's answer to one `all/cmd` (the fleet rows) receives as many
// QoS 1 messages at once as there are nodes: Mosquitto's default `max_queued_messages 1000` would
// drop the answers of a 1000-node fleet beyond it (docs/scaling.md).
let broker = try await Broker(extraConfiguration: "max_queued_messages 100000")
print("broker: \(await firstLine(Broker.executable, ["-h"])) on 127.0.0.1:\(broker.port)")

// MARK: Round trip: the broker's own publish→receive vs ping→response.

// The node runs with a live battery source: a mocked UPower on a private bus, and the MQTT
// keepalive of SPEC §7's idle rows (30 s, also the default) set explicitly.
let upower = try await UPowerMock()
try await upower.setupDisplayDevice(state: 2, percentage: 80, timeToEmpty: 7200)
let node = try NodeProcess(
    port: broker.port,
    environment: upower.environment.merging(["NOISECLOCK_BATTERY_SOURCE": "upower", "NOISECLOCK_MQTT_KEEPALIVE_S": "30"]) { _, new in new })
let process = try node.start(logLevel: "warning")
let probe = try await Probe(port: broker.port, subscriptions: ["bench/echo", node.topics.response("ping"), node.topics.availability])
_ = await probe.next(on: node.topics.availability)
// Warm up both paths.
for _ in 0..<50 {
    probe.client.publish(MQTTMessage(topic: "bench/echo", payload: [1]))
    _ = await probe.next(on: "bench/echo")
    probe.client.publish(MQTTMessage(topic: node.topics.command("ping"), payload: []))
    _ = await probe.next(on: node.topics.response("ping"))
}
if runs("round-trip") {
    // Five runs of `roundTrips` each, a broker round trip and a ping in turn; the target is the
    // median of the five runs' p99 ratios. The node and the broker are counted over all of it.
    let nodeCounts = try CountWindow(pid: process.pid)
    let brokerCounts = try broker.pid.map { try CountWindow(pid: $0) }
    var ratios: [Double] = [], runSummaries: [String] = []
    var allBroker: [Double] = [], allPing: [Double] = []
    for _ in 0..<5 {
        var brokerTimes: [Double] = [], pingTimes: [Double] = []
        for _ in 0..<roundTrips {
            var start = ContinuousClock.now
            probe.client.publish(MQTTMessage(topic: "bench/echo", payload: [1]))
            _ = await probe.next(on: "bench/echo")
            brokerTimes.append(ms(ContinuousClock.now - start))
            start = ContinuousClock.now
            probe.client.publish(MQTTMessage(topic: node.topics.command("ping"), payload: []))
            _ = await probe.next(on: node.topics.response("ping"))
            pingTimes.append(ms(ContinuousClock.now - start))
        }
        let ratio = percentile(pingTimes, 99) / percentile(brokerTimes, 99)
        ratios.append(ratio)
        runSummaries.append("\(f(percentile(pingTimes, 99), 3))/\(f(percentile(brokerTimes, 99), 3)) = \(f(ratio, 2))")
        allBroker += brokerTimes
        allPing += pingTimes
    }
    let node = await nodeCounts.stop(), brokerSide = await brokerCounts?.stop()
    let ratio = median(ratios)
    rows.append(Row(
        what: "command round trip (ping), 5 runs × \(roundTrips), each beside the broker's own round trip: p99 ratio (median of the runs)",
        measured: "\(f(ratio, 2)) × (runs, ping p99 / broker p99 in ms: \(runSummaries.joined(separator: "; "))); all pings p50 / p99 \(f(percentile(allPing, 50), 3)) / \(f(percentile(allPing, 99), 3)) ms",
        baseline: "broker publish→receive, all runs p50 / p99 \(f(percentile(allBroker, 50), 3)) / \(f(percentile(allBroker, 99), 3)) ms",
        target: "≤ 2.5 × (median of 5 runs)", met: ratio <= 2.5))
    // A ping costs the broker two relays (the command to the node, the answer to the probe) and
    // each broker round trip one: 3 relayed messages per turn.
    let commands = Double(5 * roundTrips), relayed = Double(3 * 5 * roundTrips)
    let nodePerCommand = node.cpu / commands, brokerPerRelay = (brokerSide?.cpu ?? .nan) / relayed
    rows.append(Row(
        what: "cost of a command (the same \(5 * roundTrips) pings): the node per command beside the broker per relayed message",
        measured: "node: \(node.per(commands))",
        baseline: "Mosquitto: \(brokerSide.map { $0.per(relayed) } ?? "not counted") (\(Int(relayed)) messages relayed)",
        target: "≤ 1.5 × the broker's (\(f(1.5 * brokerPerRelay * 1e6, 1)) µs CPU): \(f(nodePerCommand / brokerPerRelay, 2)) ×; ≤ 1 wake-up: \(f(node.wakeUps / commands, 2))",
        met: nodePerCommand <= 1.5 * brokerPerRelay && node.wakeUps / commands <= 1.005))
    progress("round trip done")
}

// MARK: Idle: RSS, RssAnon and CPU over the idle window, with 10 alarms (SPEC §7).

let alarmProbe = try await Probe(port: broker.port, subscriptions: [node.topics.response("alarm/add")])
for hour in 0..<10 {
    alarmProbe.client.publish(MQTTMessage(
        topic: node.topics.command("alarm/add"),
        payload: Array(#"{"time":"\#(10 + hour):15","days":["mon","tue","wed","thu","fri"],"label":"idle \#(hour)"}"#.utf8)))
    _ = await alarmProbe.next(on: node.topics.response("alarm/add"))
}
await alarmProbe.client.stop(timeout: .milliseconds(200))

// The peer: lnxlink with only its battery module, on the same broker and the same mocked UPower,
// idle over the same window (started before it, and measured once it has published its first battery).
let lnxlink: LnxlinkPeer?
var lnxlinkMissing = ""
if runs("idle") {
    do {
        lnxlink = try await LnxlinkPeer.start(brokerPort: broker.port, upower: upower, executable: lnxlinkOption)
    } catch {
        lnxlink = nil
        lnxlinkMissing = "\(error)"
        progress("lnxlink not run: \(error)")
    }
} else {
    lnxlink = nil
}

// The idle window and the wake-ups window start together (the wake-ups one 2 s later, once the
// alarms' answers and state messages are out); the wake-ups row is taken when its own window ends.
let idleCounts = runs("idle") ? try CountWindow(pid: process.pid) : nil
let lnxlinkCounts = lnxlink.flatMap { try? CountWindow(pid: $0.process.pid) }
let lnxlinkCPUStart = lnxlink.map { treeCPUSeconds($0.process.pid) } ?? .nan
let lnxlinkCountStart = lnxlink?.batteryMessages ?? 0
let idleStart = ContinuousClock.now
var wakeWindow: (switches: ThreadSwitches, start: ContinuousClock.Instant, sampler: Task<Void, Never>)?
if runs("wake-ups") && wakeSeconds > 0 {
    try await Task.sleep(until: idleStart + .seconds(2))
    let switches = ThreadSwitches(pid: process.pid)
    switches.sample()
    let sampler = Task.detached {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            switches.sample()
        }
    }
    wakeWindow = (switches, ContinuousClock.now, sampler)
}
if runs("idle") {
    try await Task.sleep(until: idleStart + .seconds(idleSeconds))
    let idleWindow = ms(ContinuousClock.now - idleStart) / 1000
    let counts = await idleCounts?.stop()
    let idleCPU = counts?.percent ?? .nan
    let rssAnon = procStatus(process.pid, "RssAnon"), rss = treeRSS(process.pid)
    rows.append(Row(
        what: "idle node (10 alarms, battery via UPower), \(idleSeconds) s: RssAnon / RSS / CPU",
        measured: "\(f(rssAnon)) MB / \(f(rss)) MB / \(counts?.summary ?? "?")",
        baseline: "—", target: "RssAnon ≤ 8 MB, CPU ≤ 0.1 %", met: rssAnon <= 8 && idleCPU <= 0.1))
    if let lnxlink {
        let lnxlinkCPU = (treeCPUSeconds(lnxlink.process.pid) - lnxlinkCPUStart) / idleWindow * 100
        let lnxlinkMain = await lnxlinkCounts?.stop()
        let lnxlinkRSS = treeRSS(lnxlink.process.pid), lnxlinkAnon = treeRSS(lnxlink.process.pid, "RssAnon")
        let published = lnxlink.batteryMessages - lnxlinkCountStart
        let alive = lnxlink.process.isRunning
        let processCount = processTree(lnxlink.process.pid).count
        rows.append(Row(
            what: "idle beside lnxlink \(LnxlinkPeer.version) (battery module only, same broker and UPower, same \(idleSeconds) s): RSS / CPU, all processes",
            measured: "\(f(rss)) MB (anonymous \(f(rssAnon))) / \(f(idleCPU, 3)) %",
            baseline: "lnxlink \(f(lnxlinkRSS)) MB (anonymous \(f(lnxlinkAnon))) / \(f(lnxlinkCPU, 3)) % (\(processCount) process\(processCount == 1 ? "" : "es"); \(published) battery messages at the broker in the window\(alive ? "" : ", but it exited"); its main process: \(lnxlinkMain?.summary ?? "?"))",
            target: "RSS and CPU below lnxlink's", met: alive && published > 0 && rss < lnxlinkRSS && idleCPU < lnxlinkCPU))
        await lnxlink.stop()
    } else {
        rows.append(Row(
            what: "idle beside lnxlink \(LnxlinkPeer.version) (battery module only, same broker and UPower, same \(idleSeconds) s): RSS / CPU, all processes",
            measured: "\(f(rss)) MB / \(f(idleCPU, 3)) %", baseline: "lnxlink not run: \(lnxlinkMissing)",
            target: "RSS and CPU below lnxlink's", met: false))
    }
    progress("idle done")
}

// MARK: Idle wake-ups: context switches over all the idle node's threads (SPEC §7).

if let wakeWindow {
    try await Task.sleep(until: wakeWindow.start + .seconds(wakeSeconds))
    wakeWindow.sampler.cancel()
    await wakeWindow.sampler.value
    wakeWindow.switches.sample()
    let minutes = ms(ContinuousClock.now - wakeWindow.start) / 60_000
    let threads = wakeWindow.switches.threads
    let total = threads.reduce(0) { $0 + $1.switches }
    let perMinute = Double(total) / minutes
    let gone = threads.filter(\.gone).count
    // Each thread: switches a minute (voluntary + involuntary a minute): a voluntary switch is the
    // thread blocking, so one wake-up; an involuntary one is preemption by another thread or process.
    let perThread = threads.map {
        "\($0.name) [\($0.tid)\($0.gone ? ", exited" : "")] \(f(Double($0.switches) / minutes, 1)) (\(f(Double($0.counts.voluntary) / minutes, 1)) + \(f(Double($0.counts.involuntary) / minutes, 1)))"
    }
    progress("idle wake-ups: \(total) switches in \(f(minutes * 60, 1)) s; per thread, a minute (voluntary + involuntary): \(perThread.joined(separator: "; "))")
    rows.append(Row(
        what: "idle wake-ups (10 alarms, nothing playing, keepalive 30 s), \(wakeSeconds) s: voluntary + involuntary context switches over all threads, a minute",
        measured: "\(f(perMinute, 1)) a minute (\(total) in \(f(minutes * 60, 1)) s, \(threads.count) threads\(gone > 0 ? ", \(gone) exited in the window" : "")); per thread, a minute (voluntary + involuntary): \(perThread.joined(separator: ", "))",
        baseline: "—", target: "≤ 4 a minute (raised from 10)", met: perMinute <= 4))
    progress("wake-ups done")
}

// MARK: Burst: 10,000 commands as fast as possible.

if runs("burst") {
    let rssBefore = procStatus(process.pid, "VmRSS")
    let burstStart = ContinuousClock.now
    for _ in 0..<burstSize {
        probe.client.publish(MQTTMessage(topic: node.topics.command("ping"), payload: []))
    }
    var answered = 0
    // Count answers on a task of its own, so a lost answer ends the wait at the deadline instead of hanging.
    let counter = Task {
        var count = 0
        while count < burstSize, await probe.next(on: node.topics.response("ping")) != nil { count += 1 }
        return count
    }
    let burstDeadline = Task {
        try await Task.sleep(for: .seconds(30))
        counter.cancel()
    }
    answered = await counter.value
    burstDeadline.cancel()
    let burstTook = ms(ContinuousClock.now - burstStart)
    try await Task.sleep(for: .milliseconds(500))
    let rssAfter = procStatus(process.pid, "VmRSS"), rssPeak = procStatus(process.pid, "VmHWM")
    rows.append(Row(
        what: "burst of \(burstSize) pings", measured: "\(answered) answered in \(f(burstTook / 1000)) s; RSS +\(f(rssAfter - rssBefore)) MB (peak \(f(rssPeak)) MB)",
        baseline: "RSS before \(f(rssBefore)) MB", target: "all answered, RSS growth ≤ 10 MB",
        met: answered == burstSize && rssAfter - rssBefore <= 10))
    progress("burst done")
}
process.signal(SIGTERM)
_ = await process.waitForExit(timeout: .seconds(3))

// MARK: Start-up: process start → online and every retained state at a subscriber.

if runs("start-up") {
    var startTimes: [Double] = []
    var incomplete = 0
    for _ in 0..<startRuns {
        let fresh = try NodeProcess(port: broker.port)
        // Every retained state (docs/mqtt.md; `B/battery` only with a battery) and the discovery.
        let discovery = "homeassistant/device/\(fresh.nodeID)/config"
        let watcher = try await Probe(port: broker.port, subscriptions: ["\(fresh.topics.node)/#", discovery])
        let wanted: Set<String> = Set([
            StateTopic.status, StateTopic.settings, StateTopic.clock, StateTopic.alarms, StateTopic.alarmNext, StateTopic.alarmState,
            StateTopic.noise, StateTopic.display, StateTopic.timers, StateTopic.meditation, StateTopic.meditationStats,
            StateTopic.meditations,
        ].map(fresh.topics.state)).union([fresh.topics.availability, discovery])
        var seen: Set<String> = []
        let start = ContinuousClock.now
        let started = try fresh.start(logLevel: "warning")
        let giveUp = ContinuousClock.now + .seconds(10)
        while !wanted.isSubset(of: seen), ContinuousClock.now < giveUp {
            guard let message = await watcher.nextAny(timeout: .seconds(1)) else { continue }
            if wanted.contains(message.topic), message.topic != fresh.topics.availability || message.text == "online" { seen.insert(message.topic) }
        }
        if !wanted.isSubset(of: seen) {
            incomplete += 1
            progress("start-up: never saw \(wanted.subtracting(seen).sorted())")
        }
        startTimes.append(ms(ContinuousClock.now - start))
        progress("start-up run \(startTimes.count): \(f(startTimes.last ?? 0, 1)) ms")
        started.signal(SIGTERM)
        _ = await started.waitForExit(timeout: .seconds(3))
        await watcher.client.stop(timeout: .milliseconds(200))
    }
    let startP50 = percentile(startTimes, 50), startMax = startTimes.max() ?? .nan
    rows.append(Row(
        what: "start-up (\(startRuns)×): process start → online, the 12 retained states and the discovery at a subscriber, p50 / max", measured: "\(f(startP50, 1)) / \(f(startMax, 1)) ms\(incomplete > 0 ? "; \(incomplete) runs never saw them all" : "")",
        baseline: "—", target: "≤ 300 ms", met: startMax <= 300 && incomplete == 0))
}

/// The first whole minute at least `seconds` away, and a formatter of `HH:mm` in `zone` (the nodes' zone) for the alarms.
func alarmMinutes(atLeast seconds: Double, in zone: TimeZone) -> (first: Date, formatter: DateFormatter) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let soon = Date().addingTimeInterval(seconds)
    let formatter = DateFormatter()
    formatter.timeZone = zone
    formatter.dateFormat = "HH:mm"
    return (calendar.dateInterval(of: .minute, for: soon).map { $0.end } ?? soon, formatter)
}

// MARK: Alarm accuracy: `alarm_ringing` at a subscriber minus `fires_at`, real time, several nodes.

if runs("alarms") && alarmNodes > 0 && alarmMinutes > 0 {
    let zone = TimeZone(identifier: "Europe/Berlin") ?? .current
    var nodes: [(NodeProcess, ChildProcess)] = []
    for _ in 0..<alarmNodes {
        let alarmNode = try NodeProcess(port: broker.port, environment: ["NOISECLOCK_AUDIO_DEVICE": "null"])
        nodes.append((alarmNode, try alarmNode.start(logLevel: "warning")))
    }
    let watcher = try await Probe(
        port: broker.port,
        subscriptions: nodes.flatMap { [$0.0.topics.event, $0.0.topics.availability, $0.0.topics.response("alarm/add")] })
    var online = 0
    while online < alarmNodes, let message = await watcher.iterator.next() {
        if message.text == "online" { online += 1 }
    }
    // One-shot alarms at the next whole minutes at least 10 s away, one per node per minute.
    let (firstMinute, formatter) = alarmMinutes(atLeast: 10, in: zone)
    var added = 0
    for minute in 0..<alarmMinutes {
        let time = formatter.string(from: firstMinute.addingTimeInterval(Double(minute * 60)))
        for (alarmNode, _) in nodes {
            watcher.client.publish(MQTTMessage(
                topic: alarmNode.topics.command("alarm/add"), payload: Array(#"{"time":"\#(time)","label":"bench"}"#.utf8)))
            if await watcher.next(on: alarmNode.topics.response("alarm/add")) != nil { added += 1 }
        }
    }
    progress("alarm accuracy: \(added) alarms on \(alarmNodes) nodes, first at \(formatter.string(from: firstMinute))")
    let stamps = try await StampedSubscriber(brokerPort: broker.port, topics: nodes.map { $0.0.topics.event })
    var rang = 0
    let until = ContinuousClock.now + .seconds(Int64(alarmMinutes * 60 + 40))
    var ringingThisMinute = 0
    while rang < added, ContinuousClock.now < until {
        guard let message = await watcher.nextAny(timeout: .seconds(1)) else { continue }
        guard message.topic.hasSuffix("/event"), let event = try? JSONValue.parse(message.payload),
              event.objectValue?["event"]?.stringValue == "alarm_ringing"
        else { continue }
        rang += 1
        ringingThisMinute += 1
        if ringingThisMinute == alarmNodes {
            // Every node rang: one dismiss for all, so the next minute's alarms ring on time.
            watcher.client.publish(MQTTMessage(topic: "noiseclock/all/cmd/dismiss", payload: []))
            ringingThisMinute = 0
        }
    }
    let lateness = StampedSubscriber.lateness(try await stamps.finish(), field: "fires_at") { $0.payload["event"] == "alarm_ringing" }
    for (_, running) in nodes { running.signal(SIGTERM) }
    for (_, running) in nodes { _ = await running.waitForExit(timeout: .seconds(3)) }
    await watcher.client.stop(timeout: .milliseconds(200))
    let p99 = percentile(lateness, 99)
    rows.append(Row(
        what: "alarm accuracy (\(lateness.count) of \(added) alarms, \(alarmNodes) nodes ringing together): received by mosquitto_sub − fires_at, p50 / p99 / max",
        measured: "\(f(percentile(lateness, 50), 1)) / \(f(p99, 1)) / \(f(lateness.max() ?? .nan, 1)) ms",
        baseline: "—", target: "p99 ≤ 10 ms", met: lateness.count == added && added >= 20 && p99 <= 10))
    progress("alarm accuracy done")
}

// MARK: Slow storage (SlowStorageBench.swift)

if runs("slow-storage") && slowStorageMinutes > 0 { rows.append(try await slowStorageRow(brokerPort: broker.port)) }
if runs("slow-reads") && slowStorageMinutes > 0 { rows.append(try await slowReadsRow(brokerPort: broker.port)) }
if runs("sunrise") && sunriseRounds > 0 { rows.append(try await sunriseRow(brokerPort: broker.port)) }
if runs("bedtime") { rows += try await bedtimeRows(brokerPort: broker.port) }
if runs("flood") && floodCount > 0 { rows.append(try await floodRow(brokerPort: broker.port)) }

// MARK: Timers and meditation gongs (SessionBench.swift)

if runs("sessions") && sessionNodes > 0 { rows += try await sessionRows(brokerPort: broker.port) }

// MARK: Many nodes (ManyNodesBench.swift)

if runs("many-nodes") && manyNodes > 0 && manyRounds > 0 {
    rows.append(try await fleetRow(brokerPort: broker.port, brokerPID: broker.pid, size: manyNodes, rounds: manyRounds, targetP99: 100, idleSeconds: 0))
}
if runs("fleet") && fleetNodes > 0 && manyRounds > 0 {
    rows.append(try await fleetRow(brokerPort: broker.port, brokerPID: broker.pid, size: fleetNodes, rounds: manyRounds, targetP99: 250, idleSeconds: fleetIdleSeconds))
}

// MARK: Noise playback to a real-time sink, beside mpg123 playing the same file to the same sink.

func median(_ values: [Double]) -> Double { percentile(values, 50) }

/// The median run's CPU, then each run's, then the median counts a second.
func describe(_ samples: [Counts]) -> String {
    let rate = { (value: (Counts) -> Double) in f(median(samples.map { value($0) / $0.seconds }), 1) }
    let instructions = samples.compactMap(\.instructions)
    return "\(f(median(samples.map(\.percent)), 3)) % (runs \(samples.map { f($0.percent, 3) }.joined(separator: ", "))); "
        + "\(rate { $0.contextSwitches }) switches/s, \(rate { $0.wakeUps }) wake-ups/s, instructions "
        + (instructions.count == samples.count ? "\(rate { ($0.instructions ?? 0) / 1e6 }) M/s" : "n/a")
}

if runs("noise"), noiseSeconds > 0, let pulse = try? await PulseSink() {
    let rain = "heavy-rain-white-noise"
    // bench/Sources/main.swift → the checkout's Resources.
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Resources/sounds/\(rain).mp3").path

    let player = try NodeProcess(port: broker.port, environment: pulse.environment.merging(["NOISECLOCK_AUDIO_DEVICE": "pulse"]) { _, b in b })
    let playing = try player.start(logLevel: "warning")
    let control = try await Probe(port: broker.port, subscriptions: [player.topics.availability, "\(player.topics.node)/response/#"])
    _ = await control.next(on: player.topics.availability)
    func send(_ verb: String, _ payload: String) async -> JSONValue? {
        control.client.publish(MQTTMessage(topic: player.topics.command(verb), payload: Array(payload.utf8)))
        return await control.next(on: player.topics.response(verb)).flatMap { try? JSONValue.parse($0.payload) }
    }
    func baseline() async throws -> Counts {
        let mpg123 = try ChildProcess(
            "/usr/bin/mpg123", ["-q", "-o", "alsa", "-a", "pulse", "--loop", "-1", file], environment: pulse.environment,
            logPath: "\(pulse.runtimeDirectory)/mpg123.log")
        try await Task.sleep(for: .seconds(3))
        let sample = try await CountWindow.over(noiseSeconds, pid: mpg123.pid)
        mpg123.signal(SIGKILL)
        _ = await mpg123.waitForExit(timeout: .seconds(3))
        return sample
    }
    // Three rounds, each the node with one sound, the node with four, then mpg123 alone on the same
    // sink: the baseline is taken in the same run, interleaved, and each row is the median.
    var one: [Counts] = [], four: [Counts] = [], reference: [Counts] = []
    var anonymous = 0.0
    for round in 1...3 {
        _ = await send("noise/play", rain)
        try await Task.sleep(for: .seconds(3))
        one.append(try await CountWindow.over(noiseSeconds, pid: playing.pid))
        for extra in ["pink-noise", "brown-noise", "fan-white-noise-heater"] { _ = await send("noise/add", extra) }
        try await Task.sleep(for: .seconds(3))
        four.append(try await CountWindow.over(noiseSeconds, pid: playing.pid))
        let roundAnonymous = procStatus(playing.pid, "RssAnon")
        anonymous = max(anonymous, roundAnonymous)
        progress("noise round \(round): RssAnon \(f(roundAnonymous, 1)) MB with four sounds")
        _ = await send("noise/stop", "")
        try await Task.sleep(for: .seconds(2))
        reference.append(try await baseline())
        progress("noise round \(round) done")
    }
    let oneSound = median(one.map(\.percent)), fourSounds = median(four.map(\.percent)), mpg123 = median(reference.map(\.percent))
    rows.append(Row(
        what: "one noise sound, \(noiseSeconds) s × 3 interleaved with mpg123, PulseAudio null sink via ALSA `pulse`: CPU (median)",
        measured: describe(one), baseline: "mpg123 --loop -1, same file and sink: \(describe(reference))",
        target: "≤ 0.5 × mpg123 (\(f(0.5 * mpg123, 3)) %): \(f(oneSound / mpg123, 2)) ×", met: oneSound <= 0.5 * mpg123))
    rows.append(Row(
        what: "four noise sounds mixed, \(noiseSeconds) s × 3: CPU (median)", measured: describe(four),
        baseline: "mpg123 \(f(mpg123, 3)) %", target: "≤ 1.0 × mpg123: \(f(fourSounds / mpg123, 2)) ×", met: fourSounds <= mpg123))
    rows.append(Row(
        what: "anonymous memory while four sounds play (RssAnon, the most of 3 rounds)", measured: "\(f(anonymous, 1)) MB", baseline: "—",
        target: "≤ 24 MB", met: anonymous <= 24))

    if soakSeconds > 0 {
        _ = await send("noise/play", rain)
        try await Task.sleep(for: .seconds(soakSeconds))
        let status = await send("ping", "")
        let xruns = status?.objectValue?["data"]?.objectValue?["audio"]?.objectValue?["xruns"]?.intValue ?? -1
        let ok = status?.objectValue?["data"]?.objectValue?["audio"]?.objectValue?["ok"]?.boolValue ?? false
        _ = await send("noise/stop", "")
        rows.append(Row(
            what: "real-time playback, \(soakSeconds) s: underruns", measured: "\(xruns) (device ok: \(ok))", baseline: "—",
            target: "0", met: xruns == 0 && ok))
        progress("soak done")
    }
    playing.signal(SIGTERM)
    _ = await playing.waitForExit(timeout: .seconds(3))
} else if runs("noise"), noiseSeconds > 0 {
    progress("pulseaudio did not start; noise rows skipped")
}

// MARK: The radio (RadioBench.swift)

if runs("radio"), radioSeconds > 0 { rows += try await radioRows(brokerPort: broker.port) }
if runs("radio") { rows += try await radioAlarmRows(brokerPort: broker.port) }

// MARK: Speech (SpeechBench.swift)

if runs("speech") && speechSayings > 0 { rows += try await speechRows(brokerPort: broker.port) }
if runs("day") && dayIdleSeconds > 0 { rows += try await dayRows(brokerPort: broker.port) }

// MARK: The calendar helper (CalendarBench.swift)

if runs("calendar") && calendarRuns > 0 { rows += try calendarRows() }

// MARK: The face (FaceBench.swift)

if runs("face") { rows += try await faceRows(brokerPort: broker.port) }

// MARK: Report

print("took \(f(Date().timeIntervalSince(startedAt) / 60, 1)) minutes")
print("")
print("| what | NoiseClock | baseline (same run) | SPEC §7 target | met |")
print("|---|---|---|---|---|")
for row in rows {
    print("| \(row.what) | \(row.measured) | \(row.baseline) | \(row.target) | \(row.met ? "yes" : "no") |")
}
await probe.client.stop(timeout: .milliseconds(200))
await broker.kill()
// `exit` skips deinitializers: stop the mocked UPower's bus and daemon here, or they outlive the run.
await upower.shutDown()
exit(0)

// The radio alarm rows (`--only radio`, SPEC §7): an alarm with a station from a local Icecast
// rings at a real minute (no faked clock: the node's own scheduling counts); how long after
// `fires_at` the station is heard, and how long after its source is killed mid-alarm the fallback
// station is heard. The node plays into an ALSA file sink, which it paces to real time from the
// moment it opens it: a sample's instant at a card would be the open plus its index, so the
// bench stamps the open (the file's first bytes, polled every 5 ms) and counts samples from it.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport

/// A raw file sink read as the node writes it: the wall-clock instant its first bytes appeared,
/// and its samples since.
final class SinkWatch {
    let path: String
    private(set) var openedAt: Date?
    private(set) var samples: [Int16] = []
    private var handle: FileHandle?
    private var pending: [UInt8] = []

    init(path: String) { self.path = path }

    /// Reads what is new; stamps the open at the first bytes.
    func poll() {
        if handle == nil { handle = FileHandle(forReadingAtPath: path) }
        guard let handle, let data = try? handle.readToEnd(), !data.isEmpty else { return }
        if openedAt == nil { openedAt = Date() }
        pending += data
        let whole = pending.count / 2 * 2
        pending.withUnsafeBytes { raw in samples += raw.bindMemory(to: Int16.self).prefix(whole / 2) }
        pending.removeFirst(whole)
    }

    /// When sample `index` (interleaved) sounds at a card opened when the file's first bytes came.
    func instant(ofSample index: Int) -> Date? { openedAt.map { $0.addingTimeInterval(Double(index / 2) / 44_100) } }

    /// The first 20 ms window from `start` louder than `floor` whose pitch is within `tolerance`
    /// of `hz` (any pitch when nil), polling until `deadline`.
    func first(from start: Int = 0, hz: Double? = nil, tolerance: Double = 30, floor: Double = 1_000, deadline: Date) async -> Int? {
        let window = 882 * 2
        var at = start
        while Date() < deadline {
            poll()
            while at + window <= samples.count {
                let slice = Array(samples[at..<(at + window)])
                if rms(slice, from: 0, to: 1) > floor, hz.map({ abs(pitch(slice) - $0) < tolerance }) ?? true { return at }
                at += window / 2
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }
}

/// `--radio-idle-seconds N`: the idle window after the radio alarms.
let radioIdleSeconds = option("--radio-idle-seconds", default: 120)

func radioAlarmRows(brokerPort: Int, rounds: Int = 2) async throws -> [Row] {
    let icecast = try await Icecast()
    try await icecast.feed("a", .mp3, frequency: 440)
    try await icecast.feed("b", .mp3, frequency: 660)
    let directory = try makeTemporaryDirectory("bench-radio-alarm")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let sink = "\(directory)/out.raw"
    let configuration = """
        radio:
          stations:
            - {id: a, name: "A", url: "\(icecast.url("a"))", fallback: b}
            - {id: b, name: "B", url: "\(icecast.url("b"))"}
        """
    let node = try NodeProcess(
        port: brokerPort, nodeID: "radio-alarm-bench",
        environment: ["NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw", "NOISECLOCK_CLOCK_TIMEZONE": "UTC"], configuration: configuration)
    let process = try node.start(logLevel: "warning")
    defer { process.signal(SIGKILL) }
    let control = try await Probe(port: brokerPort, subscriptions: [node.topics.availability, "\(node.topics.node)/response/#", node.topics.event])
    _ = await control.next(on: node.topics.availability)
    func send(_ verb: String, _ payload: String) async -> JSONValue? {
        control.client.publish(MQTTMessage(topic: node.topics.command(verb), payload: Array(payload.utf8)))
        return await control.next(on: node.topics.response(verb)).flatMap { try? JSONValue.parse($0.payload) }
    }

    var heard: [Double] = [], fallbacks: [Double] = []
    for round in 1...rounds {
        try? FileManager.default.removeItem(atPath: sink)
        // A real minute at least 70 s ahead, so the station is connected within the minute before.
        let now = Date().timeIntervalSince1970
        let firesAt = Date(timeIntervalSince1970: ((now + 70) / 60).rounded(.up) * 60)
        let minute = Int(firesAt.timeIntervalSince1970) / 60
        let time = String(format: "%02d:%02d", (minute / 60) % 24, minute % 60)
        let added = await send("alarm/add", #"{"time":"\#(time)","sound":"radio:a","fade_in_s":0,"volume":100}"#)
        guard let id = added?["data"]?["id"]?.stringValue else {
            progress("radio alarm: alarm/add failed: \(added?.serialized ?? "no answer")")
            return []
        }
        progress("radio alarm round \(round): rings at \(time) UTC (in \(Int(firesAt.timeIntervalSinceNow)) s)")
        try await Task.sleep(for: .seconds(max(0, firesAt.timeIntervalSinceNow - 2)))
        let watch = SinkWatch(path: sink)
        guard let first = await watch.first(hz: 440, deadline: firesAt.addingTimeInterval(15)), let at = watch.instant(ofSample: first) else {
            progress("radio alarm: the station was not heard; log: \(process.log)")
            return []
        }
        heard.append(at.timeIntervalSince(firesAt))
        // Five seconds of the station, then its source is killed.
        _ = await watch.first(from: first + 5 * 88_200, deadline: Date().addingTimeInterval(10))
        let cutAt = Date()
        await icecast.cut("a")
        guard let fallback = await watch.first(from: watch.samples.count, hz: 660, deadline: cutAt.addingTimeInterval(30)),
              let fallbackAt = watch.instant(ofSample: fallback)
        else {
            progress("radio alarm: the fallback station was not heard; log: \(process.log)")
            return []
        }
        fallbacks.append(fallbackAt.timeIntervalSince(cutAt))
        progress("radio alarm round \(round): station heard \(f(heard.last ?? .nan, 3)) s after fires_at, fallback \(f(fallbacks.last ?? .nan, 2)) s after the cut")
        _ = await send("dismiss", "")
        _ = await send("alarm/delete", id)
        try await icecast.feed("a", .mp3, frequency: 440)
        try await Task.sleep(for: .seconds(2))
    }
    // Stations have played and stopped: the node is idle again, with no stream helper left.
    try await Task.sleep(for: .seconds(5))
    let helperLeft = await streamHelper(of: process.pid)
    let switches = ThreadSwitches(pid: process.pid)
    switches.sample()
    let idleStart = ContinuousClock.now
    while ContinuousClock.now - idleStart < .seconds(radioIdleSeconds) {
        try await Task.sleep(for: .seconds(1))
        switches.sample()
    }
    let idleMinutes = Double((ContinuousClock.now - idleStart).components.seconds) / 60
    let idleSwitches = switches.threads.reduce(0) { $0 + $1.switches }
    let perMinute = Double(idleSwitches) / idleMinutes
    progress("radio idle: \(idleSwitches) switches in \(f(idleMinutes * 60, 0)) s; threads: \(switches.threads.map { "\($0.name) \($0.switches)" }.joined(separator: ", "))")
    process.signal(SIGTERM)
    _ = await process.waitForExit(timeout: .seconds(3))
    let worstHeard = heard.max() ?? .nan, worstFallback = fallbacks.max() ?? .nan
    return [
        Row(
            what: "an alarm with a station (local Icecast, MP3, connected ahead), a real minute, fade-in 0: its first sound after `fires_at`, at a card opened when the sink's first bytes came (\(rounds) rounds, the worst)",
            measured: "\(f(worstHeard, 3)) s (rounds \(heard.map { f($0, 3) }.joined(separator: ", ")))", baseline: "—",
            target: "≤ 1 s", met: worstHeard <= 1),
        Row(
            what: "the station's source killed mid-alarm (buffer_s 4, start_timeout_s 10): the fallback station heard after the kill (\(rounds) rounds, the worst)",
            measured: "\(f(worstFallback, 2)) s (rounds \(fallbacks.map { f($0, 2) }.joined(separator: ", ")))", baseline: "—",
            target: "≤ start_timeout_s (10 s)", met: worstFallback <= 10),
        Row(
            what: "idle wake-ups after those alarms' stations played and stopped (no stream helper left: \(helperLeft == nil ? "none" : "one still runs")), \(radioIdleSeconds) s: context switches over all threads, a minute",
            measured: "\(f(perMinute, 1)) a minute (\(idleSwitches) in \(f(idleMinutes * 60, 0)) s)", baseline: "the idle wake-ups row (no station ever played)",
            target: "unchanged: ≤ 4 a minute", met: perMinute <= 4 && helperLeft == nil),
    ]
}

// The speech rows (`--only speech`, SPEC §7 and §16): a node with the built-in voice (espeak-ng in
// its `noiseclock-speak` helper) says a 20-word sentence `--speech-sayings` times without the
// chime and as many with it. Each saying: the time from publishing `say` to its first sound at the
// sink, the CPU of the whole sentence (the node's own, and its helper's: the node reaps the helper,
// so the helper's CPU is in the node's cutime + cstime; the helper is also sampled while it runs,
// to check that), and the anonymous memory of the node and of the helper while it speaks. Around
// them, the idle node's wake-ups before any speech and after. The sink is RadioAlarmBench's: an
// ALSA file sink the node paces to real time, a sample's instant at a card being the open (the
// file's first bytes) plus its index.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport

/// `--speech-sayings N`: how many times the sentence is said without the chime (and again with it).
let speechSayings = option("--speech-sayings", default: 10)
/// `--speech-idle-seconds N`: each idle window, before any speech and after.
let speechIdleSeconds = option("--speech-idle-seconds", default: 60)

/// Twenty words, as an announcement from Home Assistant has them.
let speechSentence = "The washing machine has finished its programme, so please take the laundry out before it starts to smell musty again."

/// A 20 ms window is sound when its RMS is above this (−50 dBFS): the sink's silence is all zeros.
let speechFloor = 100.0

/// The children of a process, from each of its threads' `children` (the node's speech thread starts the helper).
func childProcesses(of pid: pid_t) -> [pid_t] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.flatMap { tid -> [pid_t] in
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

/// A process's own CPU (utime + stime) and that of its reaped children (cutime + cstime), in seconds.
func cpuOwnAndReaped(_ pid: pid_t) -> (own: Double, reaped: Double) {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else {
        return (.nan, .nan)
    }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 14 else { return (.nan, .nan) }
    let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
    func ticks(_ index: Int) -> Double { Double(fields[index]) ?? .nan }
    return ((ticks(11) + ticks(12)) / tick, (ticks(13) + ticks(14)) / tick)
}

/// What one saying measured.
struct Saying: Sendable {
    /// Seconds from publishing `say` to the first sound at the sink; nil when none was heard.
    var firstSound: Double?
    /// Seconds from publishing `say` to the sink's open (its first bytes), and from the open to the first sound.
    var opened: Double?, intoSink: Double?
    /// CPU seconds of the whole sentence: the node's own, and its reaped children's.
    var own = 0.0, reaped = 0.0
    /// The helper's utime + stime at its last sample, summed over the helpers seen.
    var helperSampled = 0.0
    var helpers = 0
    /// The most RssAnon while speaking, in MB.
    var nodeAnonymous = 0.0, helperAnonymous = 0.0
    /// `speech_finished`'s `ms`; nil when it never came (the saying failed).
    var spokenMS: Double?
}

/// The sink's first sound, the helpers and the memory, sampled every 5 ms until cancelled.
func sampleSaying(node: pid_t, sink: String, publishedAt: Date) -> Task<Saying, Never> {
    Task {
        let watch = SinkWatch(path: sink)
        var saying = Saying(), at = 0
        var helperCPU: [pid_t: Double] = [:]
        let window = 882 * 2
        while !Task.isCancelled {
            watch.poll()
            while saying.firstSound == nil, at + window <= watch.samples.count {
                if rms(Array(watch.samples[at..<(at + window)]), from: 0, to: 1) > speechFloor {
                    saying.firstSound = watch.instant(ofSample: at)?.timeIntervalSince(publishedAt)
                    saying.opened = watch.openedAt?.timeIntervalSince(publishedAt)
                    saying.intoSink = Double(at / 2) / 44_100
                }
                at += window / 2
            }
            for helper in childProcesses(of: node) {
                let cpu = cpuSeconds(helper)
                if !cpu.isNaN { helperCPU[helper] = cpu }
                let anonymous = procStatus(helper, "RssAnon")
                if !anonymous.isNaN { saying.helperAnonymous = max(saying.helperAnonymous, anonymous) }
            }
            saying.nodeAnonymous = max(saying.nodeAnonymous, procStatus(node, "RssAnon"))
            try? await Task.sleep(for: .milliseconds(5))
        }
        saying.helpers = helperCPU.count
        saying.helperSampled = helperCPU.values.reduce(0, +)
        return saying
    }
}

/// Context switches over all threads of `pid` over `seconds`, sampled each second: (a minute, in all, the busiest threads).
func idleWakeUps(_ pid: pid_t, seconds: Int) async throws -> (perMinute: Double, total: Int, threads: String) {
    let switches = ThreadSwitches(pid: pid)
    switches.sample()
    let start = ContinuousClock.now
    while ContinuousClock.now - start < .seconds(seconds) {
        try await Task.sleep(for: .seconds(1))
        switches.sample()
    }
    let total = switches.threads.reduce(0) { $0 + $1.switches }
    let minutes = ms(ContinuousClock.now - start) / 60_000
    let busiest = switches.threads.filter { $0.switches > 0 }.map { "\($0.name) \($0.switches)" }.joined(separator: ", ")
    return (Double(total) / minutes, total, busiest)
}

/// The CPU seconds of a program run to its end (the children's rusage around it): espeak-ng's own
/// making the sentence into nothing, or the node's helper alone (through `sh`, the text on its stdin).
func childCPU(_ executable: String, _ arguments: [String]) async throws -> Double? {
    var before = rusage(), after = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &before)
    let run = try await runToEnd(executable, arguments)
    getrusage(RUSAGE_CHILDREN.rawValue, &after)
    guard run.code == 0 else { return nil }
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) - seconds(before.ru_stime)
}

func speechRows(brokerPort: Int) async throws -> [Row] {
    let words = speechSentence.split(separator: " ").count
    let directory = try makeTemporaryDirectory("bench-speech")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let sink = "\(directory)/out.raw"
    // Quiet hours off, so a normal `say` is spoken at any hour the bench runs.
    let configuration = """
        speech:
          quiet_hours:
            start: ""
            end: ""
        """
    let node = try NodeProcess(
        port: brokerPort, nodeID: "speech-bench", environment: ["NOISECLOCK_AUDIO_DEVICE": "file:'\(sink)',raw"], configuration: configuration)
    let process = try node.start(logLevel: "warning")
    defer { process.signal(SIGKILL) }
    let control = try await Probe(port: brokerPort, subscriptions: [node.topics.availability, node.topics.response("say"), node.topics.event])
    _ = await control.next(on: node.topics.availability)

    try await Task.sleep(for: .seconds(5))
    let before = try await idleWakeUps(process.pid, seconds: speechIdleSeconds)
    let anonymousIdle = procStatus(process.pid, "RssAnon")
    progress("speech idle before: \(before.total) switches in \(speechIdleSeconds) s; threads: \(before.threads)")

    var plain: [Saying] = [], chimed: [Saying] = []
    var failures: [String] = []
    for chime in [false, true] {
        for round in 1...max(1, speechSayings) {
            // The device closes when nothing plays; its next open makes the file anew.
            try? FileManager.default.removeItem(atPath: sink)
            let (own0, reaped0) = cpuOwnAndReaped(process.pid)
            let publishedAt = Date()
            let sampler = sampleSaying(node: process.pid, sink: sink, publishedAt: publishedAt)
            let payload = JSONValue.object(["text": .string(speechSentence), "chime": .bool(chime), "language": .string("en")])
            control.client.publish(MQTTMessage(topic: node.topics.command("say"), payload: Array(payload.serialized.utf8)))
            var id: String?, spokenMS: Double?, ended = false
            let giveUp = ContinuousClock.now + .seconds(60)
            while !ended, ContinuousClock.now < giveUp {
                guard let message = await control.nextAny(timeout: .seconds(1)), let body = try? JSONValue.parse(message.payload) else { continue }
                if message.topic == node.topics.response("say") {
                    id = body["data"]?["id"]?.stringValue
                    if id == nil { failures.append("say: \(body.serialized)") }
                    ended = id == nil
                } else if message.topic == node.topics.event, let id, body["id"]?.stringValue == id {
                    switch body["event"]?.stringValue {
                    case "speech_finished":
                        spokenMS = body["ms"]?.numberValue
                        ended = true
                    case "speech_dropped":
                        failures.append("dropped: \(body.serialized)")
                        ended = true
                    default: break
                    }
                }
            }
            sampler.cancel()
            var saying = await sampler.value
            let (own1, reaped1) = cpuOwnAndReaped(process.pid)
            saying.own = own1 - own0
            saying.reaped = reaped1 - reaped0
            saying.spokenMS = spokenMS
            if !childProcesses(of: process.pid).isEmpty { failures.append("a helper still runs after speech_finished") }
            if chime { chimed.append(saying) } else { plain.append(saying) }
            progress(
                "speech \(chime ? "with" : "without") the chime, \(round): first sound \(saying.firstSound.map { f($0 * 1000, 1) } ?? "none") ms "
                    + "(the sink opened after \(saying.opened.map { f($0 * 1000, 1) } ?? "?") ms, the sound \(saying.intoSink.map { f($0 * 1000, 1) } ?? "?") ms into it), "
                    + "CPU node \(f(saying.own * 1000, 0)) + reaped \(f(saying.reaped * 1000, 0)) ms (helper sampled \(f(saying.helperSampled * 1000, 0)) ms, \(saying.helpers) helper), "
                    + "RssAnon node \(f(saying.nodeAnonymous, 1)) MB, helper \(f(saying.helperAnonymous, 1)) MB, spoken \(spokenMS.map { f($0, 0) } ?? "never") ms")
            // The device drains and closes before the next saying opens it again.
            try await Task.sleep(for: .seconds(2))
        }
    }

    try await Task.sleep(for: .seconds(5))
    let after = try await idleWakeUps(process.pid, seconds: speechIdleSeconds)
    let helperLeft = !childProcesses(of: process.pid).isEmpty
    progress("speech idle after: \(after.total) switches in \(speechIdleSeconds) s; threads: \(after.threads)")
    var baseline: [Double] = [], alone: [Double] = []
    let helper = URL(fileURLWithPath: NoiseClockBinary.path).deletingLastPathComponent().appendingPathComponent("noiseclock-speak").path
    for _ in 0..<max(1, speechSayings) {
        if let seconds = try await childCPU("/usr/bin/espeak-ng", ["-v", "en", "-s", "160", "-w", "/dev/null", speechSentence]) { baseline.append(seconds) }
        let script = #"printf %s "$1" | "$0" --voice en --rate 160 > /dev/null"#
        if let seconds = try await childCPU("/bin/sh", ["-c", script, helper, speechSentence]) { alone.append(seconds) }
    }
    process.signal(SIGTERM)
    _ = await process.waitForExit(timeout: .seconds(3))
    await control.client.stop(timeout: .milliseconds(200))
    for failure in failures { progress("speech: \(failure)") }

    func firstSoundRow(_ sayings: [Saying], chime: Bool) -> Row {
        let heard = sayings.compactMap(\.firstSound).map { $0 * 1000 }
        let worst = heard.max() ?? .nan
        return Row(
            what: "`say` of a \(words)-word sentence \(chime ? "with the chime (its first sound is the chime's)" : "without the chime (`\"chime\":false`: the voice itself)"), espeak-ng at rate 160 in `noiseclock-speak`, \(sayings.count)×, to an ALSA file sink paced to real time: first sound after the command is published, at a card opened when the sink's first bytes came, p50 / max",
            measured: "\(f(percentile(heard, 50), 1)) / \(f(worst, 1)) ms (\(heard.map { f($0, 0) }.joined(separator: ", ")))\(heard.count < sayings.count ? "; \(sayings.count - heard.count) never heard" : ""); the sink opened \(f(percentile(sayings.compactMap(\.opened).map { $0 * 1000 }, 50), 1)) ms after the command, the sound \(f(percentile(sayings.compactMap(\.intoSink).map { $0 * 1000 }, 50), 1)) ms into it (p50)",
            baseline: "—", target: "≤ 300 ms", met: heard.count == sayings.count && worst <= 300)
    }
    let all = plain + chimed
    let total = all.map { ($0.own + $0.reaped) * 1000 }, own = all.map { $0.own * 1000 }, reaped = all.map { $0.reaped * 1000 }
    let sampled = all.map { $0.helperSampled * 1000 }, spoken = all.compactMap(\.spokenMS)
    // The helper's CPU at its last sample is at most what its reaping added to the node's cutime + cstime.
    let reapedCoversHelper = zip(reaped, sampled).allSatisfy { $0 + 10 >= $1 }
    func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(1, values.count)) }
    let share = median(zip(all, total).compactMap { saying, cpu in saying.spokenMS.map { cpu / $0 * 100 } })
    return [
        firstSoundRow(plain, chime: false),
        firstSoundRow(chimed, chime: true),
        Row(
            what: "CPU of the whole sentence (\(all.count) sayings, spoken in \(f(median(spoken) / 1000, 1)) s, p50): the node's own (utime + stime) and its `noiseclock-speak` helper's (the node reaps it: its cutime + cstime grew by the helper's CPU sampled while it ran: \(reapedCoversHelper ? "yes" : "no"))",
            measured: "\(f(median(total), 0)) ms (mean \(f(mean(total), 1)), max \(f(total.max() ?? .nan, 0))): node \(f(median(own), 0)) ms (mean \(f(mean(own), 1))) + helper \(f(median(reaped), 0)) ms (mean \(f(mean(reaped), 1)); sampled \(f(median(sampled), 0)) ms); \(f(share, 2)) % of a core over the sentence (clock ticks of 10 ms)",
            baseline: "espeak-ng's own program, the same sentence, voice and rate into `-w /dev/null`: \(f(median(baseline.map { $0 * 1000 }), 1)) ms; the helper alone (sh, the text on its stdin, WAV into /dev/null): \(f(median(alone.map { $0 * 1000 }), 1)) ms (medians of \(baseline.count), rusage)",
            target: "printed", met: reapedCoversHelper && failures.isEmpty && spoken.count == all.count),
        Row(
            what: "anonymous memory while speaking (RssAnon sampled every 5 ms, the most of \(all.count) sayings)",
            measured: "node \(f(all.map(\.nodeAnonymous).max() ?? .nan, 1)) MB (idle before: \(f(anonymousIdle, 1)) MB), helper \(f(all.map(\.helperAnonymous).max() ?? .nan, 1)) MB",
            baseline: "—", target: "printed", met: true),
        Row(
            what: "idle wake-ups before any speech and after the \(all.count) sayings (no helper left: \(helperLeft ? "one still runs" : "none")), \(speechIdleSeconds) s each: context switches over all threads, a minute",
            measured: "after: \(f(after.perMinute, 1)) a minute (\(after.total) in \(speechIdleSeconds) s)",
            baseline: "before any speech: \(f(before.perMinute, 1)) a minute (\(before.total) in \(speechIdleSeconds) s)",
            target: "unchanged: ≤ the before or ≤ 4 a minute", met: !helperLeft && (after.perMinute <= max(before.perMinute, 4))),
    ]
}

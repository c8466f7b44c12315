// The radio rows (`--only radio`, SPEC §7): an MP3 and an AAC stream from a local Icecast (fed by
// ffmpeg), played by the node (its process and its `noiseclock-stream` helper together) and by
// ffplay, each for `--radio-seconds` to the same real-time sink (PulseAudio's null sink through
// ALSA `pulse`), interleaved; and the memory of both processes while a station plays.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport

/// `--radio-seconds N`: each measured window.
let radioSeconds = option("--radio-seconds", default: 60)

/// The node's stream helper, its child.
func streamHelper(of pid: pid_t) async -> pid_t? {
    guard let found = try? await runToEnd("/usr/bin/pgrep", ["-P", "\(pid)", "-f", "noiseclock-stream"]), found.code == 0 else { return nil }
    return found.output.split(separator: "\n").first.flatMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
}

func radioRows(brokerPort: Int) async throws -> [Row] {
    guard let pulse = try? await PulseSink() else {
        progress("pulseaudio did not start; radio rows skipped")
        return []
    }
    let icecast = try await Icecast()
    try await icecast.feed("mp3", .mp3, frequency: 440)
    try await icecast.feed("aac", .aac, frequency: 660)
    let node = try NodeProcess(port: brokerPort, nodeID: "radio-bench", environment: pulse.environment.merging(["NOISECLOCK_AUDIO_DEVICE": "pulse"]) { _, b in b })
    let process = try node.start(logLevel: "warning")
    defer { process.signal(SIGKILL) }
    let control = try await Probe(port: brokerPort, subscriptions: [node.topics.availability, "\(node.topics.node)/response/#"])
    _ = await control.next(on: node.topics.availability)
    func send(_ verb: String, _ payload: String) async -> JSONValue? {
        control.client.publish(MQTTMessage(topic: node.topics.command(verb), payload: Array(payload.utf8)))
        return await control.next(on: node.topics.response(verb)).flatMap { try? JSONValue.parse($0.payload) }
    }

    var rows: [Row] = []
    var memory: [(node: Double, helper: Double)] = []
    for (mount, codec) in [("mp3", "MP3 128 kb/s"), ("aac", "AAC 64 kb/s")] {
        var mine: [Double] = [], peers: [Double] = []
        for round in 1...2 {
            _ = await send("radio/play", #"{"url":"\#(icecast.url(mount))","volume":50}"#)
            try await Task.sleep(for: .seconds(5))
            guard let helper = await streamHelper(of: process.pid) else {
                progress("radio: no stream helper runs; log: \(process.log)")
                return rows
            }
            async let nodeCounts = CountWindow.over(radioSeconds, pid: process.pid)
            async let helperCounts = CountWindow.over(radioSeconds, pid: helper)
            let counted = try await (nodeCounts, helperCounts)
            mine.append(counted.0.percent + counted.1.percent)
            memory.append((procStatus(process.pid, "RssAnon"), procStatus(helper, "RssAnon")))
            _ = await send("radio/stop", "")
            try await Task.sleep(for: .seconds(2))
            let ffplay = try ChildProcess(
                "/usr/bin/ffplay", ["-nodisp", "-loglevel", "error", icecast.url(mount)],
                environment: pulse.environment.merging(["SDL_AUDIODRIVER": "alsa", "AUDIODEV": "pulse"]) { _, b in b },
                logPath: "\(pulse.runtimeDirectory)/ffplay.log")
            try await Task.sleep(for: .seconds(5))
            peers.append(try await CountWindow.over(radioSeconds, pid: ffplay.pid).percent)
            ffplay.signal(SIGKILL)
            _ = await ffplay.waitForExit(timeout: .seconds(3))
            progress("radio \(mount) round \(round): node + helper \(f(mine.last ?? 0, 3)) %, ffplay \(f(peers.last ?? 0, 3)) %")
        }
        // Two runs each: their mean (a median of two would be the lower).
        let ours = mine.reduce(0, +) / Double(mine.count), theirs = peers.reduce(0, +) / Double(peers.count)
        rows.append(Row(
            what: "an \(codec) station from a local Icecast, \(radioSeconds) s × 2 interleaved with ffplay, PulseAudio null sink via ALSA `pulse`: CPU of the node and its stream helper (mean)",
            measured: "\(f(ours, 3)) % (runs \(mine.map { f($0, 3) }.joined(separator: ", ")))",
            baseline: "ffplay -nodisp, same stream and sink: \(f(theirs, 3)) % (runs \(peers.map { f($0, 3) }.joined(separator: ", ")))",
            target: "≤ 0.5 × ffplay (\(f(0.5 * theirs, 3)) %): \(f(ours / theirs, 2)) ×", met: ours <= 0.5 * theirs))
    }
    let most = memory.map { $0.node + $0.helper }.max() ?? .nan
    let worst = memory.max { $0.node + $0.helper < $1.node + $1.helper }
    rows.append(Row(
        what: "anonymous memory while a station plays (RssAnon of the node + its stream helper, the most of 4 windows)",
        measured: "\(f(most, 1)) MB (node \(f(worst?.node ?? .nan, 1)) MB, helper \(f(worst?.helper ?? .nan, 1)) MB)", baseline: "—",
        target: "≤ 24 MB", met: most <= 24))
    process.signal(SIGTERM)
    _ = await process.waitForExit(timeout: .seconds(3))
    return rows
}

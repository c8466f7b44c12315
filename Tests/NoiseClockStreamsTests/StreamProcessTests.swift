import Foundation
import NoiseClockAudio
import NoiseClockTestSupport
import Testing
@testable import NoiseClockStreams

/// Starts the helper for `url` into a new buffer.
private func helper(_ url: String, options: StreamOptions = StreamOptions(), executable: String = StreamProcess.defaultExecutable)
    -> (StreamProcess, StreamEvents)
{
    let events = StreamEvents()
    let process = StreamProcess(url: url, into: StreamBuffer(seconds: 4), options: options, executable: executable) { events.record($0) }
    process.start()
    return (process, events)
}

@Suite("The noiseclock-stream helper, from a real Icecast: FFmpeg outside the node's process", .serialized)
struct StreamProcessTests {
    @Test("an MP3 and an Opus stream come through the helper as their tone, with the events in order; stop ends the helper")
    func decodes() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3, frequency: 440, name: "Helper FM")
        try await icecast.feed("opus", .opus, frequency: 550)
        for (mount, codec, frequency) in [("mp3", "mp3", 440.0), ("opus", "opus", 550.0)] {
            let (process, events) = helper(icecast.url(mount))
            #expect(await eventually { events.info != nil })
            #expect(events.info?.codec == codec)
            if mount == "mp3" { #expect(events.info?.name == "Helper FM") }
            let second = await oneSecond(of: process.buffer)
            #expect(abs(pitch(second) - frequency) < 10, "heard \(pitch(second)) Hz")
            #expect(events.all.firstIndex(of: .sounding).map { $0 > 0 } == true, "events: \(events.all)")
            let pid = process.helperID
            #expect(pid > 0)
            process.stop()
            let ending = await events.ended()
            #expect(ending != nil && ending! == nil, "stopped: \(String(describing: ending))")
            #expect(kill(pid, 0) != 0, "the helper has gone")
            #expect(process.helperID == 0)
        }
    }

    @Test("an ICY title reaches the node through the helper's event lines")
    func title() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3)
        let (process, events) = helper(icecast.url("mp3"))
        defer { process.stop() }
        #expect(await eventually { events.info != nil })
        try await icecast.setTitle("mp3", "Tab\there, and more")
        #expect(await eventually { events.titles.contains("Tab here, and more") }, "titles: \(events.titles)")
    }

    @Test("a helper that dies mid-stream (a decoder crashed by a hostile stream) ends the stream with a reason, after its audio")
    func helperKilled() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3)
        let (process, events) = helper(icecast.url("mp3"))
        #expect(await eventually { process.buffer.bufferedFrames > 0 })
        kill(process.helperID, SIGKILL)
        let ending = await events.ended()
        #expect(ending??.kind == .decode, "ended: \(String(describing: ending))")
        #expect(ending??.message.contains("signal 9") == true, "ended: \(String(describing: ending))")
        #expect(process.buffer.bufferedFrames > 0, "what came before is still played")
    }

    @Test("a helper that cannot be started ends the stream with a reason naming it")
    func missingHelper() async throws {
        let (_, events) = helper("http://127.0.0.1:1/x", executable: "/nonexistent/noiseclock-stream")
        let ending = await events.ended()
        #expect(ending??.kind == .helper)
        #expect(ending??.message.contains("/nonexistent/noiseclock-stream") == true, "ended: \(String(describing: ending))")
    }

    @Test("a helper that refuses its arguments says why, as the stream's end")
    func refusedArguments() async throws {
        // A stand-in that passes an unknown option to the real helper.
        let directory = try makeTemporaryDirectory("helper-args")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let wrapper = "\(directory)/noiseclock-stream"
        try "#!/bin/sh\nexec '\(StreamProcess.defaultExecutable)' --bogus \"$@\"\n".write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper, 0o755)
        let (_, events) = helper("http://127.0.0.1:1/x", executable: wrapper)
        let ending = await events.ended()
        #expect(ending??.kind == .helper)
        #expect(ending??.message.contains("unknown argument --bogus") == true, "ended: \(String(describing: ending))")
    }

    @Test("garbage and a silent server end the helper's stream with not_audio and timeout")
    func hostile() async throws {
        let garbage = try FaultServer(.garbage)
        let (_, first) = helper(garbage.url)
        #expect(await first.ended()??.kind == .notAudio)
        let silent = try FaultServer(.silent)
        let (_, second) = helper(silent.url, options: StreamOptions(openTimeout: .seconds(1)))
        #expect(await second.ended()??.kind == .timeout)
    }

    @Test("every event survives its line: tabs and line breaks in a field become spaces, the rest is kept")
    func lines() {
        let events: [StreamEvent] = [
            .connected(StreamInfo(codec: "aac", bitrateKbps: 64, name: "Ö1 live")), .connected(StreamInfo(codec: "mp3", bitrateKbps: nil, name: nil)),
            .sounding, .title("Artist - Song"), .ended(nil), .ended(StreamError(.notAudio, "not an audio stream (Invalid data)")),
            .ended(StreamError(.helper, "noiseclock-stream: unknown argument --x")),
        ]
        for event in events { #expect(StreamEvent(line: event.line) == event, "\(event.line)") }
        #expect(StreamEvent(line: StreamEvent.title("a\tb\nc").line) == .title("a b c"))
        #expect(StreamEvent(line: "nonsense") == nil)
        #expect(StreamEvent(line: "ended\tnope\tx") == nil)
    }
}

import Foundation
import NoiseClockAudio
import NoiseClockSpeech
import NoiseClockStreams
import NoiseClockTestSupport
import Synchronization
import Testing

/// What a `SpeechProcess` told, in order, and a wait for its end.
private final class SpeechEvents: Sendable {
    private let events = Mutex<[SpeechProcess.Event]>([])
    func record(_ event: SpeechProcess.Event) { events.withLock { $0.append(event) } }
    var all: [SpeechProcess.Event] { events.withLock { $0 } }
    var ending: SpeechError?? {
        for event in all { if case .ended(let error) = event { return .some(error) } }
        return nil
    }
}

/// Says `text` through `arguments` (the engine) and plays the buffer out as the audio thread
/// would; the stereo samples heard and the events.
private func say(
    _ text: String, _ arguments: [String], chime: Bool = false, stall: Duration = .seconds(10), maximum: Double = 180
) async -> (samples: [Int16], events: [SpeechProcess.Event], error: SpeechError?) {
    let events = SpeechEvents()
    let buffer = StreamBuffer(seconds: 4, keepsNewest: false)
    let ended = Mutex(false)
    let source = SpeechSource(buffer: buffer) { ended.withLock { $0 = true } }
    let process = SpeechProcess(
        .init(arguments: arguments, text: text, chime: chime, stallTimeout: stall, maximumSeconds: maximum), into: buffer) { events.record($0) }
    process.start()
    var heard: [Int16] = []
    var period = [Int16](repeating: 0, count: 4410 * 2)
    // The audio thread's side: a period at a time, as fast as the engine makes it.
    while !buffer.isDrained {
        let frames = period.withUnsafeMutableBufferPointer { buffer.read(into: $0) }
        if frames == 0 { try? await Task.sleep(for: .milliseconds(5)) } else { heard += period[0..<(frames * 2)] }
    }
    // Drained: the source says so at once, pauses, then ends.
    #expect(!ended.withLock { $0 })
    var paused = 0
    while true {
        let frames = period.withUnsafeMutableBufferPointer { source.render(into: $0) }
        #expect(ended.withLock { $0 })
        paused += frames
        if frames < 4410 { break }
    }
    #expect(paused == SpeechSource.pauseFrames)
    #expect(period.withUnsafeMutableBufferPointer { source.render(into: $0) } == 0)
    _ = await eventually { events.ending != nil }
    return (heard, events.all, events.ending ?? nil)
}

private let speak = SpeechProcess.defaultHelper

@Suite("SpeechProcess: the engines' processes, their WAV into the buffer, every wait bounded (SPEC §16)", .serialized)
struct SpeechProcessTests {
    @Test("the built-in helper says an English and a German sentence: seconds of speech at 44.1 kHz, in the speech band")
    func helper() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: speak), "\(speak)")
        for (voice, text) in [("en", "It's seven oh two in the morning."), ("de", "Es ist sieben Uhr zwei, Dienstag, der erste Dezember.")] {
            let (samples, events, error) = await say(text, [speak, "--voice", voice, "--rate", "160"])
            #expect(error == nil)
            #expect(events.first == .speaking && events.last == .ended(nil), "\(events)")
            let seconds = Double(samples.count / 2) / 44_100
            #expect(seconds > 1.5 && seconds < 6, "\(voice): \(seconds) s")
            let left = leftChannel(samples)
            #expect(bandRMS(left, low: 300, high: 3400) > totalRMS(left) * 0.5 && totalRMS(left) > 1000, "\(voice)")
        }
    }

    @Test("the chime comes first: its 784 Hz note before the voice")
    func chimeFirst() async {
        let (samples, _, error) = await say("Hello.", [speak, "--voice", "en"], chime: true)
        #expect(error == nil)
        #expect(samples.count > Int(Chime.seconds * 44_100) * 2)
        #expect(abs(pitch(Array(samples[0..<(Int(0.17 * 44_100) * 2)])) - 784) < 15)
    }

    @Test("espeak-ng --stdout as the user's command (through /bin/sh -c, the text on stdin): the same speech")
    func command() async {
        let (samples, _, error) = await say("The washing machine is done.", ["/bin/sh", "-c", "espeak-ng -v en --stdin --stdout"])
        #expect(error == nil)
        let seconds = Double(samples.count / 2) / 44_100
        #expect(seconds > 1.2 && seconds < 5, "\(seconds) s")
    }

    @Test("a command that hangs is killed after the stall time with a clear error, its whole group with it")
    func hangs() async throws {
        let marker = "speech-hang-\(getpid())"
        let started = ContinuousClock.now
        let (samples, _, error) = await say("x", ["/bin/sh", "-c", "sleep 30 # \(marker)"], stall: .seconds(1))
        #expect(error?.reason == "the speech engine sent nothing for 1 s")
        #expect(samples.isEmpty)
        #expect(ContinuousClock.now - started < .seconds(10))
        // `sleep` was a child of the shell: the group's kill took it too.
        #expect(await eventually { (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) != nil && !shellRuns(marker) })
    }

    @Test("garbage, silence or a failure from the command are clear errors", arguments: [
        ("echo 'hello, I am text'", "is not WAV"), ("exit 3", "the speech engine wrote no WAV"),
        ("printf 'RIFF\\0\\0\\0\\0WAVEfmt '; exit 0", "the speech engine wrote no WAV"),
        ("espeak-ng --stdin --stdout | head -c 44; exit 0", "the speech engine wrote no sound"),
        ("espeak-ng --stdin --stdout; exit 4", "the speech engine failed (exit 4)"),
    ])
    func garbage(script: String, says: String) async {
        let (_, _, error) = await say("Hello there.", ["/bin/sh", "-c", script])
        #expect(error?.reason.contains(says) == true, "\(String(describing: error))")
    }

    @Test("a long text is cut at maximumSeconds, and no more than that is heard")
    func cut() async {
        let (samples, _, error) = await say(String(repeating: "One two three four five. ", count: 20), [speak, "--voice", "en"], maximum: 2)
        #expect(error == nil)
        #expect(samples.count / 2 == 2 * 44_100)
    }

    @Test("stop ends the engine at once and closes the buffer")
    func stop() async throws {
        let events = SpeechEvents()
        let buffer = StreamBuffer(seconds: 4, keepsNewest: false)
        let process = SpeechProcess(.init(arguments: ["/bin/sh", "-c", "sleep 30"], text: "x", chime: false), into: buffer) { events.record($0) }
        process.start()
        process.stop()
        #expect(await eventually { events.ending != nil })
        #expect(events.ending == .some(nil), "a stop is no error")
        #expect(buffer.isDrained)
    }

    @Test("an engine that exits without reading its text (a broken pipe) is an error, and the process writing it lives on")
    func brokenPipe() async {
        // More text than a pipe holds, so the write meets the closed pipe whatever the timing.
        let (_, _, error) = await say(String(repeating: "x", count: 200_000), ["/bin/sh", "-c", "exec 0<&-; exit 3"])
        #expect(error?.reason.contains("exit 3") == true || error?.reason.contains("no WAV") == true, "\(String(describing: error))")
    }

    @Test("a program that does not exist is an error naming it")
    func missing() async {
        let (_, _, error) = await say("x", ["/nonexistent/piper"])
        #expect(error?.reason.contains("/nonexistent/piper") == true, "\(String(describing: error))")
    }
}

/// Whether a process whose command line holds `marker` still runs.
private func shellRuns(_ marker: String) -> Bool {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.contains { entry in
        guard Int(entry) != nil, let line = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8) else { return false }
        return line.contains(marker) && !line.contains("swift-testing") && !line.contains("xctest")
    }
}

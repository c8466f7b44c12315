import Foundation
import Testing
@testable import NoiseClockAudio

@Suite("ALSA output")
struct OutputTests {
    enum LoopMode: String, CaseIterable, Sendable {
        /// Every pass decoded afresh (a file the cache's budget cannot take).
        case streaming
        /// The first pass decoded as it plays while the cache decodes ahead, then from memory.
        case ahead
        /// From memory from the first sample (a loop the cache keeps).
        case memory
    }

    @Test("a file played twice through ALSA is its decoded samples twice, sample for sample (gapless)", arguments: LoopMode.allCases)
    func gaplessLoop(mode: LoopMode) async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/tone.mp3"
            // 0.73 s of a 440 Hz tone: the loop point is mid-cycle, where a gap or an overlap shows.
            try await makeMP3(sine(seconds: 0.73), channels: 1, at: file)
            let decoded = try MP3Decoder(path: file).decodeAll()
            let sink = "\(directory)/out.raw"
            let engine = AudioEngine(device: "file:'\(sink)',raw", logger: quietLogger())
            engine.start()
            defer { engine.stop() }
            let source: LoopingDecoderSource
            switch mode {
            case .streaming: source = LoopingDecoderSource(decoder: try MP3Decoder(path: file), loops: 2)
            case .memory: source = LoopingDecoderSource(loop: try #require(DecodedLoop.decode(file, account: nil)), loops: 2)
            case .ahead:
                let decoder = try MP3Decoder(path: file)
                source = LoopingDecoderSource(
                    decoder: decoder, loops: 2, ahead: LoopCache(budget: 1 << 20).decodeAhead(file, frames: decoder.frameCount))
            }
            engine.update { $0.add("tone", source: source, gain: 1, fadeInFrames: 0, immediate: true) }
            let expected = decoded + decoded
            #expect(await eventually { !engine.isPlaying && engine.framesWritten > 0 })
            // The device is drained and closed (the sink file complete) shortly after nothing plays.
            #expect(await eventually { samples(inFile: sink).count >= expected.count })
            let played = samples(inFile: sink)
            #expect(played.count >= expected.count)
            let mismatch = zip(played, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(mismatch == nil, "first difference at sample \(mismatch ?? -1) of \(expected.count); loop point \(decoded.count)")
            // Whatever follows is the silence that completes the last period.
            #expect(played.dropFirst(expected.count).allSatisfy { $0 == 0 })
        }
    }

    @Test("prepare opens the system's device once, with nothing in the mix; an engine with its own configuration is left alone")
    func prepare() async throws {
        let engine = AudioEngine(device: "null", logger: quietLogger())
        engine.start()
        defer { engine.stop() }
        #expect(!engine.hasOpenedDevice)
        engine.prepare()
        #expect(await eventually { engine.hasOpenedDevice })
        #expect(!engine.isPlaying)
        #expect(engine.framesWritten == 0)

        try await withTemporaryDirectory { directory in
            let configuration = "\(directory)/asound.conf"
            try "pcm.nightstand { type null }\n".write(toFile: configuration, atomically: true, encoding: .utf8)
            let own = AudioEngine(device: "nightstand", configurationFile: configuration, logger: quietLogger())
            own.start()
            defer { own.stop() }
            own.prepare()
            try await Task.sleep(for: .milliseconds(300))
            #expect(!own.hasOpenedDevice)
        }
    }

    @Test("a device that cannot be opened is reported, retried, and played to once it works")
    func deviceFailureAndRecovery() async throws {
        try await withTemporaryDirectory { directory in
            // The device is defined in a private ALSA configuration that names no such PCM at first,
            // as when a USB card is not plugged in yet.
            let configuration = "\(directory)/asound.conf"
            let sink = "\(directory)/out.raw"
            try "# nothing yet\n".write(toFile: configuration, atomically: true, encoding: .utf8)
            let statuses = StatusLog()
            let engine = AudioEngine(
                device: "nightstand", configurationFile: configuration, retryInterval: .milliseconds(100),
                logger: quietLogger(), onStatus: { statuses.append($0) })
            engine.start()
            defer { engine.stop() }
            engine.update {
                $0.add("tone", source: BufferSource(samples: sine(seconds: 0.2).flatMap { [$0, $0] }, loops: nil), gain: 1, fadeInFrames: 0)
            }
            #expect(await eventually { engine.status.ok == false })
            #expect(engine.status.error?.contains("nightstand") == true, "\(statuses.all)")
            try """
                pcm.nightstand { type file; slave { pcm { type null } } file "\(sink)" format "raw" }
                """.write(toFile: configuration, atomically: true, encoding: .utf8)
            #expect(await eventually { engine.status.ok && engine.framesWritten > 0 })
            #expect(statuses.all.contains { !$0.ok })
            #expect(statuses.all.last?.ok == true)
            engine.update { $0.fadeOut("tone", overFrames: 0) }
            #expect(await eventually { !engine.isPlaying })
            // The sink is written when the device is drained and closed, right after the mix empties.
            #expect(await eventually { rms(samples(inFile: sink)[...]) > 0 })
            let played = samples(inFile: sink)
            #expect(rms(played[...]) > 1_000)
        }
    }
}

final class StatusLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [AudioStatus] = []
    func append(_ status: AudioStatus) { lock.lock(); items.append(status); lock.unlock() }
    var all: [AudioStatus] { lock.lock(); defer { lock.unlock() }; return items }
}

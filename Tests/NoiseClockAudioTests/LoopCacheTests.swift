import Foundation
import Testing

@testable import NoiseClockAudio

@Suite("Loops decoded once: the loop cache and the move from decoder to memory")
struct LoopCacheTests {
    /// Renders `source` in periods of `period` frames until it ends; `after` runs after the first period.
    private func renderAll(_ source: LoopingDecoderSource, period: Int, after: () -> Void = {}) -> [Int16] {
        var out: [Int16] = []
        var buffer = [Int16](repeating: 0, count: period * 2)
        var first = true
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { source.render(into: $0) }
            if n == 0 { break }
            out += buffer.prefix(n * 2)
            if first { after(); first = false }
        }
        return out
    }

    @Test("a source moves to the copy in memory at the frame it reached, mid-pass, without a sample lost or repeated",
          arguments: [441, 1000, 4096])
    func switchMidPass(period: Int) async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/tone.mp3"
            try await makeMP3(sine(seconds: 0.73), channels: 1, at: file)
            let decoded = try MP3Decoder(path: file).decodeAll()
            let loop = try #require(DecodedLoop.decode(file, account: nil))
            let slot = LoopSlot()
            let source = LoopingDecoderSource(decoder: try MP3Decoder(path: file), loops: 3, ahead: slot)
            var switchedAfterFirstPeriod = false
            let played = renderAll(source, period: period) {
                #expect(!source.isDecoded)
                slot.fill(loop)
                switchedAfterFirstPeriod = true
            }
            #expect(switchedAfterFirstPeriod && source.isDecoded)
            #expect(played.count == decoded.count * 3)
            let mismatch = zip(played, decoded + decoded + decoded).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(mismatch == nil, "first difference at sample \(mismatch ?? -1)")
        }
    }

    @Test("a loop whose channels are equal is kept as mono (half the memory) and played back as the same stereo")
    func monoFolding() {
        let stereo: [Int16] = [1, 1, -5, -5, 300, 300]
        let mono = DecodedLoop(samples: [1, -5, 300], isMono: true, account: nil)
        #expect(mono.isMono && mono.samples == [1, -5, 300] && mono.frames == 3 && mono.bytes == 6)
        let wide = DecodedLoop(samples: [1, 1, -5, 4], isMono: false, account: nil)
        #expect(!wide.isMono && wide.frames == 2)
        let source = LoopingDecoderSource(loop: mono, loops: 2)
        #expect(renderAll(source, period: 2) == stereo + stereo)
    }

    @Test("a loop is decoded in chunks to what the decoder gives: kept mono while the channels agree, widened where they part")
    func chunkedDecode() async throws {
        try await withTemporaryDirectory { directory in
            let mono = "\(directory)/mono.mp3", parting = "\(directory)/parting.mp3"
            try await makeMP3(sine(seconds: 0.6), channels: 1, at: mono)
            // Both channels the same for 0.4 s (several chunks), then the right one a fifth higher.
            let left = sine(seconds: 0.8), right = sine(seconds: 0.4) + sine(seconds: 0.8, frequency: 660).dropFirst(17_640)
            try await makeMP3(zip(left, right).flatMap { [$0, $1] }, channels: 2, at: parting)
            for (file, expectMono) in [(mono, true), (parting, false)] {
                #expect(try MP3Decoder(path: file).isMonoFile == expectMono, "the file's own mode, for the estimate")
                let whole = try MP3Decoder(path: file).decodeAll()
                let loop = try #require(DecodedLoop.decode(file, account: nil))
                #expect(loop.isMono == expectMono, "\(file)")
                #expect(loop.samples == (expectMono ? stride(from: 0, to: whole.count, by: 2).map { whole[$0] } : whole), "\(file)")
                #expect(loop.samples.capacity * 2 < whole.count * 2 * 2, "no stereo copy kept beside a mono loop")
            }
            #expect(DecodedLoop.decode("\(directory)/missing.mp3", account: nil) == nil)
        }
    }

    @Test("decoding ahead fills the slot; while it plays, a second play shares it; once nothing plays it, its memory is gone; a changed file is decoded again")
    func cacheSharesLoops() async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/tone.mp3"
            try await makeMP3(sine(seconds: 0.5), channels: 1, at: file)
            let cache = LoopCache(budget: 1 << 20)
            #expect(cache.loop(file) == nil)
            let frames = try MP3Decoder(path: file).frameCount
            do {
                let slot = try #require(cache.decodeAhead(file, frames: frames, mono: true))
                #expect(await eventually(timeout: backgroundDecodeTimeout) { slot.loop != nil })
                let shared = try #require(cache.loop(file))
                #expect(shared === slot.loop && shared.isMono && shared.frames == frames)
                #expect(cache.memory.current == shared.bytes)
                // The file replaced by a longer one: another key, decoded again.
                try await makeMP3(sine(seconds: 0.9), channels: 1, at: file)
                #expect(cache.loop(file) == nil)
            }
            #expect(await eventually { cache.memory.current == 0 }, "nothing plays it: its memory is gone")
        }
    }

    /// Two half-second mono MP3s of the same length in a temporary folder, and their frame count.
    private func withTwoMonoLoops(_ body: (String, String, Int) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let first = "\(directory)/a.mp3", second = "\(directory)/b.mp3"
            try await makeMP3(sine(seconds: 0.5), channels: 1, at: first)
            try await makeMP3(sine(seconds: 0.5, frequency: 660), channels: 1, at: second)
            try await body(first, second, try MP3Decoder(path: first).frameCount)
        }
    }

    @Test("a loop that would take the loops alive over the budget is not decoded ahead, until one of them stops")
    func budget() async throws {
        try await withTwoMonoLoops { first, second, frames in
            #expect(LoopCache(budget: frames * 4 - 1).decodeAhead(first, frames: frames) == nil, "a stereo estimate")
            let cache = LoopCache(budget: frames * 3)  // one mono loop and a half
            do {
                let playing = try #require(cache.decodeAhead(first, frames: frames, mono: true))
                #expect(await eventually(timeout: backgroundDecodeTimeout) { playing.loop != nil })
                #expect(cache.decodeAhead(second, frames: frames, mono: true) == nil)
                #expect(cache.memory.current == frames * 2)
            }
            #expect(await eventually { cache.memory.current == 0 })
            let next = try #require(cache.decodeAhead(second, frames: frames, mono: true))
            #expect(await eventually(timeout: backgroundDecodeTimeout) { next.loop != nil })
            #expect(cache.loop(first) == nil && cache.loop(second) === next.loop)
        }
    }

    @Test("loops started together count against the budget while they decode: of two that do not fit together, only the first is decoded ahead")
    func budgetWhileDecoding() async throws {
        try await withTwoMonoLoops { first, second, frames in
            let cache = LoopCache(budget: frames * 3)  // one mono loop and a half
            // Back to back: the first is still decoding (nothing of it alive yet) when the second asks.
            let playing = try #require(cache.decodeAhead(first, frames: frames, mono: true))
            #expect(cache.decodeAhead(second, frames: frames, mono: true) == nil)
            #expect(await eventually(timeout: backgroundDecodeTimeout) { playing.loop != nil })
            #expect(cache.memory.current == frames * 2)
            // Held files wait for the budget the same way: nothing more fits beside the first.
            cache.hold([second], for: "alarms")
            try await Task.sleep(for: .milliseconds(300))
            #expect(cache.loop(second) == nil && cache.memory.current == frames * 2)
            withExtendedLifetime(playing) {}
        }
    }

    @Test("held files are decoded ahead and kept while any owner holds them; let go, their memory goes; over the budget, none is kept")
    func hold() async throws {
        try await withTemporaryDirectory { directory in
            let tone = "\(directory)/tone.mp3", gong = "\(directory)/gong.mp3"
            try await makeMP3(sine(seconds: 0.5), channels: 1, at: tone)
            try await makeMP3(sine(seconds: 0.5, frequency: 660), channels: 1, at: gong)
            let frames = try MP3Decoder(path: tone).frameCount
            let cache = LoopCache(budget: 1 << 20)
            cache.hold([tone], for: "alarms")
            #expect(await eventually(timeout: backgroundDecodeTimeout) { cache.loop(tone) != nil }, "decoded ahead with nothing playing it")
            do {
                let kept = try #require(cache.loop(tone))
                #expect(kept.frames == frames && cache.keptPaths == [tone])
            }
            // Kept, not only cached: it stays while nothing plays it.
            try await Task.sleep(for: .milliseconds(50))
            #expect(cache.loop(tone)?.frames == frames)

            cache.hold([tone, gong], for: "meditation")
            #expect(await eventually(timeout: backgroundDecodeTimeout) { cache.keptPaths == [tone, gong] })
            cache.hold([], for: "alarms")
            #expect(cache.keptPaths == [tone, gong], "the meditation still holds the tone")
            cache.hold([], for: "meditation")
            #expect(cache.keptPaths.isEmpty)
            #expect(cache.loop(tone) == nil && cache.memory.current == 0, "let go, nothing plays it: its memory is gone")

            let small = LoopCache(budget: frames * 2 - 1)  // less than one mono loop's estimate
            small.hold([tone], for: "alarms")
            try await Task.sleep(for: .milliseconds(300))
            #expect(small.loop(tone) == nil && small.memory.current == 0)
        }
    }
}

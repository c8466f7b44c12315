import Foundation
import Testing
@testable import NoiseClockAudio

@Suite("MP3 decoding with libmpg123")
struct DecoderTests {
    @Test("a one-second mono file decodes to exactly 44,100 stereo frames, left equal to right")
    func lengthAndFormat() async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/tone.mp3"
            try await makeMP3(sine(seconds: 1.0), channels: 1, at: file)
            let decoder = try MP3Decoder(path: file)
            #expect(decoder.frameCount == 44_100)
            let samples = try decoder.decodeAll()
            #expect(samples.count == 44_100 * 2)
            let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
            let right = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
            #expect(left == right)
            // A 0.5 full-scale sine has an RMS of about 0.354 × 32767.
            let level = rms(samples[...])
            #expect(level > 0.3 * 32767 && level < 0.4 * 32767)
        }
    }

    @Test("a 48 kHz stereo file is resampled by libmpg123 to 44.1 kHz: one second stays about one second")
    func otherRate() async throws {
        try await withTemporaryDirectory { directory in
            let raw = "\(directory)/in.raw", file = "\(directory)/48k.mp3"
            let mono = (0..<48_000).map { Int16(10_000 * sin(2 * .pi * 440 * Double($0) / 48_000)) }
            let stereo = mono.flatMap { [$0, Int16(Double($0) * 0.5)] }
            try stereo.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: raw)) }
            try await lame(["-m", "s", "-b", "128", raw, file], rate: "48")
            let decoder = try MP3Decoder(path: file)
            let samples = try decoder.decodeAll()
            // libmpg123's resampler is crude and its gapless trimming at another rate approximate: within 3 %.
            #expect(abs(samples.count / 2 - 44_100) < 1_323, "\(samples.count / 2) frames")
            let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
            let right = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
            // The right channel was made at half the level of the left: the channels stay apart.
            let ratio = rms(right[...]) / rms(left[...])
            #expect(ratio > 0.4 && ratio < 0.6, "right/left \(ratio)")
        }
    }

    @Test("a file that is not MP3 is an error naming the file")
    func corruptFile() async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/broken.mp3"
            try Data((0..<20_000).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: file))
            #expect {
                _ = try MP3Decoder(path: file)
            } throws: { error in
                (error as? AudioError)?.subject == file
            }
            let missing = "\(directory)/missing.mp3"
            #expect {
                _ = try MP3Decoder(path: missing)
            } throws: { error in
                (error as? AudioError)?.subject == missing
            }
        }
    }

    @Test("rewind starts the file again from its first sample")
    func rewind() async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/tone.mp3"
            try await makeMP3(sine(seconds: 0.5, frequency: 300), channels: 1, at: file)
            let decoder = try MP3Decoder(path: file)
            let first = try decoder.decodeAll()
            let second = try decoder.decodeAll()
            #expect(first == second)
            #expect(first.count == 22_050 * 2)
        }
    }
}

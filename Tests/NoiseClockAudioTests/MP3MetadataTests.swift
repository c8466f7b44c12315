import Foundation
import Testing
@testable import NoiseClockAudio

/// Encodes `seconds` of a 440 Hz tone at `rate` kHz to `path` with lame and the given tag options.
private func makeTaggedMP3(_ path: String, seconds: Double = 2, rate: Int = 44_100, _ tags: [String]) async throws {
    let raw = path + ".raw"
    let count = Int(seconds * Double(rate))
    let samples = (0..<count).map { Int16(8_000 * sin(2 * .pi * 440 * Double($0) / Double(rate))) }
    try samples.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: raw)) }
    defer { try? FileManager.default.removeItem(atPath: raw) }
    try await lame(["-m", "m", "-b", "64"] + tags + [raw, path], rate: "\(Double(rate) / 1000)")
}

private func appendID3v1(_ path: String, title: String, artist: String = "", album: String = "") throws {
    func field(_ text: String, _ width: Int) -> [UInt8] {
        let bytes = text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        return Array(bytes.prefix(width)) + [UInt8](repeating: 0, count: max(0, width - bytes.count))
    }
    let tag = Array("TAG".utf8) + field(title, 30) + field(artist, 30) + field(album, 30) + field("2026", 4)
        + field("", 30) + [255]
    #expect(tag.count == 128)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(tag))
    try handle.close()
}

@Suite("MP3 tags and lengths through libmpg123")
struct MP3MetadataTests {
    @Test("ID3v2 in UTF-16: title, artist and album with non-Latin text; the length is the exact length")
    func id3v2UTF16() async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/a.mp3"
            try await makeTaggedMP3(file, seconds: 3, ["--id3v2-only", "--id3v2-utf16", "--tt", "Körper-Scan 静", "--ta", "Tara Brach", "--tl", "Stille"])
            let metadata = try MP3Metadata.read(path: file)
            #expect(metadata.title == "Körper-Scan 静")
            #expect(metadata.artist == "Tara Brach")
            #expect(metadata.album == "Stille")
            // Gapless: the encoder's delay and padding are not counted.
            #expect(abs(metadata.durationSeconds - 3) < 0.001, "\(metadata.durationSeconds)")
        }
    }

    @Test("ID3v2 in Latin-1 reads as the same text")
    func id3v2Latin1() async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/a.mp3"
            try await makeTaggedMP3(file, ["--id3v2-only", "--id3v2-latin1", "--tt", "Atemübung", "--ta", "Jürgen Ö"])
            let metadata = try MP3Metadata.read(path: file)
            #expect(metadata.title == "Atemübung")
            #expect(metadata.artist == "Jürgen Ö")
        }
    }

    @Test("ID3v1 only: Latin-1 bytes become the right characters, padding is dropped")
    func id3v1Only() async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/a.mp3"
            try await makeTaggedMP3(file, ["--id3v1-only", "--tt", "Körper", "--ta", "Ärtist", "--tl", "Ruhe"])
            let metadata = try MP3Metadata.read(path: file)
            #expect(metadata.title == "Körper")
            #expect(metadata.artist == "Ärtist")
            #expect(metadata.album == "Ruhe")
            #expect(abs(metadata.durationSeconds - 2) < 0.001, "\(metadata.durationSeconds)")
        }
    }

    @Test("ID3v2 wins over ID3v1 field by field; a field ID3v2 lacks comes from ID3v1")
    func id3v2OverID3v1() async throws {
        try await withTemporaryDirectory { directory in
            let file = "\(directory)/a.mp3"
            try await makeTaggedMP3(file, ["--id3v2-only", "--ta", "New artist"])
            try appendID3v1(file, title: "Old title", artist: "Old artist")
            let metadata = try MP3Metadata.read(path: file)
            #expect(metadata.artist == "New artist")
            #expect(metadata.title == "Old title")
        }
    }

    @Test("an untagged file has empty tags and its length; a 48 kHz file is measured at its own rate")
    func untagged() async throws {
        try await withTemporaryDirectory { directory in
            let plain = "\(directory)/plain.mp3", other = "\(directory)/48k.mp3"
            try await makeTaggedMP3(plain, seconds: 2.5, [])
            try await makeTaggedMP3(other, seconds: 1.5, rate: 48_000, [])
            let metadata = try MP3Metadata.read(path: plain)
            #expect(metadata.title.isEmpty && metadata.artist.isEmpty && metadata.album.isEmpty)
            #expect(abs(metadata.durationSeconds - 2.5) < 0.001, "\(metadata.durationSeconds)")
            #expect(abs(try MP3Metadata.read(path: other).durationSeconds - 1.5) < 0.001)
        }
    }

    @Test("a file that is not an MP3, an empty file and a missing file throw an AudioError naming the file")
    func undecodable() async throws {
        try await withTemporaryDirectory { directory in
            let text = "\(directory)/notes.mp3", empty = "\(directory)/empty.mp3", missing = "\(directory)/missing.mp3"
            try Data(String(repeating: "not an mp3 at all\n", count: 200).utf8).write(to: URL(fileURLWithPath: text))
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            for path in [text, empty, missing] {
                #expect {
                    _ = try MP3Metadata.read(path: path)
                } throws: { error in
                    guard let error = error as? AudioError else { return false }
                    return error.subject == path && !error.reason.isEmpty
                }
            }
            let reason = { (path: String) -> String in
                do throws(AudioError) { _ = try MP3Metadata.read(path: path) } catch { return error.reason }
                return ""
            }
            #expect(reason(missing).contains("cannot open"))
            #expect(reason(text).contains("not a playable MP3"))
        }
    }
}

/// Decodes `source` to its end in periods of `frames`, returning the samples and the frames each render gave.
private func drain(_ source: PlayOnceSource, frames: Int = 4_096, limit: Int = 1_000) -> (samples: [Int16], renders: [Int]) {
    var samples: [Int16] = []
    var renders: [Int] = []
    var buffer = [Int16](repeating: 0, count: frames * 2)
    for _ in 0..<limit {
        let n = buffer.withUnsafeMutableBufferPointer { source.render(into: $0) }
        renders.append(n)
        samples += buffer.prefix(n * 2)
        if n < frames { break }
    }
    return (samples, renders)
}

private func render(_ source: PlayOnceSource, frames: Int) -> (count: Int, samples: [Int16]) {
    var buffer = [Int16](repeating: 7, count: frames * 2)
    let n = buffer.withUnsafeMutableBufferPointer { source.render(into: $0) }
    return (n, Array(buffer.prefix(n * 2)))
}

@Suite("PlayOnceSource: a file played once, paused, sought")
struct PlayOnceSourceTests {
    /// A 2 s tone whose level rises over the file, so every position sounds different.
    func makeFile(_ directory: String) async throws -> String {
        let file = "\(directory)/rise.mp3"
        let samples = (0..<88_200).map { Int16(Double($0) / 88_200 * 20_000 * sin(2 * .pi * 440 * Double($0) / 44_100)) }
        try await makeMP3(samples, channels: 1, at: file)
        return file
    }

    @Test("plays the file once, exactly, then gives fewer frames and nothing after")
    func playsOnce() async throws {
        try await withTemporaryDirectory { directory in
            let file = try await makeFile(directory)
            let expected = try MP3Decoder(path: file).decodeAll()
            let source = PlayOnceSource(decoder: try MP3Decoder(path: file))
            #expect(source.lengthFrames == 88_200)
            let (samples, renders) = drain(source)
            #expect(samples == expected)
            #expect(renders.last ?? 0 < 4_096)
            #expect(source.positionFrames == 88_200)
            #expect(source.hasEnded)
            #expect(render(source, frames: 512).count == 0)
        }
    }

    @Test("paused: full periods of silence, the position stays; resumed: it goes on where it was")
    func pause() async throws {
        try await withTemporaryDirectory { directory in
            let file = try await makeFile(directory)
            let expected = try MP3Decoder(path: file).decodeAll()
            let source = PlayOnceSource(decoder: try MP3Decoder(path: file))
            let first = render(source, frames: 10_000)
            #expect(first.samples == Array(expected[0..<20_000]))
            source.isPaused = true
            for _ in 0..<50 {
                let silent = render(source, frames: 4_096)
                #expect(silent.count == 4_096)
                #expect(silent.samples.allSatisfy { $0 == 0 })
            }
            #expect(source.positionFrames == 10_000)
            source.isPaused = false
            let next = render(source, frames: 5_000)
            #expect(next.samples == Array(expected[20_000..<30_000]))
            #expect(source.positionFrames == 15_000)
        }
    }

    @Test("seek moves the position, forward and back, paused or not; past the end the source ends")
    func seek() async throws {
        try await withTemporaryDirectory { directory in
            let file = try await makeFile(directory)
            let expected = try MP3Decoder(path: file).decodeAll()
            let source = PlayOnceSource(decoder: try MP3Decoder(path: file))
            _ = render(source, frames: 4_096)
            try source.seek(toFrame: 66_150)
            #expect(source.positionFrames == 66_150)
            let after = render(source, frames: 4_000)
            #expect(source.positionFrames == 70_150)
            // The decoder's overlap state is primed by the seek: the samples are those of that place.
            #expect(after.samples == Array(expected[132_300..<140_300]))

            source.isPaused = true
            try source.seek(toFrame: 1_000)
            #expect(source.positionFrames == 1_000)
            #expect(render(source, frames: 100).samples.allSatisfy { $0 == 0 })
            source.isPaused = false
            #expect(render(source, frames: 100).samples == Array(expected[2_000..<2_200]))

            try source.seek(toFrame: 10_000_000)
            #expect(source.positionFrames == 88_200)
            #expect(render(source, frames: 100).count == 0)
            #expect(source.hasEnded)
            // Sought back after the end, it plays again.
            try source.seek(toFrame: 0)
            #expect(render(source, frames: 100).samples == Array(expected[0..<200]))
        }
    }

    @Test("in the mixer: a paused source stays in the mix, an ended one is dropped")
    func inTheMixer() async throws {
        try await withTemporaryDirectory { directory in
            let source = PlayOnceSource(decoder: try MP3Decoder(path: try await makeFile(directory)), paused: true)
            var mixer = Mixer()
            mixer.add("meditation", source: source, gain: 1, fadeInFrames: 0, immediate: true)
            var out = [Int16](repeating: 0, count: 8_192)
            for _ in 0..<40 { out.withUnsafeMutableBufferPointer { mixer.render(into: $0) } }
            #expect(mixer.ids == ["meditation"])
            #expect(source.positionFrames == 0)
            source.isPaused = false
            for _ in 0..<40 { out.withUnsafeMutableBufferPointer { mixer.render(into: $0) } }
            #expect(mixer.isEmpty)
            #expect(source.positionFrames == 88_200)
        }
    }
}

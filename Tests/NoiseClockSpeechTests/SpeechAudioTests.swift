import Foundation
import NoiseClockAudio
import NoiseClockEspeak
import NoiseClockSpeech
import NoiseClockTestSupport
import Testing

/// Mono 16-bit samples of a sine at `frequency`.
private func sine(_ frequency: Double, rate: Int, seconds: Double, amplitude: Double = 10_000) -> [Int16] {
    (0..<Int(Double(rate) * seconds)).map { Int16(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

@Suite("Speech's audio: the WAV engines write, the resampler, the chime, libespeak-ng (SPEC §16)")
struct SpeechAudioTests {
    @Test("a streaming WAV header (espeak-ng's placeholder lengths) is read in pieces of any size")
    func wavInPieces() throws {
        let body = sine(440, rate: 22_050, seconds: 0.1)
        let bytes = WAVHeader.streaming(sampleRate: 22_050) + body.flatMap { [UInt8(UInt16(bitPattern: $0) & 0xff), UInt8(UInt16(bitPattern: $0) >> 8)] }
        for piece in [1, 3, 7, 44, 4096] {
            var reader = WAVStream.Reader()
            var samples: [Int16] = []
            var index = 0
            while index < bytes.count {
                samples += try reader.feed(bytes[index..<min(bytes.count, index + piece)])
                index += piece
            }
            #expect(reader.format == WAVStream.Format(sampleRate: 22_050, channels: 1))
            #expect(samples == body, "pieces of \(piece) bytes")
        }
    }

    @Test("a WAV with its data length known stops there; one with a LIST chunk first is read")
    func wavKnownLength() throws {
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24 & 0xff)] }
        var header = WAVHeader.streaming(sampleRate: 16_000, channels: 2)
        // A LIST chunk between fmt and data, as Piper's and sox's files can have; data of 8 bytes.
        let list = Array("LIST".utf8) + le32(3) + [1, 2, 3, 0]
        header.insert(contentsOf: list, at: 36)
        header.replaceSubrange((header.count - 4)..., with: le32(8))
        var reader = WAVStream.Reader()
        let samples = try reader.feed(header + [1, 0, 2, 0, 3, 0, 4, 0, 9, 9, 9, 9])
        #expect(reader.format == WAVStream.Format(sampleRate: 16_000, channels: 2))
        #expect(samples == [1, 2, 3, 4])
        #expect(reader.isComplete)
    }

    @Test("what is not 16-bit PCM WAV is refused, saying what it is", arguments: [
        (Array("hello there, I am not a WAV".utf8), "not WAV"),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8), "not WAVE"),
    ])
    func garbage(bytes: [UInt8], says: String) {
        var reader = WAVStream.Reader()
        #expect { _ = try reader.feed(bytes) } throws: { ($0 as? SpeechError)?.reason.contains(says) == true }
    }

    @Test("8-bit or float WAV is refused naming its format")
    func wrongFormat() {
        var header = WAVHeader.streaming(sampleRate: 22_050)
        header[34] = 8
        var reader = WAVStream.Reader()
        #expect { _ = try reader.feed(header) } throws: { ($0 as? SpeechError)?.reason.contains("16-bit PCM") == true }
    }

    @Test("the resampler takes 22,050 and 16,000 Hz to 44.1 kHz stereo: the tone's pitch and level kept, no image above")
    func resampler() {
        for rate in [22_050, 16_000, 48_000] {
            var resampler = Resampler(inputRate: rate, channels: 1)
            var output: [Int16] = []
            let input = sine(1000, rate: rate, seconds: 1)
            // In pieces, as a pipe delivers them.
            for start in stride(from: 0, to: input.count, by: 1000) { output += resampler.process(Array(input[start..<min(input.count, start + 1000)])) }
            output += resampler.finish()
            let frames = output.count / 2
            #expect(abs(frames - 44_100) <= 2, "\(rate) Hz: \(frames) frames for a second")
            #expect(output[0] == output[1] && output[2000] == output[2001], "mono goes to both channels")
            let left = Array(leftChannel(output)[2000..<42_000])
            let level = totalRMS(left)
            #expect(abs(level - 10_000 / 2.squareRoot()) < 100, "\(rate) Hz: RMS \(level)")
            #expect(abs(pitch(Array(output[4000..<84_000])) - 1000) < 5, "\(rate) Hz")
            // The image a linear interpolation leaves at rate - 1000 Hz (21,050 Hz from 22,050).
            if rate < 44_100 {
                let image = bandRMS(left, low: Double(rate) - 2000, high: min(21_500, Double(rate)))
                #expect(image < level / 1000, "\(rate) Hz: image \(image) against \(level)")
            }
        }
    }

    @Test("the chime: two notes, 784 and 1047 Hz, about -16 dBFS, 1.15 s ending in silence")
    func chime() {
        let samples = Chime.samples()
        #expect(samples.count == Int(Chime.seconds * 44_100) * 2)
        let left = leftChannel(samples)
        let peak = left.map(abs).max() ?? 0
        #expect(peak > 4_000 && peak < 8_000, "peak \(peak)")
        #expect(abs(pitch(Array(samples[0..<(Int(0.17 * 44_100) * 2)])) - 784) < 15)
        let second = bandRMS(Array(left[Int(0.2 * 44_100)..<Int(0.6 * 44_100)]), low: 950, high: 1150)
        #expect(second > 500, "the second note: \(second)")
        #expect(left.suffix(100).allSatisfy { abs($0) < 10 } && left.last == 0, "the tail fades to nothing")
    }

    @Test("libespeak-ng speaks English and German into its callback: seconds of sound, most of it in the speech band")
    func espeak() throws {
        let synthesizer = try EspeakSynthesizer()
        #expect(synthesizer.sampleRate == 22_050)
        for (voice, text) in [("en", "The washing machine is done."), ("de", "Die Waschmaschine ist fertig.")] {
            var samples: [Int16] = []
            try synthesizer.synthesize(text, voice: voice, rate: 160) { chunk in
                samples += chunk
                return true
            }
            let seconds = Double(samples.count) / 22_050
            #expect(seconds > 1.2 && seconds < 4, "\(voice): \(seconds) s")
            let signal = samples.map(Double.init)
            let speech = bandRMS(signal, rate: 22_050, low: 300, high: 3400), all = totalRMS(signal)
            #expect(all > 1000, "\(voice): RMS \(all)")
            #expect(speech > all * 0.5, "\(voice): \(speech) of \(all) in 300-3400 Hz")
        }
        // A sink that says stop ends the synthesis early.
        var chunks = 0
        try synthesizer.synthesize("One two three four five six seven eight nine ten.", voice: "en", rate: 160) { _ in
            chunks += 1
            return chunks < 2
        }
        #expect(chunks == 2)
        #expect { try synthesizer.synthesize("x", voice: "no-such-voice", rate: 160) { _ in true } } throws: {
            ($0 as? EspeakError)?.reason.contains("no-such-voice") == true
        }
    }
}

/// WAV as speech engines write it to a pipe (SPEC §16; `noiseclock-speak` writes `WAVHeader`'s):
/// RIFF, a `fmt ` chunk of 16-bit PCM, then `data` until the end of the stream. Engines that stream cannot know the length and write a
/// placeholder (espeak-ng 0x7FFFF000-ish, others 0xFFFFFFFF or 0); only a length that fits is kept.
public enum WAVStream {
    public struct Format: Sendable, Hashable {
        public var sampleRate: Int
        public var channels: Int

        public init(sampleRate: Int, channels: Int) {
            self.sampleRate = sampleRate
            self.channels = channels
        }
    }

    /// Reads a WAV stream fed in pieces as they arrive: the header first, then samples.
    public struct Reader {
        public private(set) var format: Format?
        private var pending: [UInt8] = []
        /// Bytes of sample data left when the `data` chunk's length was known.
        private var remaining: Int?
        /// The header is bounded: an engine that writes something else is found out early.
        static let headerLimit = 4096

        public init() {}

        /// Takes `bytes`; the whole 16-bit samples they complete (interleaved as the stream's format).
        /// A stream that is not 16-bit PCM WAV is an error naming what it is.
        public mutating func feed(_ bytes: some Collection<UInt8>) throws(SpeechError) -> [Int16] {
            pending.append(contentsOf: bytes)
            if format == nil {
                guard try parseHeader() else { return [] }
            }
            var usable = pending.count / 2 * 2
            if let left = remaining { usable = min(usable, left) }
            guard usable > 0 else { return [] }
            var samples = [Int16](repeating: 0, count: usable / 2)
            for i in 0..<samples.count { samples[i] = Int16(bitPattern: UInt16(pending[2 * i]) | UInt16(pending[2 * i + 1]) << 8) }
            pending.removeFirst(usable)
            if let left = remaining { remaining = left - usable }
            return samples
        }

        /// Whether the `data` chunk's known length has all been read (more bytes are ignored).
        public var isComplete: Bool { remaining == 0 }

        private func u32(_ at: Int) -> Int {
            Int(pending[at]) | Int(pending[at + 1]) << 8 | Int(pending[at + 2]) << 16 | Int(pending[at + 3]) << 24
        }
        private func u16(_ at: Int) -> Int { Int(pending[at]) | Int(pending[at + 1]) << 8 }

        /// True once the header is read (the samples follow in `pending`); false: more bytes needed.
        private mutating func parseHeader() throws(SpeechError) -> Bool {
            if pending.count >= 4, pending[0..<4].elementsEqual("RIFF".utf8) == false {
                throw SpeechError("the speech engine's output is not WAV (it starts with \(Self.describe(pending.prefix(8))))")
            }
            guard pending.count >= 12 else { return false }
            guard pending[8..<12].elementsEqual("WAVE".utf8) else { throw SpeechError("the speech engine's output is RIFF but not WAVE") }
            var at = 12
            var found: Format?
            while at + 8 <= pending.count {
                let id = String(decoding: pending[at..<(at + 4)], as: UTF8.self), size = u32(at + 4)
                if id == "data" {
                    guard let found else { throw SpeechError("the speech engine's WAV has no fmt chunk before its data") }
                    format = found
                    // A placeholder length (unknown when streaming) means: until the end.
                    remaining = size > 0 && size < 0x7FFF_0000 ? size : nil
                    pending.removeFirst(at + 8)
                    return true
                }
                guard at + 8 + size <= pending.count else { break }
                if id == "fmt " {
                    guard size >= 16 else { throw SpeechError("the speech engine's WAV has a short fmt chunk") }
                    let tag = u16(at + 8), channels = u16(at + 10), rate = u32(at + 12), bits = u16(at + 22)
                    guard tag == 1 || tag == 0xFFFE, bits == 16 else {
                        throw SpeechError("the speech engine's WAV is not 16-bit PCM (format \(tag), \(bits) bits)")
                    }
                    guard (1...2).contains(channels), (8000...192_000).contains(rate) else {
                        throw SpeechError("the speech engine's WAV has \(channels) channels at \(rate) Hz; 1 or 2 at 8000-192000 Hz are read")
                    }
                    found = Format(sampleRate: rate, channels: channels)
                }
                at += 8 + size + (size & 1)
            }
            if pending.count > Self.headerLimit { throw SpeechError("the speech engine's WAV has no data chunk in its first \(Self.headerLimit) bytes") }
            return false
        }

        static func describe(_ bytes: some Collection<UInt8>) -> String {
            let printable = bytes.allSatisfy { (0x20..<0x7f).contains($0) }
            if printable { return "\"" + String(decoding: bytes, as: UTF8.self) + "\"" }
            return bytes.map { b in let h = String(b, radix: 16); return b < 16 ? "0" + h : h }.joined(separator: " ")
        }
    }
}

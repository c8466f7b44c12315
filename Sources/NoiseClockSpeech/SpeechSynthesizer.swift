/// What turns text into sound (SPEC §16), behind which the engines sit: libespeak-ng in the
/// `noiseclock-speak` helper (`EspeakSynthesizer`), and in tests whatever a test needs.
public protocol SpeechSynthesizer {
    /// Mono 16-bit samples a second.
    var sampleRate: Int { get }
    /// Speaks `text` into `sink` a chunk at a time, blocking until done; `sink` returns false to stop.
    func synthesize(_ text: String, voice: String, rate: Int, into sink: (UnsafeBufferPointer<Int16>) -> Bool) throws(SpeechError)
}

/// Why something could not be said, in words the user reads in `B/speech` and the log.
public struct SpeechError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

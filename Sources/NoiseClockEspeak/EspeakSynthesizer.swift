import CEspeak

/// The built-in voice (SPEC §16): libespeak-ng synthesising into a callback, never through its own
/// audio output (`AUDIO_OUTPUT_SYNCHRONOUS`: `espeak_Synth` returns when the text is spoken into
/// the callback). libespeak-ng keeps its state in globals: one synthesizer per process, used by one
/// thread (the `noiseclock-speak` helper has one).
public final class EspeakSynthesizer: SpeechSynthesizer {
    public let sampleRate: Int

    /// Loads espeak-ng's data (`dataPath`, or its own default, `espeak-ng-data`).
    public init(dataPath: String? = nil) throws(EspeakError) {
        // 100 ms a callback: the first sound leaves within one, the rest follows in step.
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 100, dataPath, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else { throw EspeakError("espeak-ng cannot start: its data (espeak-ng-data) cannot be read") }
        sampleRate = Int(rate)
        espeak_SetSynthCallback(espeakSamples)
    }

    deinit { espeak_Terminate() }

    /// Speaks `text` with `voice` (a name such as `en`, `de`, `en-us+f3`) at `rate` words a minute
    /// into `sink`, mono 16-bit at `sampleRate`, a chunk at a time; `sink` returns false to stop.
    public func synthesize(
        _ text: String, voice: String, rate: Int, into sink: (UnsafeBufferPointer<Int16>) -> Bool
    ) throws(EspeakError) {
        guard espeak_SetVoiceByName(voice) == EE_OK else { throw EspeakError("espeak-ng has no voice \"\(voice)\"") }
        espeak_SetParameter(espeakRATE, Int32(min(max(rate, Int(espeakRATE_MINIMUM)), Int(espeakRATE_MAXIMUM))), 0)
        let bytes = Array(text.utf8) + [0]
        let result = withoutActuallyEscaping(sink) { sink -> espeak_ERROR in
            let box = SinkBox(sink)
            return withExtendedLifetime(box) {
                bytes.withUnsafeBytes { text in
                    espeak_Synth(
                        text.baseAddress, bytes.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8 | espeakENDPAUSE), nil,
                        Unmanaged.passUnretained(box).toOpaque())
                }
            }
        }
        guard result == EE_OK else { throw EspeakError("espeak-ng could not speak the text (error \(result.rawValue))") }
    }
}

/// The sink of the synthesis under way, reached from the C callback through `user_data`.
private final class SinkBox {
    let sink: (UnsafeBufferPointer<Int16>) -> Bool
    var stopped = false

    init(_ sink: @escaping (UnsafeBufferPointer<Int16>) -> Bool) { self.sink = sink }
}

/// libespeak-ng's callback: samples (none at the end), and events whose `user_data` is the box.
private func espeakSamples(_ wav: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?) -> Int32 {
    guard let user = events?.pointee.user_data else { return 0 }
    let box = Unmanaged<SinkBox>.fromOpaque(user).takeUnretainedValue()
    if box.stopped { return 1 }
    guard let wav, count > 0 else { return 0 }
    if !box.sink(UnsafeBufferPointer(start: wav, count: Int(count))) { box.stopped = true }
    return box.stopped ? 1 : 0
}

/// What turns text into sound in process, a chunk at a time: libespeak-ng's synthesizer here; a
/// test's own where one is needed.
public protocol SpeechSynthesizer {
    /// Mono 16-bit samples a second.
    var sampleRate: Int { get }
    /// Speaks `text` into `sink` a chunk at a time, blocking until done; `sink` returns false to stop.
    func synthesize(_ text: String, voice: String, rate: Int, into sink: (UnsafeBufferPointer<Int16>) -> Bool) throws(EspeakError)
}

/// Why libespeak-ng could not speak, in words (the helper prints it; the node reads it as the
/// engine's failure).
public struct EspeakError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// The WAV header `noiseclock-speak` writes before its samples: mono 16-bit PCM at `sampleRate`,
/// the lengths left open (0x7FFFFFFF, as espeak-ng writes them), since a stream cannot know them.
public enum WAVHeader {
    public static func streaming(sampleRate: Int, channels: Int = 1) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)] }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
        let open: UInt32 = 0x7FFF_FFFF
        return Array("RIFF".utf8) + le32(open) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(UInt16(channels))
            + le32(UInt32(sampleRate)) + le32(UInt32(sampleRate * channels * 2)) + le16(UInt16(channels * 2)) + le16(16)
            + Array("data".utf8) + le32(open)
    }
}

import CEspeak
import NoiseClockSpeech

/// The built-in voice (SPEC §16): libespeak-ng synthesising into a callback, never through its own
/// audio output (`AUDIO_OUTPUT_SYNCHRONOUS`: `espeak_Synth` returns when the text is spoken into
/// the callback). libespeak-ng keeps its state in globals: one synthesizer per process, used by one
/// thread (the `noiseclock-speak` helper has one).
public final class EspeakSynthesizer: SpeechSynthesizer {
    public let sampleRate: Int

    /// Loads espeak-ng's data (`dataPath`, or its own default, `espeak-ng-data`).
    public init(dataPath: String? = nil) throws(SpeechError) {
        // 100 ms a callback: the first sound leaves within one, the rest follows in step.
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 100, dataPath, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else { throw SpeechError("espeak-ng cannot start: its data (espeak-ng-data) cannot be read") }
        sampleRate = Int(rate)
        espeak_SetSynthCallback(espeakSamples)
    }

    deinit { espeak_Terminate() }

    /// Speaks `text` with `voice` (a name such as `en`, `de`, `en-us+f3`) at `rate` words a minute
    /// into `sink`, mono 16-bit at `sampleRate`, a chunk at a time; `sink` returns false to stop.
    public func synthesize(
        _ text: String, voice: String, rate: Int, into sink: (UnsafeBufferPointer<Int16>) -> Bool
    ) throws(SpeechError) {
        guard espeak_SetVoiceByName(voice) == EE_OK else { throw SpeechError("espeak-ng has no voice \"\(voice)\"") }
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
        guard result == EE_OK else { throw SpeechError("espeak-ng could not speak the text (error \(result.rawValue))") }
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

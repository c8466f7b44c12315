// noiseclock-speak: text to speech with libespeak-ng (SPEC §16). The node runs it for each
// utterance (`SpeechProcess`): the text on stdin (UTF-8, at most 64 KiB), WAV on stdout (mono
// 16-bit at espeak-ng's rate, the length left open as a stream), nothing else. libespeak-ng lives
// here and not in the node: Debian's brings libpcaudio, PulseAudio's client, X11 and libsndfile.
// The same contract as `speech.command` (Piper), so a user can try it by hand:
//
//     echo "Good morning" | noiseclock-speak --voice en --rate 160 > morning.wav

#if canImport(Glibc)
import Glibc
#endif
import NoiseClockEspeak

func fail(_ message: String) -> Never {
    let text = Array("noiseclock-speak: \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

/// All of `bytes` to stdout; a node gone is a broken pipe, and SIGPIPE ends this process.
func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var sent = 0
    while sent < bytes.count, let base = bytes.baseAddress {
        let n = write(1, base + sent, bytes.count - sent)
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        sent += n
    }
    return true
}

var voice = "en", rate = 160, dataPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let next = arguments.popFirst() else { fail("\(argument) needs a value") }
        return next
    }
    switch argument {
    case "--voice": voice = value()
    case "--rate":
        guard let number = Int(value()), (80...450).contains(number) else { fail("--rate needs words a minute from 80 to 450") }
        rate = number
    case "--data": dataPath = value()
    default: fail("unknown argument \(argument)")
    }
}

var text: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 4096)
while true {
    let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
    if n < 0, errno == EINTR { continue }
    if n <= 0 { break }
    text.append(contentsOf: chunk[..<n])
    if text.count > 65_536 { fail("the text is longer than 64 KiB") }
}

do {
    let synthesizer = try EspeakSynthesizer(dataPath: dataPath)
    guard WAVHeader.streaming(sampleRate: synthesizer.sampleRate).withUnsafeBytes(send) else { exit(1) }
    try synthesizer.synthesize(String(decoding: text, as: UTF8.self), voice: voice, rate: rate) { samples in
        send(UnsafeRawBufferPointer(samples))
    }
} catch {
    fail(error.description)
}
exit(0)

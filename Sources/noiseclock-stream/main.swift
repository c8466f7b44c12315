// noiseclock-stream: one stream, decoded (SPEC §15). The node runs it while a station plays
// (`StreamProcess`) and reads 44.1 kHz stereo s16le on its stdout and the events, one a line, on
// descriptor 3. FFmpeg lives here and not in the node: Debian's libavformat links libxml2 and ICU,
// and a decoder that a hostile stream crashes takes down this process, not the alarm clock.
//
//     noiseclock-stream [--open-timeout-ms N] [--stall-timeout-ms N] [--ca-file FILE] [--user-agent TEXT] URL

#if canImport(Glibc)
import Glibc
#endif
import NoiseClockFFmpeg
import NoiseClockStreams
import NoiseClockSystem

/// Audio to the node through stdout: a blocking write, so a node that reads no faster than it
/// plays holds the decoder back; a node gone is a broken pipe, and SIGPIPE ends this process.
struct PipeOutput: StreamOutput {
    let fd: Int32

    func write(_ samples: UnsafeBufferPointer<Int16>, shouldStop: () -> Bool) -> Bool {
        let raw = UnsafeRawBufferPointer(samples)
        var sent = 0
        while sent < raw.count {
            guard !shouldStop(), let base = raw.baseAddress else { return false }
            let n = Glibc.write(fd, base + sent, raw.count - sent)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            sent += n
        }
        return true
    }
}

/// A call the helper cannot follow: the reason to stderr, and to the node as the stream's end.
func fail(_ message: String) -> Never {
    let text = Array("noiseclock-stream: \(message)\n".utf8)
    _ = text.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    let line = Array((StreamEvent.ended(StreamError(.helper, "noiseclock-stream: \(message)")).line + "\n").utf8)
    _ = line.withUnsafeBytes { Glibc.write(3, $0.baseAddress, $0.count) }
    exit(2)
}

var options = StreamOptions()
var url: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let next = arguments.popFirst() else { fail("\(argument) needs a value") }
        return next
    }
    func milliseconds() -> Duration {
        guard let number = Int(value()), number > 0 else { fail("\(argument) needs a number of milliseconds") }
        return .milliseconds(number)
    }
    switch argument {
    case "--open-timeout-ms": options.openTimeout = milliseconds()
    case "--stall-timeout-ms": options.stallTimeout = milliseconds()
    case "--ca-file": options.caFile = value()
    case "--user-agent": options.userAgent = value()
    default:
        guard url == nil, !argument.hasPrefix("--") else { fail("unknown argument \(argument)") }
        url = argument
    }
}
guard let url else { fail("a stream URL is required") }

let events: Int32 = 3
let ended = WakeSignal()
let receiver = StreamReceiver(url: url, into: PipeOutput(fd: 1), options: options) { event in
    let line = Array((event.line + "\n").utf8)
    _ = line.withUnsafeBytes { Glibc.write(events, $0.baseAddress, $0.count) }
    if case .ended = event { ended.signal() }
}
// SIGTERM from the node ends the process at once (the default), which is all a stop needs.
receiver.start()
// A node that dies (even by SIGKILL) closes its end of the audio pipe: the helper goes too, at
// once, rather than at its next write, which a stalled stream may not make for a while.
var audio = pollfd(fd: 1, events: 0, revents: 0)
while !ended.wait(timeout: .seconds(1)) {
    if poll(&audio, 1, 0) > 0, audio.revents & Int16(POLLERR | POLLHUP) != 0 { exit(0) }
}
exit(0)

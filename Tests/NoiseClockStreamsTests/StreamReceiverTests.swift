import Foundation
import NoiseClockAudio
import NoiseClockHTTP
import NoiseClockTestSupport
import Synchronization
import Testing
@testable import NoiseClockStreams
import NoiseClockFFmpeg

/// What a receiver reported, for a test to wait on.
final class StreamEvents: Sendable {
    private let events = Mutex<[StreamEvent]>([])

    func record(_ event: StreamEvent) { events.withLock { $0.append(event) } }
    var all: [StreamEvent] { events.withLock { $0 } }

    var info: StreamInfo? {
        all.lazy.compactMap { if case .connected(let info) = $0 { info } else { nil } }.first
    }
    var titles: [String] { all.compactMap { if case .title(let title) = $0 { title } else { nil } } }
    /// nil while it runs; `.some(nil)` once stopped; `.some(error)` once it failed.
    var ending: StreamError?? {
        all.lazy.compactMap { if case .ended(let error) = $0 { .some(error) } else { nil } }.first
    }

    func ended() async -> StreamError?? {
        _ = await eventually { self.ending != nil }
        return ending
    }
}

extension StreamReceiver {
    /// The buffer a test's receiver writes into.
    var buffer: StreamBuffer { output as! StreamBuffer }
}

/// Starts a receiver of `url` into a new buffer; stopped when the test's scope ends.
func receive(_ url: String, seconds: Double = 4, options: StreamOptions = StreamOptions()) -> (StreamReceiver, StreamEvents) {
    let events = StreamEvents()
    let receiver = StreamReceiver(url: url, into: StreamBuffer(seconds: seconds), options: options) { events.record($0) }
    receiver.start()
    return (receiver, events)
}

func rootMeanSquare(_ samples: [Int16]) -> Double {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}

/// One second of what the buffer holds, past the stream's first two (a decoder joining a stream
/// mid-way, and the encoder's start, may give a moment of silence), once it holds that much.
func oneSecond(of buffer: StreamBuffer) async -> [Int16] {
    _ = await eventually { buffer.bufferedFrames >= 3 * AudioFormat.sampleRate }
    var out = [Int16](repeating: 0, count: 2 * AudioFormat.sampleRate * 2)
    _ = out.withUnsafeMutableBufferPointer { buffer.read(into: $0) }
    out = [Int16](repeating: 0, count: AudioFormat.sampleRate * 2)
    let n = out.withUnsafeMutableBufferPointer { buffer.read(into: $0) }
    return Array(out[..<(n * 2)])
}

@Suite("Streams from a real Icecast, fed by ffmpeg", .serialized)
struct StreamReceiverTests {
    @Test(
        "an MP3, an AAC and an Opus stream each decode to the tone they carry, with their codec and the station's name",
        arguments: [(Icecast.Format.mp3, "mp3", 440), (.aac, "aac", 660), (.opus, "opus", 550)])
    func decodes(format: Icecast.Format, codec: String, frequency: Int) async throws {
        let icecast = try await Icecast()
        try await icecast.feed(format.rawValue, format, frequency: frequency, name: "Test FM")
        let (receiver, events) = receive(icecast.url(format.rawValue))
        defer { receiver.stop() }
        #expect(await eventually { events.info != nil })
        #expect(events.info?.codec == codec)
        #expect(events.info?.name == "Test FM")
        let second = await oneSecond(of: receiver.buffer)
        #expect(second.count == AudioFormat.sampleRate * 2)
        // ffmpeg's sine is at 1/8 of full scale (an RMS of about 2900 before the codec): a tone, not silence.
        #expect(rootMeanSquare(second) > 1000)
        #expect(abs(pitch(second) - Double(frequency)) < 10, "heard \(pitch(second)) Hz")
        // `sounding` once, after `connected`: what tells an alarm that its station is heard.
        #expect(events.all.filter { $0 == .sounding }.count == 1)
        #expect(events.all.firstIndex(of: .sounding).map { $0 > 0 } == true, "events: \(events.all)")
        #expect(events.ending == nil)
    }

    @Test("a title set at the server reaches the receiver as plain text, markup and control characters gone")
    func icyTitle() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3)
        let (receiver, events) = receive(icecast.url("mp3"))
        defer { receiver.stop() }
        #expect(await eventually { events.info != nil })
        try await icecast.setTitle("mp3", "Nightly <b>Rain</b>\u{7}  Song")
        #expect(await eventually { events.titles.contains("Nightly Rain Song") }, "titles: \(events.titles)")
        try await icecast.setTitle("mp3", "Second")
        #expect(await eventually { events.titles.last == "Second" }, "titles: \(events.titles)")
    }

    @Test("a source that is cut ends the stream with a reason, after the audio it had sent")
    func cut() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3)
        let (receiver, events) = receive(icecast.url("mp3"))
        defer { receiver.stop() }
        #expect(await eventually { receiver.buffer.bufferedFrames > 0 })
        await icecast.cut("mp3")
        let ending = await events.ended()
        #expect(ending != nil && ending! != nil, "ended: \(String(describing: ending))")
        #expect(receiver.buffer.bufferedFrames > 0)
    }

    @Test("stop ends a receiver waiting for a server that never answers, without an error")
    func stopWhileConnecting() async throws {
        let server = try FaultServer(.silent)
        let (receiver, events) = receive(server.url, options: StreamOptions(openTimeout: .seconds(600)))
        #expect(await eventually { server.connectionCount > 0 })
        receiver.stop()
        let ending = await events.ended()
        #expect(ending != nil && ending! == nil)
    }

    @Test("a server that never answers is given up at the open timeout")
    func silentServer() async throws {
        let server = try FaultServer(.silent)
        let (_, events) = receive(server.url, options: StreamOptions(openTimeout: .seconds(1)))
        let ending = await events.ended()
        #expect(ending??.kind == .timeout, "ended: \(String(describing: ending))")
    }

    @Test("a stream that stalls (connected, then nothing) ends at the stall timeout")
    func stall() async throws {
        let icecast = try await Icecast()
        try await icecast.feed("mp3", .mp3)
        let proxy = try FaultServer(.proxy(upstreamPort: icecast.port, afterBytes: 100_000, stall: true))
        let (receiver, events) = receive(proxy.url.replacingOccurrences(of: "/stream", with: "/mp3"),
            options: StreamOptions(stallTimeout: .seconds(1)))
        defer { receiver.stop() }
        let ending = await events.ended()
        #expect(events.info?.codec == "mp3")
        #expect(ending??.kind == .timeout, "ended: \(String(describing: ending))")
    }

    @Test("a web page where the stream should be ends with an error and plays nothing; the resolver names it a web page")
    func html() async throws {
        let server = try FaultServer(.html)
        let (receiver, events) = receive(server.url)
        let ending = await events.ended()
        #expect(ending != nil && ending! != nil, "ended: \(String(describing: ending))")
        #expect(events.info == nil)
        #expect(receiver.buffer.bufferedFrames == 0)
        let error = await #expect(throws: HTTPError.self) { try await StationResolver().streams(of: server.url) }
        #expect(error?.message == "\(server.url) is a web page (text/html), not a stream or a playlist")
    }

    @Test("a redirect loop ends with an error, not a hang")
    func redirectLoop() async throws {
        let server = try FaultServer(.redirectLoop)
        let (_, events) = receive(server.url)
        let ending = await events.ended()
        #expect(ending??.kind == .connect, "ended: \(String(describing: ending))")
        #expect(server.connectionCount <= 11)
    }

    @Test("HTTPS is checked against the CA store: a certificate it does not sign is refused, one it does is accepted")
    func tls() async throws {
        let server = try await TLSServer()
        let (_, refused) = receive(server.url, options: StreamOptions(caFile: "/etc/ssl/certs/ca-certificates.crt"))
        let refusal = await refused.ended()
        #expect(refusal??.kind == .connect, "ended: \(String(describing: refusal))")
        #expect(refused.info == nil)
        // Trusted, the same server is heard: its MP3 decodes, then ends.
        let (receiver, trusted) = receive(server.url, options: StreamOptions(caFile: server.certificate))
        let ending = await trusted.ended()
        #expect(trusted.info?.codec == "mp3")
        #expect(ending??.kind == .ended, "ended: \(String(describing: ending))")
        #expect(receiver.buffer.bufferedFrames > AudioFormat.sampleRate)
    }
}

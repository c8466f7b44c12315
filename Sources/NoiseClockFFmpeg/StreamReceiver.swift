#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import NoiseClockAudio
import NoiseClockStreams
import NoiseClockSystem
import Synchronization

/// One connection to one stream URL, on a thread of its own: libavformat fetches and demuxes it
/// (HTTP, HTTPS checked against the system's CA store, ICY, HLS), libavcodec decodes it (MP3,
/// AAC/HE-AAC, Vorbis, Opus, FLAC), libswresample makes it the engine's format, and the audio goes
/// to a `StreamOutput`. Only the `noiseclock-stream` helper links it: Debian's libavformat brings
/// libxml2 and ICU, which the node's own process never loads (`StreamProcess` runs the helper).
///
/// A receiver does not reconnect: it ends, and its owner decides (a player with backoff, an alarm
/// with its fallback). Every blocking FFmpeg call is bounded by an interrupt callback that `stop`
/// and the deadlines end; `ended` comes after the last write into the buffer, so the owner may
/// hand the same buffer to the next receiver.
public final class StreamReceiver: Sendable {
    public let url: String
    /// Where the audio goes: a `StreamBuffer`, or the helper's pipe.
    public let output: any StreamOutput
    private let options: StreamOptions
    private let onEvent: @Sendable (StreamEvent) -> Void
    private let guardState: GuardBox
    private let started = Atomic<Bool>(false)

    /// The C struct FFmpeg's interrupt callback reads: allocated once, freed by the last owner
    /// (the receiver or its thread, whichever ends later).
    private final class GuardBox: @unchecked Sendable {
        // @unchecked Sendable: the struct's fields are only touched through the shim's atomics.
        let pointer: UnsafeMutablePointer<nc_stream_guard>
        init() {
            pointer = .allocate(capacity: 1)
            pointer.initialize(to: nc_stream_guard(stop: 0, deadline_us: 0, timed_out: 0))
        }
        deinit { pointer.deallocate() }
    }

    /// FFmpeg prints nothing: its errors are kept, the last one of each thread, to name what a
    /// failed open met (a certificate, a refused redirect) where its code only says "I/O error".
    private static let logging: Void = {
        // Formatted in the shim: FFmpeg's va_list cannot reach Swift on aarch64 (CFFmpeg/shim.h).
        nc_av_log_to { line in
            guard let line else { return }
            var text = String(cString: line)
            while let last = text.last, last.isWhitespace { text.removeLast() }
            guard !text.isEmpty else { return }
            StreamReceiver.logged.withLock { $0[UInt(pthread_self())] = text }
        }
    }()

    /// The last error FFmpeg logged, by the thread it logged on.
    private static let logged = Mutex<[UInt: String]>([:])

    /// What FFmpeg last logged on this thread, forgotten.
    private static func takeLogged() -> String? {
        logged.withLock { $0.removeValue(forKey: UInt(pthread_self())) }
    }

    public init(
        url: String, into output: any StreamOutput, options: StreamOptions = StreamOptions(),
        onEvent: @escaping @Sendable (StreamEvent) -> Void
    ) {
        Self.logging
        self.url = url
        self.output = output
        self.options = options
        self.onEvent = onEvent
        guardState = GuardBox()
    }

    /// Starts the thread (once).
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Threads.start(name: "stream") { [self] in
            let error = receive()
            _ = Self.takeLogged()
            onEvent(.ended(error))
        }
    }

    /// Ends the connection: the thread leaves whatever FFmpeg call it is in within ~100 ms (FFmpeg
    /// asks the callback between its short network waits) and sends `ended(nil)`.
    public func stop() {
        nc_stream_guard_stop(guardState.pointer)
    }

    private var stopped: Bool { nc_stream_guard_stopped(guardState.pointer) != 0 }

    private static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }

    /// The whole life of the connection; the error it ended with (nil when stopped).
    private func receive() -> StreamError? {
        let box = guardState
        guard let allocated = avformat_alloc_context() else { return StreamError(.connect, "out of memory") }
        var opened: UnsafeMutablePointer<AVFormatContext>? = allocated
        nc_stream_guard_install(allocated, box.pointer)
        // Enough to recognise a codec on a live stream without waiting seconds for more.
        allocated.pointee.probesize = 256 * 1024
        allocated.pointee.max_analyze_duration = 2_000_000
        // What recognises the format is read within the open deadline even from a slow server
        // (FFmpeg's default, 1 MiB, takes 13 s at 80 KB/s): bytes that are no audio are refused as such.
        allocated.pointee.format_probesize = 128 * 1024

        var dictionary: OpaquePointer?
        defer { av_dict_free(&dictionary) }
        // HTTPS never falls back to plain HTTP through a redirect (SPEC §15); no local files. The
        // whitelist alone does not hold it: FFmpeg's one `http` protocol serves both, over `tcp`
        // or `tls`, and follows a redirect from one to the other; the address it ended at is
        // checked once it is open, before anything of it is played.
        let secure = url.lowercased().hasPrefix("https:")
        av_dict_set(&dictionary, "protocol_whitelist", secure ? "https,tls,tcp,crypto" : "http,https,tls,tcp,crypto", 0)
        av_dict_set(&dictionary, "tls_verify", "1", 0)
        av_dict_set(&dictionary, "ca_file", options.caFile, 0)
        av_dict_set(&dictionary, "icy", "1", 0)
        av_dict_set(&dictionary, "user_agent", options.userAgent, 0)
        av_dict_set(&dictionary, "reconnect", "0", 0)
        av_dict_set(&dictionary, "max_redirects", "10", 0)

        nc_stream_guard_arm(box.pointer, Self.microseconds(options.openTimeout))
        // On failure it frees the context itself.
        var rc = avformat_open_input(&opened, url, nil, &dictionary)
        guard rc >= 0, let context = opened else { return failure(rc, while: .connect) }
        defer {
            var owned: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&owned)
        }
        if secure, let location = Self.location(of: context), !location.lowercased().hasPrefix("https:") {
            return StreamError(.connect, "\(url): a redirect to a refused address (HTTPS may not lead to HTTP)")
        }
        rc = avformat_find_stream_info(context, nil)
        guard rc >= 0 else { return failure(rc, while: .notAudio) }
        // The deadline cut the probe short: what was read was too little to tell, which is slowness,
        // not a stream that is no audio (a probe ended early can pick a format without streams).
        if stopped { return nil }
        if nc_stream_guard_timed_out(guardState.pointer) != 0 {
            return StreamError(.timeout, "the server sent too little to recognise in time")
        }
        let index = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let stream = context.pointee.streams[Int(index)], let parameters = stream.pointee.codecpar else {
            return StreamError(.notAudio, "no audio in the stream")
        }
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            return StreamError(.notAudio, "no decoder for \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))")
        }
        guard let decoder = avcodec_alloc_context3(codec) else { return StreamError(.decode, "out of memory") }
        var decoderSlot: UnsafeMutablePointer<AVCodecContext>? = decoder
        defer { avcodec_free_context(&decoderSlot) }
        rc = avcodec_parameters_to_context(decoder, parameters)
        if rc >= 0 { rc = avcodec_open2(decoder, codec, nil) }
        guard rc >= 0 else { return failure(rc, while: .decode) }

        let headers = Self.take(nc_av_icy_headers(context)).map(StreamText.decode)
        let bitrate = parameters.pointee.bit_rate > 0 ? Int(parameters.pointee.bit_rate / 1000) : StreamText.icyHeader("icy-br", in: headers ?? "").flatMap { Int($0) }
        onEvent(.connected(StreamInfo(
            codec: String(cString: avcodec_get_name(parameters.pointee.codec_id)), bitrateKbps: bitrate,
            name: StreamText.icyHeader("icy-name", in: headers ?? "").map(StreamText.plain))))

        var resampler: OpaquePointer?
        defer { swr_free(&resampler) }
        guard let packet = av_packet_alloc() else { return StreamError(.decode, "out of memory") }
        var packetSlot: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&packetSlot) }
        guard let frame = av_frame_alloc() else { return StreamError(.decode, "out of memory") }
        var frameSlot: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&frameSlot) }

        var output = [Int16](repeating: 0, count: 8192 * AudioFormat.channels)
        var lastTitle: String?
        var sounding = false
        var packets = 0
        let eagain = nc_av_error_again()
        let stall = Self.microseconds(options.stallTimeout)
        // A stream that comes slower than it plays (a server or a network that trickles) is no
        // stall, yet it is heard as gaps for ever: the time spent waiting for the network is
        // weighed against the audio it brought, over windows of four stall timeouts (at least 8 s:
        // HLS at its live edge brings a segment, at most a stall timeout long, at a time, which
        // leaves a window at least 3/4 full); under half is given up, as a stall is. Time spent
        // waiting for room in the output (a buffer that is full) does not count.
        let slowWindow = max(4 * stall, 8_000_000)
        var waited: Int64 = 0, brought = 0

        func lookForTitle() {
            packets += 1
            var title: String?
            if nc_av_take_metadata_update(context, index) != 0 {
                let tagged = [nc_av_tag(context, index, "StreamTitle"), nc_av_tag(context, index, "title")]
                    .compactMap { $0.map { StreamText.decode(cString: $0) } }.first
                let artist = nc_av_tag(context, index, "artist").map { StreamText.decode(cString: $0) }
                title = tagged.map { t in artist.map { "\($0) - \(t)" } ?? t }
            }
            // ICY blocks come through an option of the HTTP layer, not as an event: looked at about
            // once a second (a block is at most every 16000 bytes anyway).
            if title == nil, packets % 32 == 1, let block = Self.take(nc_av_icy_packet(context)) {
                title = StreamText.icyTitle(in: StreamText.decode(block))
            }
            guard let title = title.map(StreamText.plain), !title.isEmpty, title != lastTitle else { return }
            lastTitle = title
            onEvent(.title(title))
        }

        while true {
            nc_stream_guard_arm(box.pointer, stall)
            let asked = Self.now()
            rc = av_read_frame(context, packet)
            waited += Self.now() - asked
            if rc < 0 { return failure(rc, while: .ended) }
            defer { av_packet_unref(packet) }
            if waited >= slowWindow {
                let speed = Double(brought) / Double(AudioFormat.sampleRate) / (Double(waited) / 1_000_000)
                if speed < 0.5 {
                    return StreamError(.timeout, "the stream comes slower than it plays (\(Int(speed * 100)) % of its speed)")
                }
                waited = 0
                brought = 0
            }
            guard packet.pointee.stream_index == index else { continue }
            lookForTitle()
            rc = avcodec_send_packet(decoder, packet)
            // A damaged packet of a live stream is skipped, as players do; the decoder goes on.
            if rc < 0, rc != eagain { continue }
            while avcodec_receive_frame(decoder, frame) >= 0 {
                defer { av_frame_unref(frame) }
                if resampler == nil {
                    rc = nc_swr_to_engine_format(&resampler, decoder)
                    guard rc >= 0 else { return failure(rc, while: .decode) }
                }
                let capacity = output.count / AudioFormat.channels
                let frames = output.withUnsafeMutableBufferPointer {
                    nc_swr_convert_frame(resampler, $0.baseAddress, Int32(capacity), frame)
                }
                guard frames >= 0 else { return failure(frames, while: .decode) }
                let complete = output.withUnsafeBufferPointer {
                    self.output.write(UnsafeBufferPointer(rebasing: $0[..<(Int(frames) * AudioFormat.channels)]), shouldStop: { stopped })
                }
                if !complete { return nil }
                brought += Int(frames)
                if !sounding, frames > 0 {
                    sounding = true
                    onEvent(.sounding)
                }
            }
        }
    }

    /// The address the HTTP layer ended at, after its redirects (nil when it has none, as HLS).
    private static func location(of context: UnsafeMutablePointer<AVFormatContext>) -> String? {
        guard let io = context.pointee.pb else { return nil }
        var value: UnsafeMutablePointer<UInt8>?
        guard av_opt_get(UnsafeMutableRawPointer(io), "location", AV_OPT_SEARCH_CHILDREN, &value) >= 0, let value else { return nil }
        defer { av_free(value) }
        return String(cString: value)
    }

    /// Now on the monotonic clock, in microseconds.
    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1000
    }

    /// An FFmpeg failure as the user reads it: the deadline or the stop when those ended it, a
    /// certificate or a refused redirect when FFmpeg logged one.
    private func failure(_ code: Int32, while kind: StreamError.Kind) -> StreamError? {
        let logged = Self.takeLogged()
        if stopped { return nil }
        if nc_stream_guard_timed_out(guardState.pointer) != 0 {
            return StreamError(.timeout, kind == .connect ? "no answer from the server" : "the stream sent nothing in time")
        }
        // A demuxer reports a read its callback ended as the end of the stream: the deadline is
        // looked at first.
        if code == nc_av_error_eof() { return StreamError(.ended, "the stream ended") }
        var text = [CChar](repeating: 0, count: 128)
        av_strerror(code, &text, text.count)
        let reason = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let lowered = logged?.lowercased() ?? ""
        switch kind {
        case .connect where lowered.contains("certificate") || lowered.contains("verif"):
            return StreamError(.connect, "\(url): the certificate could not be verified (\(logged ?? reason))")
        case .connect where lowered.contains("not on whitelist"):
            return StreamError(.connect, "\(url): a redirect to a refused address (HTTPS may not lead to HTTP)")
        case .connect where code == -Int32(EINVAL) || reason.contains("Invalid data"):
            return StreamError(.notAudio, "not an audio stream (\(reason))")
        case .connect:
            return StreamError(.connect, "cannot open \(url): \(reason)")
        case .ended:
            // A connection lost mid-stream reads as "Input/output error" alone.
            return StreamError(.ended, "the stream broke off (\(reason))")
        default:
            return StreamError(kind, reason)
        }
    }

    /// The bytes of a string FFmpeg allocated, copied and freed.
    private static func take(_ pointer: UnsafeMutablePointer<CChar>?) -> [UInt8]? {
        guard let pointer else { return nil }
        defer { av_free(pointer) }
        return Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }
}

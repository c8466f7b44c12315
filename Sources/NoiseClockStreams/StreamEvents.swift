/// What a stream input is asked to do and tells: the same in the helper process that decodes a
/// stream (`noiseclock-stream`, FFmpeg) and in the node that plays it (`StreamProcess`).

/// How a stream is fetched: every limit explicit (SPEC §15, §8).
public struct StreamOptions: Sendable, Hashable {
    /// Connecting, and reading what identifies the codec, must end by then.
    public var openTimeout: Duration
    /// A stream that sends nothing for this long has stalled (SPEC §15: `buffer_s`).
    public var stallTimeout: Duration
    /// The CA certificates HTTPS is checked against (the system's store).
    public var caFile: String
    public var userAgent: String

    public init(
        openTimeout: Duration = .seconds(10), stallTimeout: Duration = .seconds(4),
        caFile: String = "/etc/ssl/certs/ca-certificates.crt", userAgent: String = "NoiseClock"
    ) {
        self.openTimeout = openTimeout
        self.stallTimeout = stallTimeout
        self.caFile = caFile
        self.userAgent = userAgent
    }
}

/// What a connected stream is.
public struct StreamInfo: Sendable, Hashable {
    /// FFmpeg's name of the codec: mp3, aac, opus, vorbis, flac.
    public var codec: String
    public var bitrateKbps: Int?
    /// The station's own name (`icy-name`), when it sends one.
    public var name: String?

    public init(codec: String, bitrateKbps: Int?, name: String?) {
        self.codec = codec
        self.bitrateKbps = bitrateKbps
        self.name = name
    }
}

/// Why a stream stopped.
public struct StreamError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Could not connect, or the server refused (DNS, TCP, TLS, HTTP status).
        case connect
        /// Connected, but nothing came in time (`openTimeout`, `stallTimeout`).
        case timeout
        /// What came is not audio the node can play (HTML, garbage, no audio stream).
        case notAudio = "not_audio"
        /// The stream ended (the server closed it).
        case ended
        /// Decoding failed mid-way (or the helper decoding it died).
        case decode
        /// The helper that decodes streams could not run (missing, refused its arguments, no
        /// pipe): no stream can play until that is mended, so nothing retries it.
        case helper
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// What a receiver tells its owner, from its own thread, in this order: `connected` once,
/// `sounding` once its first audio is in the buffer, `title` whenever the station's title changes,
/// `ended` last (after it has stopped writing).
public enum StreamEvent: Sendable, Hashable {
    case connected(StreamInfo)
    /// The first decoded audio is in the buffer: from now on the station is heard.
    case sounding
    case title(String)
    /// nil when `stop` was asked for.
    case ended(StreamError?)
}

/// Where a receiver puts the audio it decodes (interleaved stereo s16 at the engine's rate).
public protocol StreamOutput: Sendable {
    /// Writes all of `samples`, waiting while there is no room; false when it stopped first
    /// (`shouldStop`, or the output closed).
    func write(_ samples: UnsafeBufferPointer<Int16>, shouldStop: () -> Bool) -> Bool
}

extension StreamBuffer: StreamOutput {}

/// The helper's events as lines on a pipe: a word, then fields separated by tabs (tabs and line
/// breaks inside a field become spaces).
extension StreamEvent {
    public var line: String {
        func field(_ text: String) -> String {
            String(text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
        }
        switch self {
        case .connected(let info):
            return ["connected", field(info.codec), info.bitrateKbps.map(String.init) ?? "", field(info.name ?? "")].joined(separator: "\t")
        case .sounding:
            return "sounding"
        case .title(let title):
            return "title\t" + field(title)
        case .ended(nil):
            return "ended"
        case .ended(let error?):
            return ["ended", error.kind.rawValue, field(error.message)].joined(separator: "\t")
        }
    }

    /// The event of a line; nil for a line that is none.
    public init?(line: String) {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        switch fields.first {
        case "connected" where fields.count == 4:
            self = .connected(StreamInfo(codec: fields[1], bitrateKbps: Int(fields[2]), name: fields[3].isEmpty ? nil : fields[3]))
        case "sounding" where fields.count == 1:
            self = .sounding
        case "title" where fields.count == 2:
            self = .title(fields[1])
        case "ended" where fields.count == 1:
            self = .ended(nil)
        case "ended" where fields.count == 3:
            guard let kind = StreamError.Kind(rawValue: fields[1]) else { return nil }
            self = .ended(StreamError(kind, fields[2]))
        default:
            return nil
        }
    }
}

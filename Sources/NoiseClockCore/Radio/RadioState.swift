/// What the radio does now, as retained `B/radio` says it (SPEC §15).
public struct RadioState: Sendable, Hashable {
    public enum Phase: String, Sendable, CaseIterable {
        /// Nothing plays.
        case idle
        /// Resolving the station's playlist and connecting.
        case connecting
        /// Connected; its first audio not yet decoded.
        case buffering
        case playing
        /// Dropped or stalled: connecting again with backoff while what is buffered plays out.
        case retrying
        /// Given up (5 minutes down while listening); `error` says why.
        case failed
    }

    public var phase: Phase = .idle
    /// The station's id; nil for an address played as it is.
    public var station: String?
    public var name: String?
    public var url: String?
    /// The station's title of what plays (ICY `StreamTitle`, HLS ID3, Ogg tags), plain text.
    public var nowPlaying: String?
    public var codec: String?
    public var bitrateKbps: Int?
    public var bufferedSeconds: Double = 0
    public var error: String?
    public var volume: Int = 50
    public var sleepTimerEndsAt: Double?

    public init() {}

    /// Whether a station is meant to sound (connecting, retrying and buffering count).
    public var playing: Bool { phase != .idle && phase != .failed }

    /// `B/radio`; `fixed` are the ids of the file's stations (changed only there: each says
    /// `"fixed":true`); `directory` says whether `radio/search` has a directory to ask; `isoTime`
    /// formats the sleep timer's end (seconds since 1970).
    public func json(
        stations: [RadioStation], fixed: Set<String> = [], directory: Bool = false, isoTime: (Double) -> String
    ) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        return [
            "playing": .bool(playing),
            "state": .string(phase.rawValue),
            "station": text(station),
            "name": text(name),
            "url": text(url),
            "now_playing": text(nowPlaying),
            "codec": text(codec),
            "bitrate_kbps": bitrateKbps.map { .number(Double($0)) } ?? .null,
            "buffered_s": .number((bufferedSeconds * 10).rounded() / 10),
            "error": text(error),
            "volume": .number(Double(volume)),
            "sleep_timer_ends_at": sleepTimerEndsAt.map { .string(isoTime($0)) } ?? .null,
            "stations": .array(stations.map { station in
                var json = station.json.objectValue ?? [:]
                json["fixed"] = .bool(fixed.contains(station.id))
                return .object(json)
            }),
            "directory": .bool(directory),
        ]
    }
}

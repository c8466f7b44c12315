import NoiseClockHTTP

/// Turns a station's URL into the streams to try, in order (SPEC §15): a playlist is fetched and
/// read at every start (stations move their servers), playlists within playlists up to five
/// levels, each address once (a playlist that names itself ends there); an HLS playlist and a
/// stream are played as they are. Only the start of an answer is read: a stream's headers say it
/// is no playlist, and the fetch stops there.
public struct StationResolver: Sendable {
    public var client: HTTPClient
    public var limits: HTTPLimits

    /// A playlist is small: 64 KiB is hundreds of entries.
    public init(client: HTTPClient = HTTPClient(), limits: HTTPLimits = HTTPLimits(maxBodyBytes: 64 << 10, timeout: .seconds(10))) {
        self.client = client
        self.limits = limits
    }

    /// The stream addresses of `url`, best first; throws when none is left (every entry failed,
    /// a loop, an empty playlist, too deep).
    public func streams(of url: String) async throws(HTTPError) -> [String] {
        var visited: Set<String> = []
        var lastError: HTTPError?
        let found = await resolve(url, depth: 0, visited: &visited, lastError: &lastError)
        guard found.isEmpty else { return found }
        throw lastError ?? HTTPError(.invalid, "\(url): the playlist names no stream")
    }

    /// An address whose ending says it is audio is not fetched first: it is the stream.
    static func looksLikeAudio(_ url: String) -> Bool {
        let path = (url.split(separator: "?").first.map(String.init) ?? url).lowercased()
        return [".mp3", ".aac", ".ogg", ".oga", ".opus", ".flac", ".m4a"].contains { path.hasSuffix($0) }
    }

    private func resolve(_ url: String, depth: Int, visited: inout Set<String>, lastError: inout HTTPError?) async -> [String] {
        guard visited.insert(url).inserted else {
            lastError = HTTPError(.invalid, "\(url): the playlist names itself")
            return []
        }
        if Self.looksLikeAudio(url) { return [url] }
        let response: HTTPResponse
        do {
            response = try await client.fetch(url, limits: limits) { Playlist.mayBePlaylist(contentType: $0, url: url) }
        } catch {
            lastError = error
            return []
        }
        if response.stoppedAtHeaders {
            // A web page where the stream should be (a station's home page instead of its stream).
            if let type = response.contentType?.lowercased(), type.hasPrefix("text/html") || type.hasPrefix("image/") {
                lastError = HTTPError(.invalid, "\(url) is a web page (\(type)), not a stream or a playlist")
                return []
            }
            return [url]
        }
        switch Playlist.parse(String(decoding: response.body, as: UTF8.self), from: response.url) {
        case .stream, .hls:
            return [url]
        case .entries(let entries):
            // `depth` playlists named this one: five levels of playlists are followed, a sixth is not.
            guard depth < Playlist.maxDepth else {
                lastError = HTTPError(.invalid, "\(url): playlists more than \(Playlist.maxDepth) deep")
                return []
            }
            var streams: [String] = []
            for entry in entries {
                for stream in await resolve(entry, depth: depth + 1, visited: &visited, lastError: &lastError) where !streams.contains(stream) {
                    streams.append(stream)
                }
            }
            if streams.isEmpty, lastError == nil { lastError = HTTPError(.invalid, "\(url): the playlist names no stream") }
            return streams
        }
    }
}

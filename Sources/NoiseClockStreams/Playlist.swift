import FoundationEssentials

/// What a station's URL answered, when it is not the audio itself (SPEC §15): a playlist of
/// streams (`.pls`, `.m3u`, `.m3u8` with plain entries), resolved at each start and tried in
/// order, or an HLS playlist (`.m3u8` with segments), which the receiver plays as it is.
public enum Playlist: Sendable, Hashable {
    /// The entries, as absolute http(s) URLs, in order.
    case entries([String])
    /// An HLS media or master playlist: hand the URL itself to the receiver.
    case hls
    /// Not a playlist: the URL is the stream.
    case stream

    /// The most levels of playlists within playlists followed (SPEC §15).
    public static let maxDepth = 5
    /// The most entries kept from one playlist.
    public static let maxEntries = 20

    /// Whether an answer with this content type and URL may be a playlist worth reading (a stream
    /// is never read whole: only a small answer of a playlist's type, or with a playlist's ending).
    public static func mayBePlaylist(contentType: String?, url: String) -> Bool {
        let type = (contentType ?? "").lowercased().split(separator: ";").first.map { trimmed($0) } ?? ""
        if ["audio/x-scpls", "application/pls+xml", "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl",
            "application/vnd.apple.mpegurl", "text/plain"].contains(type) { return true }
        let path = (URL(string: url)?.path ?? url).lowercased()
        return path.hasSuffix(".pls") || path.hasSuffix(".m3u") || path.hasSuffix(".m3u8")
    }

    /// Reads `body`, the answer of `url`: `.pls` (`FileN=`), M3U (one URL a line, `#` lines
    /// ignored) or HLS (`#EXT-X-` tags with segments or variants). Entries are resolved against
    /// `url`; only http and https entries are kept, each once.
    public static func parse(_ body: String, from url: String) -> Playlist {
        let lines = body.split(whereSeparator: \.isNewline).map { trimmed($0) }
        guard let first = lines.first(where: { !$0.isEmpty }) else { return .stream }
        let base = URL(string: url)
        var found: [String] = []
        func add(_ entry: String) {
            guard found.count < maxEntries, let resolved = URL(string: entry, relativeTo: base)?.absoluteURL,
                let scheme = resolved.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else { return }
            let text = resolved.absoluteString
            if !found.contains(text) { found.append(text) }
        }
        if first.lowercased() == "[playlist]" {
            for line in lines {
                guard let equals = line.firstIndex(of: "="), line.lowercased().hasPrefix("file") else { continue }
                add(trimmed(line[line.index(after: equals)...]))
            }
            return .entries(found)
        }
        if lines.contains(where: { $0.hasPrefix("#EXT-X-TARGETDURATION") || $0.hasPrefix("#EXT-X-STREAM-INF") || $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE") }) {
            return .hls
        }
        let isM3U = first.hasPrefix("#EXTM3U") || lines.allSatisfy { $0.isEmpty || $0.hasPrefix("#") || $0.contains("://") || !$0.contains(" ") }
        guard isM3U else { return .stream }
        for line in lines where !line.isEmpty && !line.hasPrefix("#") { add(line) }
        return .entries(found)
    }
}

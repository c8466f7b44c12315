import NoiseClockCore
import NoiseClockHTTP

extension RadioPlayer {
    /// A directory's answer is a list of small objects: 1 MB is thousands of stations.
    nonisolated static let searchLimits = HTTPLimits(maxBodyBytes: 1 << 20, maxRedirects: 5, connectTimeout: .seconds(5), timeout: .seconds(10))

    /// `radio/search` (SPEC §15): asks `radio.directory` (on a thread of the HTTP client, never the
    /// node's) and answers `{"stations":[{"name","url","codec","bitrate_kbps","country","tags"}]}`,
    /// which `radio/station/add` takes as they are. Nothing is stored. Without a directory, or
    /// when it cannot be reached, the answer is `unavailable` and says why.
    func search(_ search: RadioSearch) async throws(CommandError) -> JSONValue {
        let directory = configuration.directory
        guard !directory.isEmpty else {
            throw CommandError(.unavailable, "no station directory is set (radio.directory in the node's file)")
        }
        let response: HTTPResponse
        do {
            response = try await HTTPClient().fetch(search.url(directory: directory), limits: Self.searchLimits)
        } catch {
            logger.warning("radio search failed", metadata: ["directory": "\(directory)", "error": "\(error.message)"])
            throw CommandError(.unavailable, "the station directory \(directory) could not be asked: \(error.message)")
        }
        let found = try search.stations(in: response.body)
        return ["stations": .array(found.map(\.json))]
    }
}

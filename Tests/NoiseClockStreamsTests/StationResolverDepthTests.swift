import Foundation
import NoiseClockHTTP
import NoiseClockStreams
import NoiseClockTestSupport
import Testing

@Suite("The station resolver against nested playlists from a plain HTTP server")
struct StationResolverDepthTests {
    /// A server of the playlists `files` (name and text).
    private func serve(_ files: (FileServer) -> [String: String]) throws -> (FileServer, String) {
        let directory = try makeTemporaryDirectory("resolver")
        let server = try FileServer(directory: directory)
        for (name, text) in files(server) { try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8) }
        return (server, directory)
    }

    @Test("five levels of playlists are followed to their streams, in order; a sixth level is refused")
    func depth() async throws {
        let stream = "http://127.0.0.1:1/stream.mp3", other = "http://127.0.0.1:1/other.mp3"
        let (server, directory) = try serve { server in
            var files = ["1.m3u": server.url("2.m3u") + "\n"]
            for level in 2...5 { files["\(level).m3u"] = server.url("\(level + 1).m3u") + "\n" }
            files["6.m3u"] = "\(stream)\n\(other)\n"
            return files
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await StationResolver().streams(of: server.url("2.m3u")) == [stream, other])
        let error = await #expect(throws: HTTPError.self) { try await StationResolver().streams(of: server.url("1.m3u")) }
        #expect(error?.message == "\(server.url("6.m3u")): playlists more than 5 deep")
    }

    @Test("a playlist that names itself, or one that names another naming it, ends with a clear error")
    func loop() async throws {
        let (server, directory) = try serve { server in
            ["self.pls": "[playlist]\nFile1=\(server.url("self.pls"))\n", "a.m3u": server.url("b.m3u") + "\n", "b.m3u": server.url("a.m3u") + "\n"]
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["self.pls", "a.m3u"] {
            let error = await #expect(throws: HTTPError.self) { try await StationResolver().streams(of: server.url(name)) }
            #expect(error?.message.hasSuffix("the playlist names itself") == true, "\(name): \(String(describing: error))")
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// The threads of a running node are the ones docs/architecture.md lists (*Threads*), and no more:
/// a thread that appears unannounced (a library's pool, a second executor) is a wake-up source
/// nobody measured.
@Suite("The node's threads")
struct ThreadListTests {
    /// The names in `/proc/PID/task/*/comm`, sorted, duplicates kept.
    static func threadNames(_ pid: Int32) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").compactMap { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }.sorted()
    }

    @Test("a connected node that has stored a change runs exactly the threads docs/architecture.md lists; with the face, one more")
    func threadList() async throws {
        let architecture = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/architecture.md").path, encoding: .utf8)
        for face in [false, true] {
            let environment = face
                ? ["NOISECLOCK_FACE_ENABLED": "true", "NOISECLOCK_FACE_PORT": "\(freeLoopbackPort())"]
                : [:]
            try await withNode(environment: environment.merging(["NOISECLOCK_AUDIO_DEVICE": "null"]) { a, _ in a }) { node, process, client in
                #expect(try await client.request(node.topics, "settings", #"{"show_seconds":true}"#)["status"] == "ok")
                // The face's event loop starts once its service does; the store writer with the first write.
                var names: [String] = []
                let expected = Self.expected(face: face)
                for _ in 0..<100 {
                    names = try Self.threadNames(process.pid)
                    if names == expected { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(names == expected, "face \(face)")
                for name in Set(expected) {
                    #expect(architecture.contains("`\(name)`"), "docs/architecture.md names the thread `\(name)`")
                }
            }
        }
    }

    /// The persistent threads of an idle node (the transient ones, "loop decode", "meditations",
    /// "screen", "mqtt connect", come and go with their work). The MQTT connection and the time
    /// source have no thread: they are watched on the executor's event loop.
    static func expected(face: Bool) -> [String] {
        (["noiseclock", "swift executor", "signals", "store writer", "audio output"]
            + (face ? ["face-1-#1"] : [])).sorted()
    }
}

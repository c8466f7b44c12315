import Foundation
import NoiseClockTestSupport
import Testing

/// The scoped helpers must leave nothing running when a test fails half-way (a `#require` throws).
@Suite("Scoped test helpers")
struct ScopeTests {
    struct Planned: Error {}

    @Test("withNode stops the node (SIGTERM, a clean exit) and kills its own broker when the body throws")
    func cleanupAfterThrow() async throws {
        var port: Int?
        var process: ChildProcess?
        do {
            try await withNode { node, started, _ in
                port = node.port
                process = started
                throw Planned()
            }
            Issue.record("withNode did not pass the body's error on")
        } catch is Planned {}

        let stopped = try #require(process)
        #expect(!stopped.isRunning, "the node process was left running")
        #expect(await stopped.waitForExit(timeout: .seconds(1)) == 0, "the node did not stop cleanly; log:\n\(stopped.log)")
        // Nothing listens on the broker's port any more.
        let probe = try await runToEnd("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(try #require(port))", "-t", "probe", "-m", "x"])
        #expect(probe.code != 0, "the broker still answers: \(probe.output)")
    }
}

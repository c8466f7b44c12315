#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Synchronization
import Testing

/// A Unix datagram socket standing in for systemd's notification socket: it keeps every message
/// the node sends, each with when it arrived.
final class NotifySocket: @unchecked Sendable {
    // @unchecked Sendable: `fd` is set once in init; `received` is behind a Mutex.
    let path: String
    let fd: Int32
    let received = Mutex<[(at: ContinuousClock.Instant, text: String)]>([])
    private var reader: Thread?
    /// Signalled by the reader once it has closed the socket: only it closes it, after its last
    /// `recv`, so no `recv` can ever read a number that another socket of the process now holds.
    private let finished = DispatchSemaphore(value: 0)

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !Thread.current.isCancelled {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    let text = String(decoding: buffer[0..<n], as: UTF8.self)
                    received.withLock { $0.append((.now, text)) }
                }
            }
            close(fd)
            finished.signal()
        }
        reader = thread
        thread.start()
    }

    var messages: [String] { received.withLock { $0.map(\.text) } }

    /// Ends the reader (within its 100 ms receive timeout), which closes the socket.
    func stop() {
        reader?.cancel()
        finished.wait()
        if !path.hasPrefix("@") { unlink(path) }
    }
}

@Suite("systemd notification protocol (Type=notify, watchdog)")
struct SystemdNotifyTests {
    @Test("STATUS while connecting, READY=1 once running, STATUS connected once online, WATCHDOG=1 every half WATCHDOG_USEC, STOPPING=1 on SIGTERM")
    func notifyLifecycle() async throws {
        let directory = try makeTemporaryDirectory("notify")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = try NotifySocket(path: "\(directory)/notify.sock")
        defer { socket.stop() }
        // Not withNode, which waits for online: here READY=1 is checked first.
        try await withUnstartedNode(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "600000"]) { node, watcher in
            let process = try node.start()

            #expect(await eventually { socket.messages.contains { $0.hasPrefix("READY=1") } }, "\(socket.messages)")
            let ready = try #require(socket.messages.first { $0.hasPrefix("READY=1") })
            #expect(ready.contains("STATUS=running; connecting to 127.0.0.1:\(node.port)"))
            #expect(socket.messages.first?.hasPrefix("STATUS=connecting") == true, "\(socket.messages)")
            // Once online (the retained state goes out with it), STATUS says connected.
            #expect(await watcher.waitFor(node.topics.availability, timeout: .seconds(10)) { $0.text == "online" } != nil)
            #expect(await watcher.waitFor(node.topics.status, timeout: .seconds(10)) != nil)
            #expect(await eventually { socket.messages.contains("STATUS=connected to 127.0.0.1:\(node.port)") }, "\(socket.messages)")

            // Half of 0.6 s: about every 0.3 s, so 4 to 6 in a window of 1.5 s. The window is what the
            // sleep really took (longer on a loaded machine), and the bound on the count follows it:
            // never more often than every 0.25 s, never a gap of 0.6 s.
            let window = ContinuousClock.now
            try await Task.sleep(for: .seconds(1.5))
            let end = ContinuousClock.now
            let pings = socket.received.withLock { $0.filter { $0.text == "WATCHDOG=1" && $0.at >= window && $0.at <= end }.map(\.at) }
            let most = Int((end - window) / .milliseconds(250)) + 1
            #expect(pings.count >= 3 && pings.count <= most, "\(pings.count) watchdog pings in \(end - window), at most \(most)")
            let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }
            #expect(gaps.allSatisfy { $0 < .milliseconds(600) }, "\(gaps)")

            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
            #expect(socket.messages.contains { $0.hasPrefix("STOPPING=1") })
        }
    }

    @Test("an abstract socket (@name) works too; READY=1 comes without a broker (the node rings without one), and STATUS follows the broker")
    func abstractSocketAndNoBroker() async throws {
        let socket = try NotifySocket(path: "@noiseclock-test-\(UUID().uuidString.prefix(8))")
        defer { socket.stop() }
        try await withBroker { broker in
            await broker.kill()
            let port = broker.port
            try await withStopping(NodeProcess(port: port, environment: ["NOTIFY_SOCKET": socket.path])) { node in
                try node.start()
                #expect(await eventually { socket.messages.contains { $0.hasPrefix("STATUS=connecting to 127.0.0.1:\(port)") } })
                #expect(await eventually { socket.messages.contains { $0.hasPrefix("READY=1\nSTATUS=running; connecting to 127.0.0.1:\(port)") } },
                        "\(socket.messages)")
                #expect(!socket.messages.contains { $0.contains("STATUS=connected") }, "connected without a broker: \(socket.messages)")
                try await broker.start()
                #expect(await eventually(timeout: .seconds(40)) { socket.messages.contains("STATUS=connected to 127.0.0.1:\(port)") },
                        "\(socket.messages)")
            }
        }
    }
}

// A subscriber that stamps each message as it arrives: `mosquitto_sub -F '%U %t %p'`, whose `%U`
// is the wall clock (seconds.nanoseconds) when its network loop read the message. The benchmark's
// accuracy rows (alarms, timers, gongs, a sunrise's lamps) and the tests that time a message
// against the node's clock use it: a Swift client would add its own hop onto a task, and a test
// that notes the time when it looks adds however long it waited to be scheduled, on two cores
// busy with several nodes and a test suite.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NoiseClockCore

public final class StampedSubscriber {
    public struct Stamped: Sendable {
        /// The wall clock (Unix seconds) when the subscriber read it.
        public var received: Double
        public var topic: String
        public var payload: JSONValue
    }

    private let process: ChildProcess
    private let path: String
    private let brokerPort: Int
    /// A topic of its own the subscriber also reads: a marker published there and read back
    /// shows that the subscription is in place, and that everything the broker had before it
    /// has been read.
    private let probe = "noiseclock-test/stamps/\(UInt32.random(in: 0...UInt32.max))"

    public struct NotSubscribed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Subscribes to `topics` and returns once the subscription is in place.
    public init(brokerPort: Int, topics: [String]) async throws {
        self.brokerPort = brokerPort
        path = "\(NSTemporaryDirectory())/noiseclock-bench-stamps-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        process = try ChildProcess(
            "/usr/bin/mosquitto_sub",
            ["-h", "127.0.0.1", "-p", "\(brokerPort)", "-F", "%U %t %p"] + (topics + [probe]).flatMap { ["-t", $0] },
            logPath: path)
        try await readBack()
    }

    /// Lines already handed out by `take`.
    private var taken = 0

    /// The messages received since the last `take`, the subscriber going on: every message the
    /// broker had forwarded before the call (a test that has seen a message through its own
    /// client finds it here).
    public func take() async throws -> [Stamped] {
        try await readBack()
        // Only whole lines: the one being written has no newline yet.
        let lines = process.log.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        defer { taken = lines.count }
        return Self.parse(lines.dropFirst(taken), skipping: probe)
    }

    /// Stops the subscriber, once it has read everything the broker had, and returns every
    /// message not taken yet.
    public func finish() async throws -> [Stamped] {
        try await readBack()
        process.signal(SIGTERM)
        _ = await process.waitForExit(timeout: .seconds(3))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return Self.parse(process.log.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(taken), skipping: probe)
    }

    /// Publishes a fresh marker on the probe topic (again every 200 ms while the subscription may
    /// not be in place yet) until the subscriber has written it down. The broker forwards to one
    /// subscriber in the order it took the messages in, so whatever it had before is read too.
    private func readBack() async throws {
        let marker = "m\(UInt64.random(in: 0...UInt64.max))"
        let deadline = ContinuousClock.now + .seconds(30)
        // At least one try, however late this task resumes.
        repeat {
            _ = try await runToEnd(
                "/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(brokerPort)", "-q", "1", "-t", probe, "-m", marker])
            if await eventually(timeout: .milliseconds(200), { process.log.contains("\(probe) \(marker)\n") }) { return }
        } while ContinuousClock.now < deadline
        throw NotSubscribed(description: "mosquitto_sub on port \(brokerPort) did not read its marker in 30 s; output:\n\(process.log)")
    }

    /// `SECONDS.NANOSECONDS TOPIC PAYLOAD` lines, parsed; a payload that is not JSON is kept as a string.
    private static func parse(_ lines: some Sequence<Substring>, skipping probe: String) -> [Stamped] {
        lines.compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, parts[1] != probe, let received = Double(parts[0]) else { return nil }
            let payload = (try? JSONValue.parse(Array(parts[2].utf8))) ?? .string(String(parts[2]))
            return Stamped(received: received, topic: String(parts[1]), payload: payload)
        }
    }

    /// How late, in milliseconds, each stamped message was against the instant its payload's
    /// `field` names, for the messages `matching` accepts.
    public static func lateness(_ messages: [Stamped], field: String, matching: (Stamped) -> Bool) -> [Double] {
        let iso = ISO8601DateFormatter()
        return messages.filter(matching).compactMap { message in
            guard let due = message.payload[field]?.stringValue.flatMap(iso.date(from:)) else { return nil }
            return (message.received - due.timeIntervalSince1970) * 1000
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

@Suite("Node lifecycle against a real Mosquitto")
struct LifecycleTests {
    @Test("a started node is online with every retained state; SIGTERM publishes offline and exits 0 within 2 s")
    func onlineThenCleanStop() async throws {
        try await withNode { node, process, watcher in
            #expect(await watcher.waitFor(node.topics.availability) { $0.text == "online" } != nil)
            for topic in [node.topics.status, node.topics.settings, node.topics.clock] {
                #expect(await watcher.waitFor(topic) != nil, "no \(topic)")
            }

            watcher.clear()
            process.signal(SIGTERM)
            // A guard, not the measure: how long the stop took is read from the node's own log,
            // which a test process busy starting a hundred others cannot stretch.
            let code = await process.waitForExit(timeout: .seconds(10))
            #expect(code == 0, "exit \(String(describing: code)); log:\n\(process.log)")
            let stamps = Self.stamps(in: process.log, of: ["signal received; stopping", "[NoiseClockNode] stopped"])
            let took = try #require(stamps.count == 2 ? stamps[1].timeIntervalSince(stamps[0]) : nil, "log:\n\(process.log)")
            #expect(took < 2, "from the signal to the stop, to the second")
            #expect(await watcher.waitFor(node.topics.availability) { $0.text == "offline" } != nil)

            // A new subscriber sees the retained offline.
            try await withClient(port: node.port, subscriptions: [node.topics.availability]) { late in
                let retained = await late.waitFor(node.topics.availability)
                #expect(retained?.text == "offline")
                #expect(retained?.retain == true)
            }
        }
    }

    /// The log's time stamps (whole seconds) of the first line containing each of `markers`.
    static func stamps(in log: String, of markers: [String]) -> [Date] {
        let lines = log.split(separator: "\n")
        let format = ISO8601DateFormatter()
        return markers.compactMap { marker in
            lines.first { $0.contains(marker) }.flatMap { line in
                line.split(separator: " ").first.flatMap { format.date(from: String($0)) }
            }
        }
    }

    @Test("kill -9 leaves the broker to publish the will: offline")
    func killNineTriggersWill() async throws {
        try await withNode(subscriptions: { [$0.availability] }) { node, process, watcher in
            #expect(await watcher.waitFor(node.topics.availability) { $0.text == "online" } != nil)
            process.signal(SIGKILL)
            _ = await process.waitForExit(timeout: eventHangGuard)
            let offline = await watcher.waitFor(node.topics.availability, timeout: .seconds(10)) { $0.text == "offline" }
            #expect(offline != nil, "the broker did not publish the will")
        }
    }

    @Test("the retained clock state carries the SPEC fields in the configured zone")
    func retainedClock() async throws {
        try await withNode(environment: ["NOISECLOCK_CLOCK_TIMEZONE": "Asia/Kolkata"], subscriptions: { [$0.clock] }) { node, _, early in
            #expect(await early.waitFor(node.topics.clock) != nil)
            // A subscriber that comes later gets the clock from the broker's retained copy.
            try await withClient(port: node.port, subscriptions: [node.topics.clock]) { watcher in
                let message = try #require(await watcher.waitFor(node.topics.clock))
                #expect(message.retain == true)
                let clock = try JSONValue.parse(message.payload)
                #expect(clock["timezone"] == "Asia/Kolkata")
                #expect(clock["time_format"] == "24h")
                #expect(clock["show_seconds"] == false)
                let iso = try #require(clock["iso"]?.stringValue)
                #expect(iso.hasSuffix("+05:30"))
                let time = try #require(clock["time"]?.stringValue)
                // "HH:MM" and the same hour and minute as the ISO time.
                #expect(time.count == 5)
                #expect(iso.contains("T\(time):"))
                #expect(clock["date"]?.stringValue?.isEmpty == false)
            }
        }
    }

    @Test("a retained command waiting at the broker is not acted on when the node starts")
    func staleRetainedCommandIgnored() async throws {
        try await withUnstartedNode { node, sender in
            sender.publish(node.topics.command("settings"), #"{"time_format":"12h"}"#, retain: true)
            // Retained at the broker before the node starts: the sender's own subscription sees it.
            #expect(await sender.waitFor(node.topics.command("settings")) != nil)
            try node.start()
            let settings = try #require(await sender.waitFor(node.topics.settings))
            // Give the node time to (wrongly) act on the retained command.
            let ping = try await sender.request(node.topics, "ping")
            #expect(ping["status"] == "ok")
            #expect(try JSONValue.parse(settings.payload)["time_format"] == "24h")
            #expect(sender.messages(on: node.topics.response("settings")).isEmpty)
            #expect(sender.messages(on: node.topics.settings).allSatisfy { (try? JSONValue.parse($0.payload)["time_format"]) == "24h" })
        }
    }

    @Test("a command sent the moment online is seen is answered (subscriptions go out before online)")
    func commandRightAfterOnline() async throws {
        try await withUnstartedNode(subscriptions: { [$0.availability, $0.response("ping")] }) { node, client in
            for attempt in 1...5 {
                client.clear()
                let process = try await node.startOnline(seenBy: client, timeout: .seconds(10))
                client.publish(node.topics.command("ping"), "")
                let answer = await client.waitFor(node.topics.response("ping"))
                #expect(answer != nil, "attempt \(attempt): the ping sent right after online was lost")
                process.signal(SIGTERM)
                _ = await process.waitForExit(timeout: eventHangGuard)
            }
        }
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// SPEC §8, storage slow, full or read-only: a real node whose state folder fails under it (the
/// `faultfs` shim), then killed and started again on the same folder without the shim.
@Suite("A state folder that fails: what was answered is what a restart finds (SPEC §8)")
struct StorageFaultTests {
    @Test(
        "answered ok survives kill -9, answered unavailable does not; B/status says so, and the node recovers with the disk",
        arguments: [FaultFS.Fault.directorySync, .full, .readOnly])
    func faultyFolder(_ fault: FaultFS.Fault) async throws {
        let library = try await FaultFS.library()
        let stateDirectory = try makeTemporaryDirectory("state")
        let control = "\(stateDirectory)/../faultfs-\(UUID().uuidString.prefix(6))"
        try FaultFS.set(.none, control: control)
        let environment = FaultFS.environment(library: library, stateDirectory: stateDirectory, control: control)
        try await withNode(stateDirectory: stateDirectory, environment: environment) { node, process, client in
            let kept = try await client.request(node.topics, "alarm/add", #"{"time":"07:00","label":"kept"}"#)
            #expect(kept["status"] == "ok")
            #expect(try await client.request(node.topics, "settings", #"{"time_format":"12h"}"#)["status"] == "ok")

            try FaultFS.set(fault, control: control)
            let refused = try await client.request(node.topics, "alarm/add", #"{"time":"08:00","label":"refused"}"#)
            #expect(refused["status"] == "error")
            #expect(refused["error"]?["code"] == "unavailable")
            let refusedSettings = try await client.request(node.topics, "settings", #"{"time_format":"24h"}"#)
            #expect(refusedSettings["error"]?["code"] == "unavailable")
            let status = await client.waitFor(node.topics.state(StateTopic.status)) {
                (try? JSONValue.parse($0.payload))?["storage"]?["ok"] == false
            }
            #expect(status != nil, "B/status says the state folder cannot be written")
            // Nothing changed in memory either: the node acts on what the disk holds.
            let settings = try await client.request(node.topics, "settings", "{}")
            #expect(settings["data"]?["time_format"] == "12h")
            #expect(try await client.request(node.topics, "ping")["status"] == "ok")

            // The disk works again: so does the node, and B/status says so.
            try FaultFS.set(.none, control: control)
            let after = try await client.request(node.topics, "alarm/add", #"{"time":"09:00","label":"after"}"#)
            #expect(after["status"] == "ok")
            // B/alarms from memory: the refused alarm was never there.
            let alarms = await client.waitFor(node.topics.state(StateTopic.alarms)) {
                (try? JSONValue.parse($0.payload))?.items.count == 2
            }
            #expect(try alarms.map { try JSONValue.parse($0.payload).items.compactMap { $0["label"]?.stringValue } } == ["kept", "after"])
            let recovered = await client.waitFor(node.topics.state(StateTopic.status)) {
                (try? JSONValue.parse($0.payload))?["storage"]?["ok"] == true
            }
            #expect(recovered != nil, "B/status says the state folder works again")

            // A crash, then a start on the same folder without the shim.
            process.signal(SIGKILL)
            _ = await process.waitForExit(timeout: eventHangGuard)
            let restarted = try NodeProcess(port: node.port, nodeID: node.nodeID, stateDirectory: stateDirectory)
            client.clear()
            let running = try await restarted.startOnline(seenBy: client)
            defer { running.signal(SIGKILL) }
            let stored = await client.waitFor(restarted.topics.state(StateTopic.alarms))
            #expect(try stored.map { try JSONValue.parse($0.payload).items.compactMap { $0["label"]?.stringValue } } == ["kept", "after"])
            let restored = try await client.request(restarted.topics, "settings", "{}")
            #expect(restored["data"]?["time_format"] == "12h")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: stateDirectory).filter { $0.contains(".tmp-") }
            #expect(leftovers.isEmpty, "no temporary file left behind")
        }
    }

    @Test("a folder fsync that fails when the old document cannot be read back keeps the new one: every alarm answered ok survives kill -9")
    func unreadableOldDocument() async throws {
        let library = try await FaultFS.library()
        let stateDirectory = try makeTemporaryDirectory("state")
        let control = "\(stateDirectory)/../faultfs-\(UUID().uuidString.prefix(6))"
        try FaultFS.set(.none, control: control)
        let environment = FaultFS.environment(library: library, stateDirectory: stateDirectory, control: control)
        try await withNode(stateDirectory: stateDirectory, environment: environment) { node, process, client in
            for (time, label) in [("06:00", "first"), ("07:00", "second")] {
                let added = try await client.request(node.topics, "alarm/add", #"{"time":"\#(time)","label":"\#(label)"}"#)
                #expect(added["status"] == "ok")
            }

            // The save renames the new document into place, its folder's fsync fails, and the
            // old document cannot be read to be put back.
            try FaultFS.set(.unreadable, control: control)
            let refused = try await client.request(node.topics, "alarm/add", #"{"time":"08:00","label":"refused"}"#)
            #expect(refused["error"]?["code"] == "unavailable")

            process.signal(SIGKILL)
            _ = await process.waitForExit(timeout: eventHangGuard)
            let restarted = try NodeProcess(port: node.port, nodeID: node.nodeID, stateDirectory: stateDirectory)
            client.clear()
            let running = try await restarted.startOnline(seenBy: client)
            defer { running.signal(SIGKILL) }
            let stored = await client.waitFor(restarted.topics.state(StateTopic.alarms))
            let labels = try stored.map { try JSONValue.parse($0.payload).items.compactMap { $0["label"]?.stringValue } } ?? []
            // The refused alarm may be there too: the new document stayed (`FileStore.save`).
            #expect(labels.filter { $0 != "refused" } == ["first", "second"], "the alarms answered ok, found after the restart: \(labels)")
            let files = try FileManager.default.contentsOfDirectory(atPath: stateDirectory)
            #expect(!files.contains { $0.contains(".unreadable-") }, "the restart read the document: \(files)")
        }
    }
}

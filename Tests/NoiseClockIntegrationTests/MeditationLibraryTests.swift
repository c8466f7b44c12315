import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockTestSupport
import Testing

/// `seconds` of a quiet tone as an MP3 at `path` (folders made as needed), tagged with lame's options.
private func makeMP3(_ path: String, seconds: Double = 2, _ tags: [String] = []) async throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let raw = path + ".raw"
    let samples = (0..<Int(seconds * 44_100)).map { Int16(3_000 * sin(2 * .pi * 220 * Double($0) / 44_100)) }
    try samples.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: raw)) }
    defer { try? FileManager.default.removeItem(atPath: raw) }
    let status = try await runLame(["--silent", "-r", "-s", "44.1", "--bitwidth", "16", "--signed", "--little-endian", "-m", "m", "-b", "64"]
        + tags + [raw, path])
    #expect(status == 0)
}

/// Runs lame, waiting for it without holding a thread of the test pool.
private func runLame(_ arguments: [String]) async throws -> Int32 {
    try await runTool("/usr/bin/lame", arguments).code
}

/// Every entry of a `B/meditations` payload, group after group.
private func entries(_ library: JSONValue?) -> [JSONValue] {
    guard case .array(let groups)? = library?["groups"] else { return [] }
    return groups.flatMap { group -> [JSONValue] in
        guard case .array(let items)? = group["items"] else { return [] }
        return items
    }
}

private func entry(_ library: JSONValue?, file: String) -> JSONValue? {
    entries(library).first { $0["file"]?.stringValue == file }
}

@Suite("Guided meditations through a real Mosquitto (SPEC §10)")
struct MeditationLibraryIntegrationTests {
    /// A folder with a tagged file in a teacher's subfolder, an untagged file, a file that is not an
    /// MP3, and a symlink to an MP3 outside the folder; returns the folder.
    func makeLibrary(in directory: String) async throws -> String {
        let folder = "\(directory)/meditations"
        try await makeMP3("\(folder)/tara/body-scan.mp3", seconds: 3, ["--tt", "Body scan", "--ta", "Tara Brach", "--tl", "Practices"])
        try await makeMP3("\(folder)/quiet_sitting.mp3")
        try Data(String(repeating: "no audio here\n", count: 50).utf8).write(to: URL(fileURLWithPath: "\(folder)/broken.mp3"))
        try await makeMP3("\(directory)/private/secret.mp3", ["--tt", "Secret"])
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/escape.mp3", withDestinationPath: "\(directory)/private/secret.mp3")
        return folder
    }

    @Test("B/meditations is retained, grouped by teacher; a symlink out of the folder is not listed; a broken file is, with its error")
    func retainedLibrary() async throws {
        let directory = try makeTemporaryDirectory("meditations")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = try await makeLibrary(in: directory)
        try await withNode(environment: ["NOISECLOCK_MEDITATIONS_DIR": folder]) { node, process, client in
            let topic = node.topics.state(StateTopic.meditations)
            #expect(await client.waitFor(topic) != nil)
            // A client that comes later gets it from the broker, retained.
            try await withClient(port: node.port, subscriptions: [topic]) { late in
                let retained = try #require(await late.waitFor(topic) { $0.retain })
                let library = try JSONValue.parse(retained.payload)
                #expect(library["count"] == 3)
                #expect(library["problem"] == .null)
                guard case .array(let groups)? = library["groups"] else { Issue.record("no groups"); return }
                #expect(groups.map { $0["teacher"] } == ["Tara Brach", ""])
                #expect(Set(entries(library).compactMap { $0["file"]?.stringValue }) == ["tara/body-scan.mp3", "quiet_sitting.mp3", "broken.mp3"])
                #expect(!retained.payload.isEmpty && !String(decoding: retained.payload, as: UTF8.self).contains("Secret"))
                let body = entry(library, file: "tara/body-scan.mp3")
                #expect(body?["name"] == "Body scan")
                #expect(body?["duration_s"] == 3)
                #expect(entry(library, file: "quiet_sitting.mp3")?["name"] == "quiet sitting")
                #expect(entry(library, file: "broken.mp3")?["error"]?.stringValue?.isEmpty == false)
            }
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
        }
    }

    @Test("a rename over MQTT persists across a restart of the node; rescan picks up a new file; an unknown id is not_found")
    func renamePersistsAndRescan() async throws {
        let directory = try makeTemporaryDirectory("meditations-edit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = try await makeLibrary(in: directory)
        let environment = ["NOISECLOCK_MEDITATIONS_DIR": folder]
        try await withNode(environment: environment) { node, process, client in
            let topic = node.topics.state(StateTopic.meditations)
            let first = try #require(await client.waitFor(topic))
            let id = try #require(entry(try JSONValue.parse(first.payload), file: "tara/body-scan.mp3")?["id"]?.stringValue)

            let edited = try await client.request(node.topics, "meditation/edit", #"{"id":"\#(id)","name":"Evening scan","teacher":"T. Brach"}"#)
            #expect(edited["status"] == "ok")
            #expect(edited["data"]?["name"] == "Evening scan")
            let renamed = await client.latest(topic) { entry($0, file: "tara/body-scan.mp3")?["name"] == "Evening scan" }
            #expect(entry(renamed, file: "tara/body-scan.mp3")?["teacher"] == "T. Brach")
            let unknown = try await client.request(node.topics, "meditation/edit", #"{"id":"gggggggggggg","name":"x"}"#)
            #expect(unknown["error"]?["code"] == "not_found")
            #expect(unknown["error"]?["field"] == "id")

            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
            let restarted = try NodeProcess(port: node.port, nodeID: node.nodeID, stateDirectory: node.stateDirectory, environment: environment)
            client.clear()
            try await withStopping(restarted) { restarted in
                let process = try await restarted.startOnline(seenBy: client)
                let library = await client.latest(topic) { !entries($0).isEmpty }
                #expect(entry(library, file: "tara/body-scan.mp3")?["name"] == "Evening scan")
                #expect(entry(library, file: "tara/body-scan.mp3")?["id"] == .string(id))

                try await makeMP3("\(folder)/tara/new-one.mp3", ["--tt", "Loving kindness", "--ta", "Tara Brach"])
                let rescanned = try await client.request(node.topics, "meditation/rescan")
                #expect(rescanned["data"]?["count"] == 4)
                #expect(entry(rescanned["data"], file: "tara/new-one.mp3")?["name"] == "Loving kindness")
                let published = await client.latest(topic) { $0["count"] == 4 }
                #expect(entry(published, file: "tara/new-one.mp3") != nil)
                // The rename is still applied after the rescan.
                #expect(entry(published, file: "tara/body-scan.mp3")?["name"] == "Evening scan")
                process.signal(SIGTERM)
                #expect(await process.waitForExit(timeout: eventHangGuard) == 0)
            }
        }
    }

    @Test("a missing folder: the node runs, B/meditations is empty and names the problem")
    func missingFolder() async throws {
        let directory = try makeTemporaryDirectory("meditations-missing")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withNode(environment: ["NOISECLOCK_MEDITATIONS_DIR": "\(directory)/nowhere"]) { node, process, client in
            let library = await client.latest(node.topics.state(StateTopic.meditations)) { _ in true }
            #expect(library?["count"] == 0)
            #expect(library?["problem"]?.stringValue?.contains("\(directory)/nowhere") == true)
            let ping = try await client.request(node.topics, "ping")
            #expect(ping["status"] == "ok")
            #expect(process.isRunning)
        }
    }
}

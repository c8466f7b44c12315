import Foundation
import NoiseClockTestSupport
import NoiseClockCore
import NoiseClockHub
import Synchronization
import Testing

@testable import NoiseClockNode

/// Encodes `seconds` of a quiet tone to `path` (folders made as needed) with lame and its tag options.
func makeMeditationMP3(_ path: String, seconds: Double = 2, title: String? = nil, artist: String? = nil) async throws {
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let raw = path + ".raw"
    let samples = (0..<Int(seconds * 44_100)).map { Int16(4_000 * sin(2 * .pi * 330 * Double($0) / 44_100)) }
    try samples.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: raw)) }
    defer { try? FileManager.default.removeItem(atPath: raw) }
    // Waited for without holding a thread of the test pool.
    let (code, output) = try await runTool(
        "/usr/bin/lame",
        ["--silent", "-r", "-s", "44.1", "--bitwidth", "16", "--signed", "--little-endian", "-m", "m", "-b", "64"]
            + (title.map { ["--tt", $0] } ?? []) + (artist.map { ["--ta", $0] } ?? []) + [raw, path])
    #expect(code == 0, "lame: \(output)")
}

/// 64-bit FNV-1a, written here from its definition, to check the ids against.
private func fnv1a(_ text: String) -> UInt64 {
    text.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
}

/// A library over `directory` with its own hub, whose `B/meditations` the test reads.
struct LibraryFixture {
    let hub = StateHub()
    let store: any Store
    let logs = LogRecorder()
    let library: MeditationLibrary

    init(_ directory: String, store: any Store = InMemoryStore()) {
        self.store = store
        library = MeditationLibrary(directory: directory, store: store, hub: hub, logger: logs.logger())
    }

    var published: JSONValue? { hub.snapshot.first { $0.topic == StateTopic.meditations }?.value }
}

extension JSONValue {
    var groups: [JSONValue] { self["groups"]?.items ?? [] }
    /// Every entry of `B/meditations`, group after group.
    var meditations: [JSONValue] { groups.flatMap { $0["items"]?.items ?? [] } }

    func item(file: String) -> JSONValue? { meditations.first { $0["file"]?.stringValue == file } }
}

@Suite("The guided meditation library (SPEC §10)")
struct MeditationLibraryTests {
    /// Two teachers in subfolders, an untagged file at the top, an undecodable file, and things
    /// that are not listed: a text file, a hidden file, a file two folders deep.
    func makeFolder(_ d: TemporaryDirectory) async throws {
        try await makeMeditationMP3(d.file("tara/body-scan.mp3"), seconds: 3, title: "Body scan", artist: "Tara Brach")
        try await makeMeditationMP3(d.file("tara/Breath.MP3"), seconds: 2, title: "awareness of breath", artist: "Tara Brach")
        try await makeMeditationMP3(d.file("alan/morning.mp3"), seconds: 2, title: "Morning", artist: "alan watts")
        try await makeMeditationMP3(d.file("evening_calm-down.mp3"), seconds: 4)
        try d.write("broken.mp3", String(repeating: "this is no audio\n", count: 100))
        try d.write("notes.txt", "not a meditation")
        try await makeMeditationMP3(d.file(".hidden.mp3"))
        try await makeMeditationMP3(d.file("tara/deeper/too-deep.mp3"))
    }

    @Test("a scan lists the .mp3 files by teacher and name, with lengths and files; B/meditations holds the same")
    func scan() async throws {
        try await withTemporaryDirectory { d in
            try await makeFolder(d)
            let f = LibraryFixture(d.path)
            let json = await f.library.rescan()
            #expect(f.published == json)
            #expect(await f.library.json == json)
            #expect(json["count"] == 5)
            #expect(json["problem"] == .null)
            #expect(json.groups.map { $0["teacher"]?.stringValue } == ["alan watts", "Tara Brach", ""])
            #expect(json.groups.map { ($0["items"]?.items ?? []).map { $0["file"]?.stringValue ?? "" } } == [
                ["alan/morning.mp3"], ["tara/Breath.MP3", "tara/body-scan.mp3"], ["broken.mp3", "evening_calm-down.mp3"],
            ])
            let body = try #require(json.item(file: "tara/body-scan.mp3"))
            #expect(body["name"] == "Body scan")
            #expect(body["teacher"] == "Tara Brach")
            #expect(body["duration_s"] == 3)
            #expect(body["error"] == .null)
            let untagged = try #require(json.item(file: "evening_calm-down.mp3"))
            #expect(untagged["name"] == "evening calm down")
            #expect(untagged["teacher"] == "")
            #expect(untagged["duration_s"] == 4)
            let broken = try #require(json.item(file: "broken.mp3"))
            #expect(broken["error"]?.stringValue?.isEmpty == false)
            #expect(f.logs.entries.contains { $0.level == .warning && $0.metadata["file"] == "broken.mp3" })
        }
    }

    @Test("ids: 12 characters from FNV-1a of the relative path, a letter first, the same in a new library and after a retag")
    func ids() async throws {
        try await withTemporaryDirectory { d in
            try await makeFolder(d)
            let first = await LibraryFixture(d.path).library.rescan()
            for item in first.meditations {
                let id = try #require(item["id"]?.stringValue)
                let file = try #require(item["file"]?.stringValue)
                #expect(id.count == 12)
                #expect(id.first?.isLetter == true, "\(id)")
                #expect((try? JSONValue.parse(Array(id.utf8))) == nil, "\(id) parses as JSON")
                let hex = String(fnv1a(file) >> 16, radix: 16)
                let padded = String(repeating: "0", count: 12 - hex.count) + hex
                #expect(id.dropFirst() == padded.dropFirst(), "\(id) for \(file)")
            }
            #expect(Set(first.meditations.compactMap { $0["id"]?.stringValue }).count == 5)
            try await makeMeditationMP3(d.file("tara/body-scan.mp3"), seconds: 2, title: "Retagged", artist: "Someone")
            let second = await LibraryFixture(d.path).library.rescan()
            #expect(second.item(file: "tara/body-scan.mp3")?["id"] == first.item(file: "tara/body-scan.mp3")?["id"])
            #expect(second.item(file: "tara/body-scan.mp3")?["name"] == "Retagged")
        }
    }

    @Test("item: the real path of a playable entry; not_found for an unknown id, unavailable for a broken file")
    func item() async throws {
        try await withTemporaryDirectory { d in
            try await makeFolder(d)
            let f = LibraryFixture(d.path)
            let json = await f.library.rescan()
            let id = try #require(json.item(file: "tara/body-scan.mp3")?["id"]?.stringValue)
            let item = try await f.library.item(id)
            #expect(item.path == URL(fileURLWithPath: d.file("tara/body-scan.mp3")).resolvingSymlinksInPath().path)
            #expect(item.name == "Body scan" && item.teacher == "Tara Brach")
            #expect(abs(item.durationSeconds - 3) < 0.001)
            await #expect(throws: CommandError(.notFound, "no guided meditation with id \"gggggggggggg\"", field: "id")) {
                try await f.library.item("gggggggggggg")
            }
            let brokenID = try #require(json.item(file: "broken.mp3")?["id"]?.stringValue)
            do throws(CommandError) {
                _ = try await f.library.item(brokenID)
                Issue.record("a broken file was offered for playing")
            } catch {
                #expect(error.code == .unavailable)
                #expect(error.field == "id")
            }
        }
    }

    @Test("symlinks: a file or folder that leads out of the folder is not listed; one inside is, once")
    func symlinks() async throws {
        try await withTemporaryDirectory { d in
            try await makeMeditationMP3(d.file("inside/real.mp3"), title: "Real")
            try await makeMeditationMP3(d.file("outside/secret.mp3"), title: "Secret")
            let root = d.file("inside")
            try FileManager.default.createSymbolicLink(atPath: "\(root)/escape.mp3", withDestinationPath: d.file("outside/secret.mp3"))
            try FileManager.default.createSymbolicLink(atPath: "\(root)/away", withDestinationPath: d.file("outside"))
            try FileManager.default.createSymbolicLink(atPath: "\(root)/zz-alias.mp3", withDestinationPath: "\(root)/real.mp3")
            let json = await LibraryFixture(root).library.rescan()
            #expect(json.meditations.map { $0["file"]?.stringValue } == ["real.mp3"])
            #expect(!json.serialized.contains("Secret"))
        }
    }

    @Test("no folder configured: an empty library; a missing folder or a file: empty, with the problem said and logged")
    func folderProblems() async throws {
        try await withTemporaryDirectory { d in
            let none = await LibraryFixture("").library.rescan()
            #expect(none["count"] == 0 && none["problem"] == .null && none.groups.isEmpty)
            let missing = LibraryFixture(d.file("nowhere"))
            let json = await missing.library.rescan()
            #expect(json["count"] == 0)
            #expect(json["problem"]?.stringValue?.contains(d.file("nowhere")) == true)
            #expect(missing.logs.entries.contains { $0.level == .error })
            try d.write("file", "x")
            let file = await LibraryFixture(d.file("file")).library.rescan()
            #expect(file["problem"]?.stringValue?.contains("not a folder") == true)
        }
    }

    @Test("a rescan picks up a new file and drops a removed one")
    func rescan() async throws {
        try await withTemporaryDirectory { d in
            try await makeMeditationMP3(d.file("one.mp3"), title: "One")
            let f = LibraryFixture(d.path)
            #expect(await f.library.rescan().meditations.map { $0["name"] } == ["One"])
            try await makeMeditationMP3(d.file("two.mp3"), title: "Two")
            try FileManager.default.removeItem(atPath: d.file("one.mp3"))
            let json = await f.library.rescan()
            #expect(json.meditations.map { $0["name"] } == ["Two"])
            #expect(f.published == json)
        }
    }

    @Test("scans asked for together run one after the other, and each answers the whole folder")
    func concurrentScans() async throws {
        try await withTemporaryDirectory { d in
            try await makeFolder(d)
            let f = LibraryFixture(d.path)
            async let a = f.library.rescan()
            async let b = f.library.rescan()
            async let c = f.library.rescan()
            let all = await [a, b, c]
            #expect(all.allSatisfy { $0["count"] == 5 })
        }
    }
}

@Suite("Renaming guided meditations: meditation/edit and meditation/rescan")
struct MeditationEditTests {
    /// A node whose `meditations.dir` holds one tagged file (Tara Brach's body scan) and one untagged.
    func node(_ d: TemporaryDirectory, store: InMemoryStore = InMemoryStore()) async throws -> (NodeFixture, bodyScan: String, plain: String) {
        try await makeMeditationMP3(d.file("media/body-scan.mp3"), title: "Body scan", artist: "Tara Brach")
        try await makeMeditationMP3(d.file("media/plain.mp3"))
        let f = try NodeFixture(configuration: ["meditations.dir": d.file("media")], store: store)
        let json = await f.node.meditations.rescan()
        return (f, try #require(json.item(file: "body-scan.mp3")?["id"]?.stringValue), try #require(json.item(file: "plain.mp3")?["id"]?.stringValue))
    }

    func published(_ f: NodeFixture) throws -> JSONValue? {
        try f.transport.published.last { $0.topic == f.topics.state(StateTopic.meditations) }.map { try JSONValue.parse($0.payload) }
    }

    @Test("a rename is stored, published and answered; it survives a new node on the same store; the file is untouched")
    func rename() async throws {
        try await withTemporaryDirectory { d in
            let store = InMemoryStore()
            let (f, id, _) = try await node(d, store: store)
            let before = try #require(FileManager.default.contents(atPath: d.file("media/body-scan.mp3")))
            let answer = await f.respond("meditation/edit", #"{"id":"\#(id)","name":"  Evening body scan ","teacher":"Tara"}"#)
            #expect(answer.data?["name"] == "Evening body scan")
            #expect(answer.data?["teacher"] == "Tara")
            #expect(answer.data?["file"] == "body-scan.mp3")
            let state = try #require(try published(f))
            #expect(state.groups.map { $0["teacher"] } == ["Tara", ""])
            #expect(state.item(file: "body-scan.mp3")?["name"] == "Evening body scan")
            #expect(store.document(MeditationLibrary.documentName)?["renames"]?[id]?["name"] == "Evening body scan")
            #expect(FileManager.default.contents(atPath: d.file("media/body-scan.mp3")) == before)
            let item = try await f.node.meditations.item(id)
            #expect(item.name == "Evening body scan")

            let again = try NodeFixture(configuration: ["meditations.dir": d.file("media")], store: store)
            let json = await again.node.meditations.rescan()
            #expect(json.item(file: "body-scan.mp3")?["name"] == "Evening body scan")
            #expect(json.item(file: "body-scan.mp3")?["teacher"] == "Tara")
        }
    }

    @Test("an empty string or null resets to the tag's value (or the file name); a field not sent is kept")
    func reset() async throws {
        try await withTemporaryDirectory { d in
            let (f, id, plain) = try await node(d)
            _ = await f.respond("meditation/edit", #"{"id":"\#(id)","name":"A","teacher":"B"}"#)
            let name = await f.respond("meditation/edit", #"{"id":"\#(id)","name":""}"#)
            #expect(name.data?["name"] == "Body scan")
            #expect(name.data?["teacher"] == "B")
            let teacher = await f.respond("meditation/edit", #"{"id":"\#(id)","teacher":null}"#)
            #expect(teacher.data?["teacher"] == "Tara Brach")
            #expect(f.store.document(MeditationLibrary.documentName)?["renames"]?[id] == nil)
            let untagged = await f.respond("meditation/edit", #"{"id":"\#(plain)","name":"Quiet","teacher":"Me"}"#)
            #expect(untagged.data?["name"] == "Quiet")
            let back = await f.respond("meditation/edit", #"{"id":"\#(plain)","name":null,"teacher":""}"#)
            #expect(back.data?["name"] == "plain")
            #expect(back.data?["teacher"] == "")
        }
    }

    @Test("bad edits are refused naming the field, and change nothing")
    func badEdits() async throws {
        try await withTemporaryDirectory { d in
            let (f, id, _) = try await node(d)
            let cases: [(payload: String, code: CommandError.Code, field: String)] = [
                (#"{"name":"x"}"#, .invalidField, "id"),
                (#"{"id":"\#(id)"}"#, .invalidField, "name"),
                (#"{"id":"\#(id)","name":"\#(String(repeating: "n", count: 81))"}"#, .invalidField, "name"),
                (#"{"id":"\#(id)","teacher":"\#(String(repeating: "t", count: 81))"}"#, .invalidField, "teacher"),
                (#"{"id":"\#(id)","teacher":5}"#, .invalidField, "teacher"),
                (#"{"id":"\#(id)","name":"two\nlines"}"#, .invalidField, "name"),
                (#"{"id":"\#(id)","name":"x","album":"y"}"#, .invalidField, "album"),
                (#"{"id":"gggggggggggg","name":"x"}"#, .notFound, "id"),
                (id, .invalidJSON, "payload"),
            ]
            let published = f.transport.published.count
            for (payload, code, field) in cases {
                let answer = await f.respond("meditation/edit", payload)
                #expect(answer.error?.code == code, "\(payload): \(answer.json.serialized)")
                #expect(answer.error?.field == field, "\(payload): \(answer.json.serialized)")
            }
            #expect(f.store.saves == 0)
            #expect(f.transport.published.count == published)
            // 80 characters are allowed.
            let longest = await f.respond("meditation/edit", #"{"id":"\#(id)","name":"\#(String(repeating: "é", count: 80))"}"#)
            #expect(longest.isOK)
        }
    }

    @Test("a rename that cannot be stored is unavailable and changes nothing")
    func storeFails() async throws {
        try await withTemporaryDirectory { d in
            try await makeMeditationMP3(d.file("one.mp3"), title: "One")
            let f = LibraryFixture(d.path, store: FailingStore())
            let json = await f.library.rescan()
            let id = try #require(json.meditations.first?["id"]?.stringValue)
            do throws(CommandError) {
                _ = try await f.library.edit(id: id, name: "Two", teacher: nil)
                Issue.record("the rename was accepted")
            } catch {
                #expect(error.code == .unavailable)
            }
            #expect(await f.library.json == json)
            #expect(try await f.library.item(id).name == "One")
        }
    }

    @Test("an unusable meditations.json is moved aside and said so in B/meditations")
    func unusableStore() async throws {
        try await withTemporaryDirectory { d in
            let store = InMemoryStore([MeditationLibrary.documentName: ["something": "else"]])
            let f = LibraryFixture(d.path, store: store)
            let json = await f.library.rescan()
            #expect(json["problem"]?.stringValue?.contains(MeditationLibrary.documentName) == true)
            #expect(store.document(MeditationLibrary.documentName) == nil)
        }
    }

    @Test("meditation/rescan answers the library; it takes no argument")
    func rescanVerb() async throws {
        try await withTemporaryDirectory { d in
            let (f, _, _) = try await node(d)
            try await makeMeditationMP3(d.file("media/new.mp3"), title: "New")
            let answer = await f.respond("meditation/rescan", "PRESS")
            #expect(answer.data?["count"] == 3)
            #expect(answer.data?.item(file: "new.mp3")?["name"] == "New")
            #expect(try published(f) == answer.data)
            #expect(await f.respond("meditation/rescan", #"{"full":true}"#).error?.field == "full")
        }
    }

    @Test("the service scans once at start, then sleeps until it is stopped")
    func service() async throws {
        try await withTemporaryDirectory { d in
            try await makeMeditationMP3(d.file("one.mp3"), title: "One")
            let f = LibraryFixture(d.path)
            let service = MeditationLibraryService(library: f.library)
            try await whileRunning({ await service.run() }) {
                // The scan runs on a thread of its own; on a loaded machine (the whole suite in parallel) it can take seconds.
                #expect(await eventually(timeout: .seconds(30)) { f.published?["count"] == 1 })
            }
        }
    }
}

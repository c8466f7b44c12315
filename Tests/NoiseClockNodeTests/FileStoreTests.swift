import Foundation
import NoiseClockCore
import Testing

@testable import NoiseClockNode

@Suite("FileStore")
struct FileStoreTests {
    let document: JSONValue = ["time_format": "12h", "show_seconds": true, "volume": 55]

    @Test("a saved document loads back equal")
    func saveThenLoad() async throws {
        try await withTemporaryDirectory { directory in
            let store = try FileStore(directory: directory.path)
            try store.save("settings.json", document)
            #expect(store.load("settings.json") == .value(document))
            // A second store on the same folder (a restart) reads the same document.
            #expect(try FileStore(directory: directory.path).load("settings.json") == .value(document))
        }
    }

    @Test("a document never saved loads as missing")
    func missingDocument() async throws {
        try await withTemporaryDirectory { directory in
            let store = try FileStore(directory: directory.path)
            #expect(store.load("alarms.json") == .missing)
        }
    }

    @Test("the store creates its folder when it does not exist yet")
    func createsFolder() async throws {
        try await withTemporaryDirectory { directory in
            let nested = directory.file("state/noiseclock")
            let store = try FileStore(directory: nested)
            try store.save("settings.json", document)
            #expect(FileManager.default.fileExists(atPath: "\(nested)/settings.json"))
        }
    }

    @Test("a save replaces the file with exactly the new content and leaves no temporary file")
    func saveReplacesFile() async throws {
        try await withTemporaryDirectory { directory in
            let store = try FileStore(directory: directory.path)
            try store.save("settings.json", ["time_format": "24h"])
            try store.save("settings.json", document)
            #expect(directory.bytes("settings.json") == document.serializedBytes + Array("\n".utf8))
            #expect(try directory.contents() == ["settings.json"])
        }
    }

    @Test("a temporary file left by a crash is removed at start and the old file still loads")
    func leftoverTemporaryFileRemoved() async throws {
        try await withTemporaryDirectory { directory in
            try directory.write("settings.json", document.serialized)
            try directory.write(".settings.json.tmp-123", "{\"time_format\":")
            let store = try FileStore(directory: directory.path)
            #expect(try directory.contents() == ["settings.json"])
            #expect(store.load("settings.json") == .value(document))
        }
    }

    @Test("a corrupt file is moved aside byte for byte and reported, not overwritten")
    func corruptFileMovedAside() async throws {
        try await withTemporaryDirectory { directory in
            let garbage: [UInt8] = [0x7B, 0x22, 0xFF, 0x00, 0xFE, 0x13, 0x37, 0x0A, 0x80]
            try directory.write("settings.json", garbage)
            let store = try FileStore(directory: directory.path)

            let loaded = store.load("settings.json")

            guard case .movedAside(let movedTo, let reason) = loaded else {
                Issue.record("expected .movedAside, got \(loaded)")
                return
            }
            #expect(!reason.isEmpty)
            let files = try directory.contents()
            #expect(files.count == 1)
            let aside = try #require(files.first)
            #expect(aside.hasPrefix("settings.json.unreadable-"))
            #expect(movedTo == directory.file(aside))
            #expect(directory.bytes(aside) == garbage)
        }
    }

    @Test("after a corrupt load, a save writes a new file and leaves the moved-aside file untouched")
    func saveAfterCorruptLoad() async throws {
        try await withTemporaryDirectory { directory in
            let garbage = Array("not json at all \u{1}".utf8)
            try directory.write("settings.json", garbage)
            let store = try FileStore(directory: directory.path)
            guard case .movedAside(let movedTo, _) = store.load("settings.json") else {
                Issue.record("the corrupt file was not moved aside")
                return
            }

            try store.save("settings.json", document)

            #expect(store.load("settings.json") == .value(document))
            #expect(FileManager.default.contents(atPath: movedTo).map { Array($0) } == garbage)
            #expect(try directory.contents().count == 2)
        }
    }

    @Test("two corrupt files moved aside in the same second keep distinct names")
    func moveAsideTwice() async throws {
        try await withTemporaryDirectory { directory in
            let store = try FileStore(directory: directory.path)
            try directory.write("settings.json", "first")
            let first = store.load("settings.json")
            try directory.write("settings.json", "second")
            let second = store.load("settings.json")
            guard case .movedAside(let firstPath, _) = first, case .movedAside(let secondPath, _) = second else {
                Issue.record("expected both loads to move the file aside: \(first), \(second)")
                return
            }
            #expect(firstPath != secondPath)
            #expect(FileManager.default.contents(atPath: firstPath) == Data("first".utf8))
            #expect(FileManager.default.contents(atPath: secondPath) == Data("second".utf8))
        }
    }

    @Test("a save that cannot be written throws StoreError and leaves the previous file intact")
    func unwritableSave() async throws {
        try await withTemporaryDirectory { directory in
            // The store lives behind a symlink; pointing it at a regular file makes every write
            // fail (ENOTDIR), even for root, who ignores permission bits.
            let real = directory.file("real"), link = directory.file("store"), plainFile = directory.file("plain")
            try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
            try directory.write("plain", "not a folder")
            #expect(symlink(real, link) == 0)
            let store = try FileStore(directory: link)
            let previous: JSONValue = ["time_format": "24h"]
            try store.save("settings.json", previous)
            let previousBytes = FileManager.default.contents(atPath: "\(real)/settings.json")

            unlink(link)
            #expect(symlink(plainFile, link) == 0)
            #expect(throws: StoreError.self) { try store.save("settings.json", document) }
            unlink(link)
            #expect(symlink(real, link) == 0)

            #expect(FileManager.default.contents(atPath: "\(real)/settings.json") == previousBytes)
            #expect(store.load("settings.json") == .value(previous))
            #expect(try FileManager.default.contentsOfDirectory(atPath: real) == ["settings.json"])
        }
    }

    @Test("a state folder below a regular file cannot be created and the error names it")
    func folderBelowRegularFile() async throws {
        try await withTemporaryDirectory { directory in
            try directory.write("not-a-folder", "x")
            let target = directory.file("not-a-folder/state")
            let error = #expect(throws: StoreError.self) { _ = try FileStore(directory: target) }
            #expect(error?.path == target)
            #expect(error?.operation == "create")
        }
    }
}

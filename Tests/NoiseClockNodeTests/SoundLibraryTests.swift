import Foundation
import NoiseClockCore
import Testing

@testable import NoiseClockNode

/// The checkout's `Resources` folder (the real catalogs and sound files), found from this file's path.
let packageResources: String = {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // NoiseClockNodeTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package root
        .appendingPathComponent("Resources").path
}()

/// The real catalog, loaded once per call (loading is cheap: it reads three JSON files).
func realLibrary(customDirectory: String = "") throws -> SoundLibrary {
    try SoundLibrary.load(resources: packageResources, customDirectory: customDirectory)
}

@Suite("Sound library")
struct SoundLibraryTests {
    // MARK: The real catalogs

    @Test("the real catalogs load, and every sound's file resolves inside its folder and is under 1 MB (a gong under 300 kB)")
    func realCatalogFiles() throws {
        let library = try realLibrary()
        #expect(!library.catalog.sounds.isEmpty)
        for sound in library.catalog.sounds {
            let path = try library.path(of: sound)
            let folder = switch sound.kind {
            case .noise: "sounds"
            case .alarm: "alarm-sounds"
            case .gong: "gongs"
            }
            #expect(path.hasSuffix("/Resources/\(folder)/\(sound.file)"), "\(sound.id): \(path)")
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue
            #expect(size > 0, "\(sound.id) is empty")
            #expect(size < (sound.kind == .gong ? 300_000 : 1_000_000), "\(sound.id) is \(size) bytes")
        }
    }

    @Test("the noise catalog has the sounds SPEC §4 asks for")
    func noiseSounds() throws {
        let library = try realLibrary()
        let ids = Set(library.catalog.sounds(of: .noise).map(\.id))
        for id in ["white-noise", "heavy-rain-white-noise", "fan-white-noise-heater", "pink-noise", "brown-noise"] {
            #expect(ids.contains(id), "missing noise \(id)")
        }
    }

    @Test("the alarm catalog has the tones SPEC §4 asks for")
    func alarmTones() throws {
        let library = try realLibrary()
        let ids = Set(library.catalog.sounds(of: .alarm).map(\.id))
        for id in ["digital-alarm", "classic-alarm", "beep-alarm", "siren-alarm", "buzzing-alarm"] {
            #expect(ids.contains(id), "missing alarm tone \(id)")
        }
    }

    @Test("the gong catalog has the singing bowl (the default gong), the soft bell, and the timer chime in category timer")
    func gongs() throws {
        let library = try realLibrary()
        let gongs = library.catalog.sounds(of: .gong)
        #expect(gongs.map(\.id) == ["singing-bowl", "soft-bell", "timer-chime"])
        #expect(gongs.map(\.category) == ["gong", "gong", "timer"])
        #expect(library.catalog.defaultSound(of: .gong)?.id == "singing-bowl")
        #expect(gongs.allSatisfy { !$0.description.isEmpty })
        #expect(try library.sound("Singing bowl", field: "gong", kind: .gong).id == "singing-bowl")
        #expect(try library.sound("timer-chime", field: "sound", kind: .gong).category == "timer")
    }

    @Test("each catalog marks exactly one default, of its own kind")
    func oneDefaultEach() throws {
        let library = try realLibrary()
        for kind in [Sound.Kind.noise, .alarm, .gong] {
            let defaults = library.catalog.sounds(of: kind).filter(\.isDefault)
            #expect(defaults.count == 1, "\(kind)")
            #expect(library.catalog.defaultSound(of: kind) == defaults.first)
        }
    }

    @Test("every sound has a name, and no two sounds share an id or a name")
    func uniqueNames() throws {
        let sounds = try realLibrary().catalog.sounds
        #expect(Set(sounds.map(\.id)).count == sounds.count)
        #expect(Set(sounds.map { $0.name.lowercased() }).count == sounds.count)
        #expect(sounds.allSatisfy { !$0.name.isEmpty })
    }

    // MARK: sounds.custom_dir

    @Test("MP3 files of sounds.custom_dir join the catalog as noise in category custom; other files do not")
    func customDirectory() async throws {
        try await withTemporaryDirectory { custom in
            try FileManager.default.copyItem(atPath: "\(packageResources)/sounds/white-noise.mp3", toPath: custom.file("My Song.mp3"))
            try FileManager.default.copyItem(atPath: "\(packageResources)/sounds/pink-noise.mp3", toPath: custom.file("LOUD.MP3"))
            try custom.write("notes.txt", "not a sound")
            try custom.write(".hidden.mp3", "hidden")

            let library = try realLibrary(customDirectory: custom.path)
            let customSounds = library.catalog.sounds.filter { $0.category == "custom" }

            #expect(Set(customSounds.map(\.name)) == ["My Song", "LOUD"])
            #expect(customSounds.allSatisfy { $0.kind == .noise })
            let song = try #require(library.catalog.sound(named: "my song"))
            #expect(song.category == "custom")
            #expect(SoundCatalog.isPlainName(song.id))
            let path = try library.path(of: song)
            #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: custom.file("My Song.mp3")))
            // The catalog's own sounds are still there.
            #expect(library.catalog.sound(named: "white-noise")?.category == "noise")
            #expect(library.catalog.sounds.count == (try realLibrary()).catalog.sounds.count + 2)
        }
    }

    @Test("an MP3 symlink in sounds.custom_dir that points out of it is not_found")
    func customSymlinkOut() async throws {
        try await withTemporaryDirectory { custom in
            try await withTemporaryDirectory { outside in
                try outside.write("secret.mp3", "secret")
                try FileManager.default.createSymbolicLink(atPath: custom.file("escape.mp3"), withDestinationPath: "/etc/passwd")
                try FileManager.default.createSymbolicLink(atPath: custom.file("sneak.mp3"), withDestinationPath: outside.file("secret.mp3"))
                let library = try realLibrary(customDirectory: custom.path)
                for name in ["escape", "sneak"] {
                    let sound = try #require(library.catalog.sound(named: name))
                    let error = #expect(throws: CommandError.self) { try library.path(of: sound) }
                    #expect(error?.code == .notFound, "\(name)")
                    #expect(error?.field == "sound")
                }
            }
        }
    }

    @Test("an empty or missing sounds.custom_dir adds nothing")
    func noCustomDirectory() throws {
        let plain = try realLibrary()
        let missing = try realLibrary(customDirectory: "/nonexistent/noiseclock-custom")
        #expect(missing.catalog == plain.catalog)
        #expect(!plain.catalog.sounds.contains { $0.category == "custom" })
    }

    // MARK: Path escapes

    static let oneGong = #"[{"id": "bowl", "name": "Bowl", "file": "bowl.mp3", "category": "gong", "default": true}]"#

    /// A resources folder with one alarm tone, the given noise entries and the given gong entries;
    /// `noise.mp3` exists in `sounds/` and `bowl.mp3` in `gongs/`.
    private func makeResources(in directory: TemporaryDirectory, noise entries: String, gongs: String = oneGong) throws {
        let manager = FileManager.default
        for folder in ["sounds", "alarm-sounds", "gongs"] {
            try manager.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        }
        try directory.write("sounds/noise.mp3", "noise")
        try directory.write("alarm-sounds/beep.mp3", "beep")
        try directory.write("gongs/bowl.mp3", "bowl")
        try directory.write("alarm-sounds.json", #"[{"id": "beep", "name": "Beep", "file": "beep.mp3", "default": true}]"#)
        try directory.write("sounds.json", entries)
        try directory.write("gong-sounds.json", gongs)
    }

    @Test("a well-formed temporary resources folder loads (the control for the escape tests)")
    func temporaryResourcesLoad() async throws {
        try await withTemporaryDirectory { resources in
            try makeResources(in: resources, noise: #"[{"id": "noise", "name": "Noise", "file": "noise.mp3"}]"#)
            let library = try SoundLibrary.load(resources: resources.path, customDirectory: "")
            #expect(library.catalog.sounds.map(\.id) == ["noise", "beep", "bowl"])
            #expect(library.catalog.sounds.map(\.kind) == [.noise, .alarm, .gong])
            let path = try library.path(of: try library.sound("noise", field: "sound"))
            #expect(path.hasSuffix("/sounds/noise.mp3"))
            let gong = try library.path(of: try library.sound("bowl", field: "sound", kind: .gong))
            #expect(gong.hasSuffix("/gongs/bowl.mp3"))
        }
    }

    @Test(
        "a gong catalog entry whose file or id leaves the gongs folder does not load",
        arguments: [
            #"[{"id": "bowl", "name": "Bowl", "file": "../sounds/noise.mp3"}]"#,
            #"[{"id": "bowl", "name": "Bowl", "file": "/etc/passwd"}]"#,
            #"[{"id": "../bowl", "name": "Bowl", "file": "bowl.mp3"}]"#,
            #"[{"id": "bowl", "name": "Bowl", "file": ".bowl.mp3"}]"#,
        ])
    func escapingGongEntry(entries: String) async throws {
        try await withTemporaryDirectory { resources in
            try makeResources(in: resources, noise: #"[{"id": "noise", "name": "Noise", "file": "noise.mp3"}]"#, gongs: entries)
            let error = #expect(throws: SoundCatalog.LoadError.self) {
                try SoundLibrary.load(resources: resources.path, customDirectory: "")
            }
            #expect(error?.catalog.hasSuffix("gong-sounds.json") == true)
        }
    }

    @Test("a gong whose id is a noise or alarm id does not load", arguments: ["noise", "beep"])
    func gongIDInOtherCatalog(id: String) async throws {
        try await withTemporaryDirectory { resources in
            try makeResources(
                in: resources, noise: #"[{"id": "noise", "name": "Noise", "file": "noise.mp3"}]"#,
                gongs: #"[{"id": "\#(id)", "name": "Gong", "file": "bowl.mp3"}]"#)
            let error = #expect(throws: SoundCatalog.LoadError.self) {
                try SoundLibrary.load(resources: resources.path, customDirectory: "")
            }
            #expect(error?.reason.contains("used twice") == true)
        }
    }

    @Test("a resources folder without its gong catalog does not load, naming gong-sounds.json")
    func missingGongCatalog() async throws {
        try await withTemporaryDirectory { resources in
            try makeResources(in: resources, noise: #"[{"id": "noise", "name": "Noise", "file": "noise.mp3"}]"#)
            try FileManager.default.removeItem(atPath: resources.file("gong-sounds.json"))
            let error = #expect(throws: SoundCatalog.LoadError.self) {
                try SoundLibrary.load(resources: resources.path, customDirectory: "")
            }
            #expect(error?.catalog.hasSuffix("gong-sounds.json") == true)
        }
    }

    @Test("a gong file that is a symlink to a noise file (another sound folder) is not_found")
    func gongSymlinkToOtherFolder() async throws {
        try await withTemporaryDirectory { resources in
            try makeResources(
                in: resources, noise: #"[{"id": "noise", "name": "Noise", "file": "noise.mp3"}]"#,
                gongs: #"[{"id": "bowl", "name": "Bowl", "file": "bowl.mp3"}, {"id": "link", "name": "Link", "file": "link.mp3"}]"#)
            try FileManager.default.createSymbolicLink(atPath: resources.file("gongs/link.mp3"), withDestinationPath: "../sounds/noise.mp3")
            let library = try SoundLibrary.load(resources: resources.path, customDirectory: "")
            let error = #expect(throws: CommandError.self) { try library.path(of: try library.sound("link", field: "sound")) }
            #expect(error?.code == .notFound)
            #expect(error?.field == "sound")
            // The control: the gong's own file resolves.
            #expect(try library.path(of: try library.sound("bowl", field: "sound")).hasSuffix("/gongs/bowl.mp3"))
        }
    }

    @Test(
        "a catalog entry whose file or id leaves the sound folder does not load",
        arguments: [
            #"[{"id": "noise", "name": "Noise", "file": "../../etc/passwd"}]"#,
            #"[{"id": "noise", "name": "Noise", "file": "/etc/passwd"}]"#,
            #"[{"id": "noise", "name": "Noise", "file": "../alarm-sounds/beep.mp3"}]"#,
            #"[{"id": "../../etc/passwd", "name": "Noise", "file": "noise.mp3"}]"#,
        ])
    func escapingEntry(entries: String) async throws {
        try await withTemporaryDirectory { resources in
            try makeResources(in: resources, noise: entries)
            #expect(throws: SoundCatalog.LoadError.self) {
                try SoundLibrary.load(resources: resources.path, customDirectory: "")
            }
        }
    }

    @Test("an id used in both catalogs does not load")
    func idInBothCatalogs() async throws {
        try await withTemporaryDirectory { resources in
            try makeResources(in: resources, noise: #"[{"id": "beep", "name": "Noise", "file": "noise.mp3"}]"#)
            #expect(throws: SoundCatalog.LoadError.self) {
                try SoundLibrary.load(resources: resources.path, customDirectory: "")
            }
        }
    }

    @Test("a resources folder without its catalogs does not load")
    func missingCatalogs() async throws {
        try await withTemporaryDirectory { resources in
            let error = #expect(throws: SoundCatalog.LoadError.self) {
                try SoundLibrary.load(resources: resources.path, customDirectory: "")
            }
            #expect(error?.catalog.hasSuffix("sounds.json") == true)
        }
    }

    /// Builds resources whose noise entry `link.mp3` is a symlink to `target`, and returns what
    /// `path(of:)` does with it; on success, the path and the bytes read there (before the folders go).
    private func resolveLink(
        to target: (TemporaryDirectory, TemporaryDirectory) throws -> String
    ) async throws -> Result<(path: String, contents: Data?), CommandError> {
        try await withTemporaryDirectory { resources in
            try await withTemporaryDirectory { outside in
                try makeResources(
                    in: resources,
                    noise: #"[{"id": "noise", "name": "Noise", "file": "noise.mp3"}, {"id": "link", "name": "Link", "file": "link.mp3"}]"#)
                try FileManager.default.createSymbolicLink(atPath: resources.file("sounds/link.mp3"), withDestinationPath: try target(resources, outside))
                let library = try SoundLibrary.load(resources: resources.path, customDirectory: "")
                let sound = try library.sound("link", field: "sound")
                do throws(CommandError) {
                    let path = try library.path(of: sound)
                    return .success((path, FileManager.default.contents(atPath: path)))
                } catch {
                    return .failure(error)
                }
            }
        }
    }

    @Test("a symlink in the sound folder to /etc/passwd is not_found")
    func symlinkToSystemFile() async throws {
        let result = try await resolveLink { _, _ in "/etc/passwd" }
        #expect(throws: CommandError.self) { try result.get() }
        #expect(result.rejection?.code == .notFound)
        #expect(result.rejection?.field == "sound")
    }

    @Test("a symlink in the sound folder to a file in another folder is not_found")
    func symlinkToOtherFolder() async throws {
        let result = try await resolveLink { _, outside in
            try outside.write("secret.mp3", "secret")
            return outside.file("secret.mp3")
        }
        #expect(result.rejection?.code == .notFound)
        #expect(result.rejection?.field == "sound")
    }

    @Test("a relative symlink that climbs out of the sound folder is not_found")
    func relativeSymlinkOut() async throws {
        let result = try await resolveLink { resources, _ in
            try resources.write("outside.mp3", "outside the sounds folder")
            return "../outside.mp3"
        }
        #expect(result.rejection?.code == .notFound)
        #expect(result.rejection?.field == "sound")
    }

    @Test("a symlink to a sibling folder whose name starts like the sound folder's is not_found")
    func symlinkToLookalikeFolder() async throws {
        let result = try await resolveLink { resources, _ in
            try FileManager.default.createDirectory(atPath: resources.file("sounds-evil"), withIntermediateDirectories: true)
            try resources.write("sounds-evil/x.mp3", "evil")
            return resources.file("sounds-evil/x.mp3")
        }
        #expect(result.rejection?.code == .notFound)
    }

    @Test("a symlink in the sound folder to another file inside it is allowed", arguments: [true, false])
    func symlinkInside(absolute: Bool) async throws {
        let result = try await resolveLink { resources, _ in absolute ? resources.file("sounds/noise.mp3") : "noise.mp3" }
        let (path, contents) = try result.get()
        #expect(path.hasSuffix("/sounds/noise.mp3"))
        #expect(contents == Data("noise".utf8))
    }

    @Test("a dangling symlink and a missing file are not_found")
    func missingFile() async throws {
        let dangling = try await resolveLink { resources, _ in resources.file("sounds/gone.mp3") }
        #expect(dangling.rejection?.code == .notFound)

        try await withTemporaryDirectory { resources in
            try makeResources(in: resources, noise: #"[{"id": "absent", "name": "Absent", "file": "absent.mp3"}]"#)
            let library = try SoundLibrary.load(resources: resources.path, customDirectory: "")
            let error = #expect(throws: CommandError.self) { try library.path(of: try library.sound("absent", field: "sound")) }
            #expect(error?.code == .notFound)
            #expect(error?.field == "sound")
        }
    }

    @Test("a Sound the library did not load (a hand-made file name) is not_found")
    func foreignSound() throws {
        let library = try realLibrary()
        let forged = Sound(id: "white-noise", name: "White noise", file: "../../../../etc/passwd", category: "noise", kind: .noise)
        let error = #expect(throws: CommandError.self) { try library.path(of: forged) }
        #expect(error?.code == .notFound)
        let stranger = Sound(id: "stranger", name: "Stranger", file: "white-noise.mp3", category: "noise", kind: .noise)
        #expect(throws: CommandError.self) { try library.path(of: stranger) }
    }

    // MARK: References

    @Test("sound(_:field:) finds by id and by catalog name")
    func reference() throws {
        let library = try realLibrary()
        #expect(try library.sound("heavy-rain-white-noise", field: "sound").name == "Heavy rain")
        #expect(try library.sound("heavy rain", field: "sound").id == "heavy-rain-white-noise")
        #expect(try library.sound("Digital alarm", field: "sound", kind: .alarm).id == "digital-alarm")
    }

    @Test("an unknown reference is not_found naming the field", arguments: ["bogus", "", "../sounds/white-noise", "white-noise.mp3"])
    func unknownReference(reference: String) throws {
        let library = try realLibrary()
        let error = #expect(throws: CommandError.self) { try library.sound(reference, field: "sound") }
        #expect(error?.code == .notFound)
        #expect(error?.field == "sound")
    }

    @Test("a sound of the wrong kind is not_found, naming the field asked for")
    func wrongKind() throws {
        let library = try realLibrary()
        let error = #expect(throws: CommandError.self) { try library.sound("white-noise", field: "tone", kind: .alarm) }
        #expect(error?.code == .notFound)
        #expect(error?.field == "tone")
        let gong = #expect(throws: CommandError.self) { try library.sound("singing-bowl", field: "sound", kind: .alarm) }
        #expect(gong?.code == .notFound)
        #expect(throws: CommandError.self) { try library.sound("digital-alarm", field: "gong", kind: .gong) }
    }
}

extension Result {
    /// The error of a failure; nil for a success.
    fileprivate var rejection: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

import FoundationEssentials
import NoiseClockAudio
import NoiseClockCore
import NoiseClockSystem

/// The sound catalog with its files: `Resources/sounds.json` (noise, files in `sounds/`),
/// `Resources/alarm-sounds.json` (alarm tones, in `alarm-sounds/`), `Resources/gong-sounds.json`
/// (meditation gongs and timer tones, in `gongs/`) and the MP3 files of `sounds.custom_dir`
/// (category `custom`). Ids are unique across all of them. A sound's file is
/// always resolved inside its own folder: ids and file names are plain names, and the real path
/// (symlinks followed) must still be inside the folder.
public struct SoundLibrary: Sendable {
    public let catalog: SoundCatalog
    private let folders: [String: String]
    /// Where decoded loops are kept: the process's one cache, or a test's own.
    public let cache: LoopCache

    public init(catalog: SoundCatalog, folders: [String: String], cache: LoopCache = .shared) {
        self.catalog = catalog
        self.folders = folders
        self.cache = cache
    }

    /// The same sounds, with decoded loops kept in `cache`.
    public func using(_ cache: LoopCache) -> SoundLibrary {
        SoundLibrary(catalog: catalog, folders: folders, cache: cache)
    }

    public static let empty = SoundLibrary(catalog: SoundCatalog(sounds: []), folders: [:])

    /// Where the catalogs are: the installed copy beside the binary (`../share/noiseclock`, so
    /// `/usr/share/noiseclock` for the package's `/usr/bin/noiseclock`), the checkout's
    /// `Resources` above a development build, `Resources` in the working directory, or
    /// `/usr/share/noiseclock`.
    public static func locateResources(
        executable: String = Executable.path, workingDirectory: String = FileManager.default.currentDirectoryPath
    ) -> String? {
        var candidates: [String] = []
        var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(folder.deletingLastPathComponent().appendingPathComponent("share/noiseclock").path)
        for _ in 0..<6 {
            candidates.append(folder.appendingPathComponent("Resources").path)
            folder = folder.deletingLastPathComponent()
        }
        candidates.append("\(workingDirectory)/Resources")
        candidates.append("/usr/share/noiseclock")
        return candidates.first { FileManager.default.fileExists(atPath: "\($0)/sounds.json") }
    }

    public static func load(resources: String, customDirectory: String) throws(SoundCatalog.LoadError) -> SoundLibrary {
        var sounds: [Sound] = []
        var folders: [String: String] = [:]
        let catalogs: [(file: String, kind: Sound.Kind, folder: String)] = [
            ("sounds.json", .noise, "sounds"), ("alarm-sounds.json", .alarm, "alarm-sounds"), ("gong-sounds.json", .gong, "gongs"),
        ]
        for (file, kind, folder) in catalogs {
            let path = "\(resources)/\(file)"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw SoundCatalog.LoadError(catalog: path, reason: "cannot be read")
            }
            for sound in try SoundCatalog.entries(json: Array(data), kind: kind, catalog: path) {
                guard !sounds.contains(where: { $0.id == sound.id }) else {
                    throw SoundCatalog.LoadError(catalog: path, reason: "the id \(sound.id) is used twice")
                }
                sounds.append(sound)
                folders[sound.id] = "\(resources)/\(folder)"
            }
        }
        if !customDirectory.isEmpty {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: customDirectory))?.sorted() ?? []
            for name in names where name.lowercased().hasSuffix(".mp3") && SoundCatalog.isPlainName(name) {
                let base = String(name.dropLast(4))
                let id = "custom-" + base.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
                guard !sounds.contains(where: { $0.id == id }) else { continue }
                sounds.append(Sound(id: id, name: base, file: name, category: "custom", description: "", kind: .noise))
                folders[id] = customDirectory
            }
        }
        return SoundLibrary(catalog: SoundCatalog(sounds: sounds), folders: folders)
    }

    /// The sound a command names (id or catalog name), or `not_found` naming `field`.
    public func sound(_ reference: String, field: String, kind: Sound.Kind? = nil) throws(CommandError) -> Sound {
        guard let sound = catalog.sound(named: reference), kind == nil || sound.kind == kind else {
            throw CommandError(.notFound, "no \(kind.map { "\($0.rawValue) " } ?? "")sound \"\(reference)\"", field: field)
        }
        return sound
    }

    /// The file of `sound`, checked to be inside its folder after following symlinks.
    public func path(of sound: Sound) throws(CommandError) -> String {
        guard let folder = folders[sound.id], SoundCatalog.isPlainName(sound.file) else {
            throw CommandError(.notFound, "sound \"\(sound.id)\" has no file", field: "sound")
        }
        let root = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        let file = URL(fileURLWithPath: "\(folder)/\(sound.file)").resolvingSymlinksInPath().path
        guard file.hasPrefix(root + "/"), FileManager.default.isReadableFile(atPath: file) else {
            throw CommandError(.notFound, "the file of sound \"\(sound.id)\" is missing or outside the sound folder", field: "sound")
        }
        return file
    }

    /// A sound's file as a mixer source: looped (noise, tones), or played `loops` times (a gong);
    /// from memory when the `LoopCache` keeps it, else decoded while the cache decodes it ahead.
    public func sampleSource(for id: String, loops: Int? = nil) throws(CommandError) -> SampleSource {
        let sound = try sound(id, field: "sound")
        let path = try path(of: sound)
        if let decoded = cache.loop(path) { return LoopingDecoderSource(loop: decoded, loops: loops) }
        do {
            let decoder = try MP3Decoder(path: path)
            return LoopingDecoderSource(
                decoder: decoder, loops: loops, ahead: cache.decodeAhead(path, frames: decoder.frameCount, mono: decoder.isMonoFile))
        } catch {
            throw CommandError(.unavailable, "cannot play \(sound.id): \(error)", field: "sound")
        }
    }

    /// Keeps the files of the sounds `ids` decoded for `owner`, ready to start from memory at a
    /// due instant (`LoopCache.hold`); an empty list lets go. Unknown ids are skipped.
    public func keepReady(_ ids: [String], for owner: String) {
        let paths = ids.compactMap { id in (try? sound(id, field: "sound")).flatMap { try? path(of: $0) } }
        cache.hold(Set(paths), for: owner)
    }

    /// How long sound `id` lasts, in seconds, from its decoded loop when one is kept, else from its file.
    public func duration(of id: String) -> Double? {
        guard let sound = try? sound(id, field: "sound"), let path = try? path(of: sound) else { return nil }
        if let loop = cache.loop(path) { return Double(loop.frames) / Double(AudioFormat.sampleRate) }
        return (try? MP3Decoder(path: path))?.duration
    }
}

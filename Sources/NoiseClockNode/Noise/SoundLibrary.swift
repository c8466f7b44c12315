import FoundationEssentials
import NoiseClockAudio
import NoiseClockCore
import NoiseClockSystem
import Synchronization

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
    /// What the threads that open files learned, for the loop to use without touching the disk.
    private let files = FilesSeen()

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
    /// It resolves the path and opens and scans the file (libmpg123 reads all of it for an exact
    /// length), so it runs on a thread of its own, never on the node's (`open`).
    func openNow(_ id: String, loops: Int? = nil) throws(CommandError) -> SampleSource {
        assert(!NodeExecutor.shared.inLoop, "a sound's file is opened on the node's thread")
        let sound = try sound(id, field: "sound")
        let path = try path(of: sound)
        files.resolved(id, path)
        if let decoded = cache.loop(path) { return LoopingDecoderSource(loop: decoded, loops: loops) }
        do {
            let decoder = try MP3Decoder(path: path)
            files.lasts(id, decoder.duration)
            return LoopingDecoderSource(
                decoder: decoder, loops: loops, ahead: cache.decodeAhead(path, frames: decoder.frameCount, mono: decoder.isMonoFile))
        } catch {
            throw CommandError(.unavailable, "cannot play \(sound.id): \(error)", field: "sound")
        }
    }

    /// Sound `id` as a mixer source (`openNow`), opened on a thread of its own ("sound open") and
    /// handed back to the caller: the node's thread never waits for a disk.
    public func open(_ id: String, loops: Int? = nil) async throws(CommandError) -> OpenedSound {
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<OpenedSound, CommandError>, Never>) in
            Threads.start(name: "sound open") { [self] in
                do throws(CommandError) {
                    done.resume(returning: .success(OpenedSound(source: try openNow(id, loops: loops))))
                } catch {
                    done.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Sounds `ids` opened (`open`), one thread each, in the order given; the first that cannot
    /// be opened is thrown.
    public func open(_ ids: [String]) async throws(CommandError) -> [String: OpenedSound] {
        var opened: [String: OpenedSound] = [:]
        for id in ids where opened[id] == nil { opened[id] = try await open(id) }
        return opened
    }

    /// Sound `id` as a source from its loop kept decoded (`keepReady`), with no disk touched; nil
    /// when it is not kept (then `open` it).
    public func readySource(for id: String, loops: Int? = nil) -> SampleSource? {
        guard let path = files.path(of: id), let loop = cache.keptLoop(path) else { return nil }
        return LoopingDecoderSource(loop: loop, loops: loops)
    }

    /// Keeps the files of the sounds `ids` decoded for `owner`, ready to start from memory at a
    /// due instant (`LoopCache.hold`); an empty list lets go. Unknown ids are skipped. The paths
    /// are resolved on a thread ("sound open"), and only when what `owner` wants changed, so a
    /// scheduler may say it at every look without a wake-up.
    public func keepReady(_ ids: [String], for owner: String) {
        guard let ask = files.wants(ids, for: owner) else { return }
        // Letting go needs no disk: at once (an ask still on its way is older, and dropped).
        if ids.isEmpty { return cache.hold([], for: owner) }
        Threads.start(name: "sound open", background: true) { [self] in
            let paths = ids.compactMap { id -> String? in
                guard let path = (try? sound(id, field: "sound")).flatMap({ try? path(of: $0) }) else { return nil }
                files.resolved(id, path)
                return path
            }
            // Back on the loop, where the asks are in order: an ask that a later one overtook
            // (its thread ran late) is dropped, so what `owner` asked last is what is kept.
            NodeActor.onLoop { if files.isLatest(ask, for: owner) { cache.hold(Set(paths), for: owner) } }
        }
    }

    /// How long sound `id` lasts, in seconds, as far as the loop knows without a disk: from its
    /// loop kept decoded, or from the last time its file was opened; nil when neither.
    public func knownDuration(of id: String) -> Double? {
        if let path = files.path(of: id), let loop = cache.keptLoop(path) { return Double(loop.frames) / Double(AudioFormat.sampleRate) }
        return files.duration(of: id)
    }
}

/// A source opened on another thread, handed over once: nothing else holds it until its owner
/// puts it in the mix.
public struct OpenedSound: @unchecked Sendable {
    public let source: SampleSource
}

/// What the threads that open sounds learned (each sound's real path, each file's length) and
/// what each owner last asked to keep ready: looked up by the loop without a disk. The lock is
/// held for a dictionary's lookup or change, never across a call.
private final class FilesSeen: Sendable {
    private struct State {
        var paths: [String: String] = [:]
        var durations: [String: Double] = [:]
        var wanted: [String: (ids: [String], ask: Int)] = [:]
        var asks = 0
    }

    private let state = Mutex(State())

    func resolved(_ id: String, _ path: String) { state.withLock { $0.paths[id] = path } }
    func path(of id: String) -> String? { state.withLock { $0.paths[id] } }
    func lasts(_ id: String, _ seconds: Double) { state.withLock { $0.durations[id] = seconds } }
    func duration(of id: String) -> Double? { state.withLock { $0.durations[id] } }

    /// Notes that `owner` wants `ids`: the number of this ask, nil when it wanted just those already.
    func wants(_ ids: [String], for owner: String) -> Int? {
        state.withLock { state in
            guard state.wanted[owner]?.ids != ids else { return nil }
            state.asks += 1
            state.wanted[owner] = (ids, state.asks)
            return state.asks
        }
    }

    /// Whether `ask` is the latest of `owner`'s.
    func isLatest(_ ask: Int, for owner: String) -> Bool { state.withLock { $0.wanted[owner]?.ask == ask } }
}

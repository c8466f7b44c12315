#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem

/// One guided meditation of `meditations.dir`, as the user sees it (their renames applied).
public struct GuidedMeditation: Sendable, Hashable {
    public var id: String
    public var name: String
    public var teacher: String
    /// The file's real path (symlinks resolved), checked to lie inside the folder at the scan.
    public var path: String
    public var durationSeconds: Double
    /// Why the file cannot be played; nil when it can.
    public var error: String?

    public nonisolated init(id: String, name: String, teacher: String, path: String, durationSeconds: Double, error: String? = nil) {
        self.id = id
        self.name = name
        self.teacher = teacher
        self.path = path
        self.durationSeconds = durationSeconds
        self.error = error
    }
}

/// The guided meditations of SPEC §10: the `.mp3` files of `meditations.dir` (and of its
/// subfolders, one level deep), named from their ID3 tags or file names, with the user's renames
/// from `meditations.json` laid over them; published as the retained `B/meditations`.
///
/// A scan reads every file through libmpg123 (a whole-stream scan each, for the exact length),
/// which takes a while for a folder of long recordings, so it runs on a thread of its own and the
/// actor waits for it without holding the node's executor. Scans run one at a time.
@NodeActor
public final class MeditationLibrary {
    public nonisolated static let documentName = "meditations.json"
    /// The longest name or teacher a rename may set, in characters.
    public nonisolated static let maxTextLength = 80

    /// The user's changes to one entry; nil fields keep the tag's value.
    struct Rename: Sendable, Hashable {
        var name: String?
        var teacher: String?
    }

    /// An entry as scanned, before renames: its tags (or file name), its relative file name.
    struct Scanned: Sendable, Hashable {
        var id: String
        var file: String
        var path: String
        var name: String
        var teacher: String
        var durationSeconds: Double
        var error: String?
    }

    struct ScanResult: Sendable {
        var items: [Scanned] = []
        var problem: String?
    }

    private let directory: String
    private let hub: StateHub
    private let logger: Logger
    private var scanned: [Scanned] = []
    /// `meditations.json`: the renames as stored, and those waiting for their write.
    private var ledger: Ledger<[String: Rename], Void>
    private var renames: [String: Rename] { ledger.current }
    private var folderProblem: String?
    /// What went wrong reading `meditations.json` (it was moved aside), shown with the folder's problem.
    private let storeProblem: String?
    public private(set) var json: JSONValue
    private var byID: [String: GuidedMeditation] = [:]
    private var scanning = false
    private var waitingToScan: [CheckedContinuation<Void, Never>] = []

    public nonisolated convenience init(directory: String, store: any Store, hub: StateHub, logger: Logger) {
        self.init(directory: directory, writer: StoreWriter(store: store), hub: hub, logger: logger)
    }

    public nonisolated init(directory: String, writer: StoreWriter, hub: StateHub, logger: Logger) {
        self.directory = directory
        let store = writer.store
        self.hub = hub
        self.logger = logger
        let (renames, problem) = Self.loadRenames(from: store)
        if let problem { logger.error("stored meditation renames were unreadable", metadata: ["problem": "\(problem)"]) }
        self.ledger = Ledger(Self.documentName, renames, writer: writer) { Self.json(renames: $0) }
        storeProblem = problem
        json = Self.json(items: [], problem: problem)
    }

    /// Scans the folder again, applies the renames, publishes `B/meditations` and returns it.
    public func rescan() async -> JSONValue {
        while scanning { await withCheckedContinuation { waitingToScan.append($0) } }
        scanning = true
        let directory = directory
        let result = await withCheckedContinuation { (done: CheckedContinuation<ScanResult, Never>) in
            Threads.start(name: "meditations", background: true) { done.resume(returning: Self.scan(directory: directory)) }
        }
        scanning = false
        let waiting = waitingToScan
        waitingToScan = []
        for waiter in waiting { waiter.resume() }

        scanned = result.items
        folderProblem = result.problem
        if let problem = result.problem {
            logger.error("guided meditations unavailable", metadata: ["problem": "\(problem)"])
        }
        for item in result.items where item.error != nil {
            logger.warning("guided meditation cannot be played", metadata: ["file": "\(item.file)", "error": "\(item.error ?? "")"])
        }
        logger.info("guided meditations scanned", metadata: ["folder": "\(directory)", "count": "\(result.items.count)"])
        refresh()
        return json
    }

    /// The entry `id`, to play: `not_found` when the library has no such id, `unavailable` when
    /// its file cannot be decoded.
    public func item(_ id: String) throws(CommandError) -> GuidedMeditation {
        guard let item = byID[id] else { throw CommandError(.notFound, "no guided meditation with id \"\(id)\"", field: "id") }
        if let error = item.error {
            throw CommandError(.unavailable, "\"\(item.name)\" cannot be played: \(error)", field: "id")
        }
        return item
    }

    /// Renames entry `id`: `name` and `teacher` nil keep what is shown, empty go back to the tag's
    /// value (or the file name). Stored before it is applied; the file is never written.
    public func edit(id: String, name: String?, teacher: String?) async throws(CommandError) -> JSONValue {
        let name = try name.map { text throws(CommandError) in try Self.checkedText(text, field: "name") }
        let teacher = try teacher.map { text throws(CommandError) in try Self.checkedText(text, field: "teacher") }
        guard let entry = scanned.first(where: { $0.id == id }) else {
            throw CommandError(.notFound, "no guided meditation with id \"\(id)\"", field: "id")
        }
        let change: Ledger<[String: Rename], Void>.Change = { renames in
            var rename = renames[id] ?? Rename()
            if let name { rename.name = name.isEmpty ? nil : name }
            if let teacher { rename.teacher = teacher.isEmpty ? nil : teacher }
            renames[id] = rename == Rename() ? nil : rename
        }
        try await Ledger.commit(change, what: "the rename", in: { $0(&ledger) }) { _ in refresh() }
        return Self.json(Self.applying(renames[id], to: entry), file: entry.file)
    }

    /// Rebuilds the table and the JSON from the scan and the renames, and publishes it.
    private func refresh() {
        let items = scanned.map { (Self.applying(renames[$0.id], to: $0), $0.file) }
        byID = Dictionary(items.map { ($0.0.id, $0.0) }) { first, _ in first }
        let problems = [folderProblem, storeProblem].compactMap { $0 }
        json = Self.json(items: items, problem: problems.isEmpty ? nil : problems.joined(separator: "; "))
        hub.publish(StateTopic.meditations, json)
    }

    // MARK: Pure parts

    /// A rename's text: trimmed, at most `maxTextLength` characters, no control characters.
    nonisolated static func checkedText(_ text: String, field: String) throws(CommandError) -> String {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.count <= maxTextLength else {
            throw .invalidField(field, "must be at most \(maxTextLength) characters, not \(trimmed.count)")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidField(field, "must not contain control characters")
        }
        return trimmed
    }

    nonisolated static func applying(_ rename: Rename?, to entry: Scanned) -> GuidedMeditation {
        GuidedMeditation(
            id: entry.id, name: rename?.name ?? entry.name, teacher: rename?.teacher ?? entry.teacher, path: entry.path,
            durationSeconds: entry.durationSeconds, error: entry.error)
    }

    /// A stable id for a file: 48 bits of the 64-bit FNV-1a of its path relative to the folder, as
    /// 12 characters. Hex digits, except that a leading digit 0-9 becomes a letter g-p, so a bare id
    /// never reads as a JSON number (and two paths still never share an id they did not share before).
    nonisolated static func id(forRelativePath path: String, attempt: Int = 0) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let bytes = Array(path.utf8) + (attempt == 0 ? [] : [0] + Array(String(attempt).utf8))
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        var hex = Array(String(hash >> 16, radix: 16))
        hex = Array(repeating: "0", count: 12 - hex.count) + hex
        if let digit = hex[0].wholeNumberValue { hex[0] = Character(Unicode.Scalar(UInt8(ascii: "g") + UInt8(digit))) }
        return String(hex)
    }

    /// A name from a file name: without the extension, underscores and dashes as spaces.
    nonisolated static func displayName(ofFile file: String) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        let stem = base.lowercased().hasSuffix(".mp3") ? String(base.dropLast(4)) : base
        let spaced = String(stem.map { $0 == "_" || $0 == "-" ? " " : $0 })
        let words = spaced.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return words.isEmpty ? base : words
    }

    nonisolated static func json(_ item: GuidedMeditation, file: String) -> JSONValue {
        [
            "id": .string(item.id), "name": .string(item.name), "teacher": .string(item.teacher),
            "duration_s": .number(item.durationSeconds.rounded()), "file": .string(file),
            "error": item.error.map { .string($0) } ?? .null,
        ]
    }

    /// `B/meditations`: groups by teacher (case-insensitive, the unnamed teacher last), items by name.
    nonisolated static func json(items: [(GuidedMeditation, String)], problem: String?) -> JSONValue {
        let groups = Dictionary(grouping: items) { $0.0.teacher }
        let teachers = groups.keys.sorted { lhs, rhs in
            if lhs.isEmpty != rhs.isEmpty { return rhs.isEmpty }
            let (l, r) = (lhs.lowercased(), rhs.lowercased())
            return l != r ? l < r : lhs < rhs
        }
        let groupJSON: [JSONValue] = teachers.map { teacher in
            let sorted = (groups[teacher] ?? []).sorted { lhs, rhs in
                let (l, r) = (lhs.0.name.lowercased(), rhs.0.name.lowercased())
                return l != r ? l < r : lhs.1 < rhs.1
            }
            return ["teacher": .string(teacher), "items": .array(sorted.map { json($0.0, file: $0.1) })]
        }
        return ["count": .number(Double(items.count)), "problem": problem.map { .string($0) } ?? .null, "groups": .array(groupJSON)]
    }

    nonisolated static func json(renames: [String: Rename]) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for (id, rename) in renames {
            var entry: [String: JSONValue] = [:]
            if let name = rename.name { entry["name"] = .string(name) }
            if let teacher = rename.teacher { entry["teacher"] = .string(teacher) }
            members[id] = .object(entry)
        }
        return ["renames": .object(members)]
    }

    /// The stored renames; a document that cannot be used is moved aside (and said so).
    nonisolated static func loadRenames(from store: any Store) -> ([String: Rename], String?) {
        switch store.load(documentName) {
        case .missing:
            return ([:], nil)
        case .movedAside(let target, let reason):
            return ([:], "\(documentName) moved to \(target): \(reason)")
        case .value(let value):
            guard let members = value.objectValue?["renames"]?.objectValue else {
                guard case .movedAside(let target, let reason) = store.moveAside(documentName, reason: "no \"renames\" object")
                else { return ([:], nil) }
                return ([:], "\(documentName) moved to \(target): \(reason)")
            }
            var renames: [String: Rename] = [:]
            for (id, entry) in members {
                let fields = entry.objectValue ?? [:]
                let rename = Rename(name: fields["name"]?.stringValue, teacher: fields["teacher"]?.stringValue)
                if rename != Rename() { renames[id] = rename }
            }
            return (renames, nil)
        }
    }
}

// MARK: Scanning (blocking: on the scan's own thread)

extension MeditationLibrary {
    /// Every `.mp3` of `directory` and of its subfolders (one level), read through libmpg123. A file
    /// or folder whose real path (symlinks followed) leaves the folder is skipped, as are hidden
    /// names; two names for one file (a symlink inside the folder) give one entry, the first by name.
    nonisolated static func scan(directory: String) -> ScanResult {
        guard !directory.isEmpty else { return ScanResult() }
        guard let root = realPath(directory) else {
            return ScanResult(problem: "meditations.dir \"\(directory)\": \(String(cString: strerror(errno)))")
        }
        guard isDirectory(root) else { return ScanResult(problem: "meditations.dir \"\(directory)\" is not a folder") }
        var files: [(relative: String, real: String)] = []
        var seen: Set<String> = []
        for name in entries(of: root) {
            guard let real = realPath("\(root)/\(name)"), real.hasPrefix(root + "/") else { continue }
            if isDirectory(real) {
                for inner in entries(of: real) where isMP3(inner) {
                    guard let file = realPath("\(real)/\(inner)"), file.hasPrefix(root + "/"), isRegularFile(file),
                        seen.insert(file).inserted
                    else { continue }
                    files.append(("\(name)/\(inner)", file))
                }
            } else if isMP3(name), isRegularFile(real), seen.insert(real).inserted {
                files.append((name, real))
            }
        }
        var ids: Set<String> = []
        var items: [Scanned] = []
        for file in files.sorted(by: { $0.relative < $1.relative }) {
            var attempt = 0
            var id = Self.id(forRelativePath: file.relative)
            while !ids.insert(id).inserted {
                attempt += 1
                id = Self.id(forRelativePath: file.relative, attempt: attempt)
            }
            var item = Scanned(
                id: id, file: file.relative, path: file.real, name: displayName(ofFile: file.relative), teacher: "",
                durationSeconds: 0)
            do {
                let metadata = try MP3Metadata.read(path: file.real)
                if !metadata.title.isEmpty { item.name = metadata.title }
                item.teacher = metadata.artist
                item.durationSeconds = metadata.durationSeconds
            } catch {
                item.error = error.reason
            }
            items.append(item)
        }
        return ScanResult(items: items)
    }

    private nonisolated static func isMP3(_ name: String) -> Bool {
        !name.hasPrefix(".") && name.count > 4 && name.lowercased().hasSuffix(".mp3")
    }

    /// The names in a folder, hidden ones left out, sorted.
    private nonisolated static func entries(of folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    private nonisolated static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private nonisolated static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    private nonisolated static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}

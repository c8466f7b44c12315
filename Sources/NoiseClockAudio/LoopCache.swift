#if canImport(Glibc)
import Glibc
#endif
import CMpg123
import NoiseClockSystem
import Synchronization

/// A sound file decoded once: mono when both channels were equal (most noise loops), else stereo.
/// Immutable, shared by every source that plays it.
public final class DecodedLoop: Sendable {
    public let samples: [Int16]
    public let isMono: Bool
    /// The memory account it counts against while it is alive, if any.
    private let account: LoopMemory?

    public var frames: Int { isMono ? samples.count : samples.count / AudioFormat.channels }
    public var bytes: Int { samples.count * MemoryLayout<Int16>.size }

    init(samples: [Int16], isMono: Bool, account: LoopMemory?) {
        self.samples = samples
        self.isMono = isMono
        self.account = account
        account?.bytes.add(samples.count * MemoryLayout<Int16>.size, ordering: .relaxed)
    }

    /// The whole file, decoded in chunks straight into what is kept: mono while both channels
    /// agree (widened to stereo at the first frame where they do not), so a mono loop never holds
    /// a stereo copy. Nil when the file cannot be decoded or is empty.
    static func decode(_ path: String, account: LoopMemory?) -> DecodedLoop? {
        guard let decoder = try? MP3Decoder(path: path) else { return nil }
        return decode(decoder, account: account)
    }

    /// The rest of what `decoder` has, decoded as `decode(_:account:)` does.
    static func decode(_ decoder: MP3Decoder, account: LoopMemory?) -> DecodedLoop? {
        let chunkFrames = 8192
        var chunk = [Int16](repeating: 0, count: chunkFrames * AudioFormat.channels)
        var mono: [Int16] = []
        mono.reserveCapacity(decoder.frameCount)
        var stereo: [Int16] = []
        var isMono = true
        while true {
            let frames: Int
            do {
                frames = try chunk.withUnsafeMutableBufferPointer { buffer throws(AudioError) in try decoder.read(into: buffer) }
            } catch {
                return nil
            }
            if frames == 0 { break }
            if isMono {
                if (0..<frames).allSatisfy({ chunk[2 * $0] == chunk[2 * $0 + 1] }) {
                    for frame in 0..<frames { mono.append(chunk[2 * frame]) }
                    continue
                }
                isMono = false
                stereo.reserveCapacity(decoder.frameCount * AudioFormat.channels)
                for sample in mono { stereo.append(sample); stereo.append(sample) }
                mono = []
            }
            stereo.append(contentsOf: chunk.prefix(frames * AudioFormat.channels))
        }
        let samples = isMono ? mono : stereo
        guard !samples.isEmpty else { return nil }
        return DecodedLoop(samples: samples, isMono: isMono, account: account)
    }

    deinit {
        account?.bytes.subtract(bytes, ordering: .relaxed)
    }
}

/// The bytes of the decoded loops a cache made that are still alive, kept or playing.
public final class LoopMemory: Sendable {
    let bytes = Atomic<Int>(0)

    public var current: Int { bytes.load(ordering: .relaxed) }
}

/// Where a loop decoded ahead arrives: filled once by the decoding thread, read by the audio thread.
public final class LoopSlot: Sendable {
    private let value = Mutex<DecodedLoop?>(nil)

    public init() {}

    public var loop: DecodedLoop? { value.withLock { $0 } }

    func fill(_ loop: DecodedLoop) { value.withLock { $0 = loop } }
}

/// Decoded sound files while something plays them, within a memory budget. A loop is decoded
/// once, on a thread of its own, while its first pass already plays from the streaming decoder;
/// from then on the audio thread only copies samples, and another source playing the same file
/// (a sound added twice, an alarm tone ringing again while the first still plays) shares the copy.
/// The cache holds its loops weakly: when the last source playing one ends, its memory goes, so an
/// idle node keeps none (decoding again costs about 35 ms of CPU for a 48 s loop). Entries are
/// keyed by path, size and modification time, so a replaced file is decoded again. A loop that
/// would take the loops alive over the budget is not decoded ahead: it is decoded as it plays.
public final class LoopCache: Sendable {
    /// 16 MB: six mono or three stereo loops of 48 s at 44.1 kHz.
    public static let defaultBudget = 16 << 20
    public static let shared = LoopCache()

    public let budget: Int
    /// What its loops alive hold now.
    public let memory = LoopMemory()

    private struct Entry: @unchecked Sendable {
        // @unchecked: a weak reference to an immutable, Sendable loop, read and written under the lock.
        weak var loop: DecodedLoop?
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var pending: [String: LoopSlot] = [:]
        /// The files each owner wants kept decoded (`hold`), by owner.
        var held: [String: Set<String>] = [:]
        /// The loops kept alive for them, by path.
        var kept: [String: DecodedLoop] = [:]
        /// The paths being decoded for them.
        var warming: Set<String> = []
        /// The estimates of the loops being decoded: counted against the budget from the moment
        /// a decode is admitted, so sounds started together cannot all pass the check before any
        /// of their loops exists.
        var reserved = 0

        var wanted: Set<String> { held.values.reduce(into: []) { $0.formUnion($1) } }
    }

    private let state = Mutex(State())

    public init(budget: Int = LoopCache.defaultBudget) {
        self.budget = budget
    }

    /// The decoded loop of `path` while something still plays it and the file is unchanged.
    public func loop(_ path: String) -> DecodedLoop? {
        guard let key = Self.key(path) else { return nil }
        return state.withLock { $0.entries[key]?.loop }
    }

    /// The loop of `path` kept for an owner (`hold`), looked up without reading the disk: what a
    /// sound due now starts from.
    public func keptLoop(_ path: String) -> DecodedLoop? {
        state.withLock { $0.kept[path] }
    }

    /// Starts decoding `path` (of `frames` frames, `mono` when the file says so) on a thread of
    /// its own, unless it would take the loops alive over the budget; the slot is filled when it
    /// is done. A second call for the same file while it decodes shares the first one's slot.
    public func decodeAhead(_ path: String, frames: Int, mono: Bool = false) -> LoopSlot? {
        guard let key = Self.key(path) else { return nil }
        let estimate = frames * (mono ? 1 : AudioFormat.channels) * MemoryLayout<Int16>.size
        let (slot, isNew): (LoopSlot?, Bool) = state.withLock { state in
            if let pending = state.pending[key] { return (pending, false) }
            state.entries = state.entries.filter { $0.value.loop != nil }
            guard admit(estimate, in: &state) else { return (nil, false) }
            let slot = LoopSlot()
            state.pending[key] = slot
            return (slot, true)
        }
        if let slot, isNew {
            Threads.start(name: "loop decode", background: true) { [self] in decode(path, key: key, into: slot, reserved: estimate) }
        }
        return slot
    }

    /// Keeps `paths` decoded for `owner` (an alarm due within the minute, a timer near its end, a
    /// session's gongs), in place of what it held before; an empty set lets go. Each file is
    /// decoded ahead on a background thread, within the budget, so the sound starts at its instant
    /// from memory (`loop(_:)`) instead of opening and scanning its file then, at the moment the
    /// node has most to do. What no owner holds any more is let go: its memory goes once nothing
    /// plays it.
    public func hold(_ paths: Set<String>, for owner: String) {
        let new = state.withLock { state -> Set<String> in
            guard state.held[owner] ?? [] != paths else { return [] }
            state.held[owner] = paths.isEmpty ? nil : paths
            let wanted = state.wanted
            state.kept = state.kept.filter { wanted.contains($0.key) }
            return wanted.subtracting(state.kept.keys).subtracting(state.warming)
        }
        for path in new.sorted() { warm(path) }
    }

    /// The files kept decoded for the owners now (a test's view).
    public var keptPaths: Set<String> { state.withLock { Set($0.kept.keys) } }

    private func warm(_ path: String) {
        guard let key = Self.key(path) else { return }
        let start = state.withLock { state -> Bool in
            if let loop = state.entries[key]?.loop {
                state.kept[path] = loop
                return false
            }
            // A source's decode-ahead of the same file is under way: the next hold keeps its loop.
            guard state.pending[key] == nil else { return false }
            return state.warming.insert(path).inserted
        }
        guard start else { return }
        Threads.start(name: "loop decode", background: true) { [self] in
            var loop: DecodedLoop?
            var estimate = 0
            if let decoder = try? MP3Decoder(path: path) {
                let size = decoder.frameCount * (decoder.isMonoFile ? 1 : AudioFormat.channels) * MemoryLayout<Int16>.size
                if state.withLock({ admit(size, in: &$0) }) {
                    estimate = size
                    loop = DecodedLoop.decode(decoder, account: memory)
                }
            }
            state.withLock { state in
                state.reserved -= estimate
                state.warming.remove(path)
                guard let loop else { return }
                state.entries[key] = Entry(loop: loop)
                if state.wanted.contains(path) { state.kept[path] = loop }
            }
            loop = nil
            nc_release_free_memory()
        }
    }

    /// Whether a loop of `estimate` bytes fits beside the loops alive and those being decoded;
    /// if so, it is reserved until its decode ends (under the lock).
    private func admit(_ estimate: Int, in state: inout State) -> Bool {
        guard memory.current + state.reserved + estimate <= budget else { return false }
        state.reserved += estimate
        return true
    }

    private func decode(_ path: String, key: String, into slot: LoopSlot, reserved: Int) {
        let loop = DecodedLoop.decode(path, account: memory)
        // Filled before the entry is made, so the slot's source holds the loop alive from the start.
        if let loop { slot.fill(loop) }
        state.withLock { state in
            state.reserved -= reserved
            state.pending[key] = nil
            guard let loop else { return }
            state.entries[key] = Entry(loop: loop)
            // A file an owner holds (`hold` left it to this decode): kept from now on.
            if state.wanted.contains(path) { state.kept[path] = loop }
        }
        // The decoder's buffers were freed on this thread's malloc arena: give the pages back.
        nc_release_free_memory()
    }

    /// The file's path, size and modification time; nil when it cannot be read.
    private static func key(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(path)|\(info.st_size)|\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }
}

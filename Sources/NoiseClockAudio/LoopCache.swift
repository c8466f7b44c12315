import FoundationEssentials
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

    /// `interleaved` stereo samples, folded to mono when both channels are the same throughout.
    public init(interleaved: [Int16], account: LoopMemory? = nil) {
        var mono = true
        var index = 0
        while index + 1 < interleaved.count {
            if interleaved[index] != interleaved[index + 1] { mono = false; break }
            index += 2
        }
        isMono = mono
        samples = mono ? stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] } : interleaved
        self.account = account
        account?.bytes.add(samples.count * MemoryLayout<Int16>.size, ordering: .relaxed)
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

/// Decoded sound files, kept between plays within a memory budget (all decoded loops alive,
/// playing or kept, count against it). A loop is decoded once, on a thread of its own, while its
/// first pass already plays from the streaming decoder; from then on the audio thread only copies
/// samples. Entries are keyed by path, size and modification time, so a replaced file is decoded
/// again; the least recently used go first when the budget is reached.
public final class LoopCache: Sendable {
    /// 16 MB: about three stereo or six mono loops of 45 s at 48 kHz.
    public static let defaultBudget = 16 << 20
    public static let shared = LoopCache()

    public let budget: Int
    /// What its loops hold now, kept or playing.
    public let memory = LoopMemory()

    private struct Entry {
        var loop: DecodedLoop
        var used: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var pending: [String: LoopSlot] = [:]
        var tick: UInt64 = 0
    }

    private let state = Mutex(State())

    public init(budget: Int = LoopCache.defaultBudget) {
        self.budget = budget
    }

    /// The decoded loop of `path` when it is kept and the file is unchanged.
    public func loop(_ path: String) -> DecodedLoop? {
        guard let key = Self.key(path) else { return nil }
        return state.withLock { state in
            state.tick += 1
            state.entries[key]?.used = state.tick
            return state.entries[key]?.loop
        }
    }

    /// Starts decoding `path` (of `frames` frames) on a thread of its own, unless it would not fit
    /// the budget (after letting go of the least recently used loops); the slot is filled when it
    /// is done. A second call for the same file while it decodes shares the first one's slot.
    public func decodeAhead(_ path: String, frames: Int) -> LoopSlot? {
        guard let key = Self.key(path) else { return nil }
        let estimate = frames * AudioFormat.channels * MemoryLayout<Int16>.size
        let (slot, isNew): (LoopSlot?, Bool) = state.withLock { state in
            if let pending = state.pending[key] { return (pending, false) }
            while memory.current + estimate > budget, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.entries[oldest.key] = nil
            }
            guard memory.current + estimate <= budget else { return (nil, false) }
            let slot = LoopSlot()
            state.pending[key] = slot
            return (slot, true)
        }
        if let slot, isNew {
            Threads.start(name: "loop decode") { [self] in decode(path, key: key, into: slot) }
        }
        return slot
    }

    private func decode(_ path: String, key: String, into slot: LoopSlot) {
        let loop = (try? MP3Decoder(path: path).decodeAll()).flatMap { $0.isEmpty ? nil : DecodedLoop(interleaved: $0, account: memory) }
        state.withLock { state in
            state.pending[key] = nil
            guard let loop else { return }
            state.tick += 1
            state.entries[key] = Entry(loop: loop, used: state.tick)
        }
        if let loop { slot.fill(loop) }
    }

    /// Forgets every kept loop (those playing stay alive with their sources).
    public func removeAll() {
        state.withLock { $0.entries = [:] }
    }

    private static func key(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return "\(path)|\(size)|\(modified.timeIntervalSince1970)"
    }
}

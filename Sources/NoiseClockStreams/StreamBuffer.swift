import NoiseClockAudio
import NoiseClockSystem
import Synchronization

/// The audio a stream keeps ahead of playback: a ring of `capacity` stereo frames in the engine's
/// format, filled by one receiver thread and read by the audio thread (the mpv way: the player only
/// ever reads this, so nothing the network does can stall the audio thread or the loop).
///
/// Bounded by construction: a stream's memory is this ring (4 s of audio is 690 KiB) whatever the
/// server sends. Before the audio thread has read from it (a stream connected ahead of an alarm),
/// a full ring drops its oldest audio, so the ring holds the latest `capacity` frames of a live
/// station and the server is read at its own pace; once it plays, a full ring makes the writer
/// wait, so a server that sends faster than real time (a file, HLS segments) is read no faster than
/// it is heard. Copies happen under a lock held for one memcpy at most; the audio thread never
/// waits on the network.
public final class StreamBuffer: Sendable {
    public let capacity: Int
    private let ring: Mutex<Ring>
    private let room = WakeSignal()

    // @unchecked Sendable: it owns `samples` and is only reached through the Mutex.
    private struct Ring: ~Copyable, @unchecked Sendable {
        let samples: UnsafeMutablePointer<Int16>
        let capacity: Int
        var start = 0
        var count = 0
        var playing = false
        var finished = false
        var closed = false
        var framesRead = 0
        var framesDropped = 0
        var writerWaiting = false
        let keepsNewest: Bool

        init(capacity: Int, keepsNewest: Bool) {
            self.capacity = capacity
            self.keepsNewest = keepsNewest
            samples = .allocate(capacity: capacity * AudioFormat.channels)
            samples.initialize(repeating: 0, count: capacity * AudioFormat.channels)
        }

        deinit { samples.deallocate() }

        /// Copies `frames` frames of `source` in after the last frame (there must be room).
        mutating func append(_ source: UnsafeBufferPointer<Int16>, frames: Int) {
            guard let from = source.baseAddress else { return }
            var copied = 0
            while copied < frames {
                let end = (start + count) % capacity
                let n = min(frames - copied, capacity - end)
                (samples + end * 2).update(from: from + copied * 2, count: n * 2)
                count += n
                copied += n
            }
        }

        /// Copies up to `frames` frames out from the first one into `target`, removing them.
        mutating func take(into target: UnsafeMutableBufferPointer<Int16>, frames: Int) -> Int {
            guard let to = target.baseAddress else { return 0 }
            let wanted = min(frames, count)
            var copied = 0
            while copied < wanted {
                let n = min(wanted - copied, capacity - start)
                (to + copied * 2).update(from: samples + start * 2, count: n * 2)
                start = (start + n) % capacity
                count -= n
                copied += n
            }
            return wanted
        }

        mutating func drop(_ frames: Int) {
            let n = min(frames, count)
            start = (start + n) % capacity
            count -= n
            framesDropped += n
        }
    }

    /// A ring for `seconds` of audio (at least a quarter of a second: one period of the engine).
    /// `keepsNewest`: before it is heard a full ring drops its oldest audio (a live station); false:
    /// the writer always waits for room (speech, where every word counts).
    public init(seconds: Double, keepsNewest: Bool = true) {
        let frames = max(AudioEngine.periodFrames, Int(seconds * Double(AudioFormat.sampleRate)))
        capacity = frames
        ring = Mutex(Ring(capacity: frames, keepsNewest: keepsNewest))
    }

    // MARK: The writer (one receiver thread at a time)

    /// Appends interleaved stereo `samples`. Waits while the ring is full and already playing,
    /// until there is room, the buffer is closed, or `shouldStop` says so (asked about once a
    /// second while waiting). False when it stopped before all was written.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Int16>, shouldStop: () -> Bool = { false }) -> Bool {
        let total = samples.count / AudioFormat.channels
        var written = 0
        while written < total {
            let rest = UnsafeBufferPointer(rebasing: samples[(written * AudioFormat.channels)...])
            let step = ring.withLock { ring -> Int? in
                if ring.closed { return nil }
                var free = ring.capacity - ring.count
                if free == 0, !ring.playing, ring.keepsNewest {
                    // Not heard yet: keep the newest audio, as a live radio would.
                    ring.drop(min(ring.capacity, total - written))
                    free = ring.capacity - ring.count
                }
                let n = min(free, total - written)
                if n > 0 { ring.append(rest, frames: n) }
                ring.writerWaiting = n == 0
                return n
            }
            guard let step else { return false }
            written += step
            if step == 0 {
                if shouldStop() { return false }
                room.wait(timeout: .seconds(1))
            }
        }
        return true
    }

    /// No more audio will come: the reader plays out what is here, then the source ends.
    public func finish() {
        ring.withLock { $0.finished = true }
    }

    /// Ends the buffer at once: a waiting writer returns, the reader ends.
    public func close() {
        ring.withLock {
            $0.closed = true
            $0.finished = true
            $0.count = 0
        }
        room.signal()
    }

    // MARK: The reader (the audio thread)

    /// Takes up to `buffer.count / 2` frames; the frames taken. Marks the ring as playing.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        let (taken, wakeWriter) = ring.withLock { ring -> (Int, Bool) in
            ring.playing = true
            let taken = ring.take(into: buffer, frames: buffer.count / AudioFormat.channels)
            ring.framesRead += taken
            let wake = ring.writerWaiting && taken > 0
            if wake { ring.writerWaiting = false }
            return (taken, wake)
        }
        if wakeWriter { room.signal() }
        return taken
    }

    // MARK: What the player looks at

    /// Frames waiting to be heard.
    public var bufferedFrames: Int { ring.withLock { $0.count } }
    /// Seconds of audio waiting to be heard.
    public var bufferedSeconds: Double { Double(bufferedFrames) / Double(AudioFormat.sampleRate) }
    /// Frames the audio thread has taken since the buffer was made: grows while the stream is heard.
    public var framesRead: Int { ring.withLock { $0.framesRead } }
    /// Frames dropped unheard (a live stream connected ahead of its time).
    public var framesDropped: Int { ring.withLock { $0.framesDropped } }
    /// True once `finish` or `close` was called and every frame has been read.
    public var isDrained: Bool { ring.withLock { $0.finished && $0.count == 0 } }
    /// True once `finish` or `close` was called (frames may still wait to be read).
    public var isFinished: Bool { ring.withLock { $0.finished } }
}

/// A stream in the mixer: plays what its `StreamBuffer` holds, and silence while the network is
/// behind (a stream that stalls keeps its place in the mix, so a reconnect is heard where it left
/// off, faded by the mixer like any source). It ends only when its buffer is finished and drained.
public final class StreamSource: SampleSource {
    public let buffer: StreamBuffer
    /// Frames of silence put in because the buffer was empty (an underrun of the network).
    public private(set) var silentFrames = 0

    public init(buffer: StreamBuffer) { self.buffer = buffer }

    public func render(into target: UnsafeMutableBufferPointer<Int16>) -> Int {
        let wanted = target.count / AudioFormat.channels
        let taken = buffer.read(into: target)
        guard taken < wanted else { return wanted }
        if buffer.isDrained { return taken }
        let rest = UnsafeMutableBufferPointer(rebasing: target[(taken * AudioFormat.channels)...])
        rest.update(repeating: 0)
        silentFrames += wanted - taken
        return wanted
    }
}

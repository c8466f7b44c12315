#if canImport(Glibc)
import Glibc
#endif
import NoiseClockAudio
import NoiseClockSystem
import Synchronization

/// One stream, decoded by the `noiseclock-stream` helper (FFmpeg) in a process of its own, into a
/// `StreamBuffer` of the node: the node's side of the helper, with the same contract as the
/// receiver inside it. The helper writes the audio to a pipe and its events as lines to another;
/// one thread of the node ("stream") reads both, puts the audio in the buffer (waiting for room
/// as a receiver would, which holds the helper back) and hands on the events in order, `ended`
/// last, after the last audio. It does not reconnect: it ends, and its owner decides.
///
/// Why a process: Debian's libavformat links libxml2 and ICU, which the node's process never
/// loads; and a decoder that a hostile stream crashes ends the helper (`ended` with `decode`), not
/// the alarm clock. The helper exists only while its stream plays.
public final class StreamProcess: Sendable {
    public let url: String
    public let buffer: StreamBuffer
    private let options: StreamOptions
    private let executable: String
    private let onEvent: @Sendable (StreamEvent) -> Void
    private let state = Mutex(State())

    private struct State {
        var started = false
        var stopped = false
        var pid: pid_t = 0
    }

    /// The helper: beside the running program (the build folder, `/usr/bin` in the package is
    /// not: the package puts it in `/usr/libexec/noiseclock`).
    public static var defaultExecutable: String {
        let folder = String(Executable.path.reversed().drop { $0 != "/" }.reversed())
        let beside = folder + "noiseclock-stream"
        return access(beside, X_OK) == 0 ? beside : "/usr/libexec/noiseclock/noiseclock-stream"
    }

    public init(
        url: String, into buffer: StreamBuffer, options: StreamOptions = StreamOptions(), executable: String = StreamProcess.defaultExecutable,
        onEvent: @escaping @Sendable (StreamEvent) -> Void
    ) {
        self.url = url
        self.buffer = buffer
        self.options = options
        self.executable = executable
        self.onEvent = onEvent
    }

    /// Starts the helper and the thread that reads it (once).
    public func start() {
        guard state.withLock({ state in
            defer { state.started = true }
            return !state.started
        }) else { return }
        Threads.start(name: "stream") { [self] in
            let error = run()
            onEvent(.ended(error))
        }
    }

    /// Ends the stream: the helper is sent SIGTERM (it ends at once), the thread sends `ended(nil)`.
    public func stop() {
        // Signalled under the lock that `run` forgets the id under before it reaps the child: a
        // signal sent after the lock was let go could reach the number's next process.
        state.withLock { state in
            state.stopped = true
            if state.pid > 0 { kill(state.pid, SIGTERM) }
        }
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    /// The helper's process id while it runs (0 before and after).
    var helperID: pid_t { state.withLock { $0.pid } }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// The life of the helper; the error it ended with (nil when stopped).
    private func run() -> StreamError? {
        guard let audio = Spawning.pipe() else { return StreamError(.helper, "cannot make a pipe: \(String(cString: strerror(errno)))") }
        guard let events = Spawning.pipe() else {
            let reason = String(cString: strerror(errno))
            close(audio.read)
            close(audio.write)
            return StreamError(.helper, "cannot make a pipe: \(reason)")
        }
        defer {
            close(audio.read)
            close(events.read)
        }
        let arguments = [
            executable, "--open-timeout-ms", String(Self.milliseconds(options.openTimeout)),
            "--stall-timeout-ms", String(Self.milliseconds(options.stallTimeout)),
            "--ca-file", options.caFile, "--user-agent", options.userAgent, url,
        ]
        let spawned = spawn(arguments, audio: audio.write, events: events.write)
        close(audio.write)
        close(events.write)
        guard case .success(let pid) = spawned else {
            if case .failure(let code) = spawned {
                return StreamError(.helper, "cannot start \(executable): \(String(cString: strerror(code.code)))")
            }
            return StreamError(.helper, "cannot start \(executable)")
        }
        let stopNow = state.withLock { state -> Bool in
            state.pid = pid
            return state.stopped
        }
        if stopNow { kill(pid, SIGTERM) }

        var reported: StreamError??
        pump(audio: audio.read, events: events.read) { event in
            if case .ended(let error) = event { reported = .some(error) } else { onEvent(event) }
        }
        // Waited for without reaping first, so that `stop` never signals the number once it may
        // belong to another process: the id is forgotten, then the child reaped.
        var exited = siginfo_t()
        while waitid(P_PID, id_t(pid), &exited, WEXITED | WNOWAIT) < 0, errno == EINTR {}
        state.withLock { $0.pid = 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        if stopped { return nil }
        if let reported { return reported }
        let signal = status & 0x7f
        return StreamError(
            .decode, signal != 0 ? "the stream's decoder stopped (signal \(signal))" : "the stream's decoder stopped (exit \((status >> 8) & 0xff))")
    }

    /// Reads the helper's audio into the buffer and its lines into events until both pipes end.
    private func pump(audio: Int32, events: Int32, event: (StreamEvent) -> Void) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        // A frame is 4 bytes; a read may end inside one.
        var carried: [UInt8] = []
        var line: [UInt8] = []
        var audioIn = false, soundingHeld = false
        var fds = [pollfd(fd: audio, events: Int16(POLLIN), revents: 0), pollfd(fd: events, events: Int16(POLLIN), revents: 0)]
        var open = [true, true]
        while open[0] || open[1] {
            for index in 0..<2 { fds[index].fd = open[index] ? (index == 0 ? audio : events) : -1 }
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            // Events first: `connected` comes before the audio it announces; `sounding` is passed
            // on once audio is in the buffer (the helper wrote it after its audio, on another pipe).
            if fds[1].revents != 0 {
                let n = chunk.withUnsafeMutableBytes { read(events, $0.baseAddress, $0.count) }
                if n <= 0 {
                    if n < 0, errno == EINTR { continue }
                    open[1] = false
                } else {
                    for byte in chunk[..<n] {
                        if byte == UInt8(ascii: "\n") {
                            if let parsed = StreamEvent(line: String(decoding: line, as: UTF8.self)) {
                                if parsed == .sounding, !audioIn { soundingHeld = true } else { event(parsed) }
                            }
                            line.removeAll(keepingCapacity: true)
                        } else if line.count < 4096 {
                            line.append(byte)
                        }
                    }
                }
            }
            if fds[0].revents != 0 {
                let n = chunk.withUnsafeMutableBytes { read(audio, $0.baseAddress, $0.count) }
                if n <= 0 {
                    if n < 0, errno == EINTR { continue }
                    open[0] = false
                } else {
                    carried.append(contentsOf: chunk[..<n])
                    let whole = carried.count / 4 * 4
                    guard whole > 0 else { continue }
                    let complete = carried.withUnsafeBytes { bytes in
                        buffer.write(UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: Int16.self), count: whole / 2)) { stopped }
                    }
                    carried.removeFirst(whole)
                    audioIn = true
                    if soundingHeld {
                        soundingHeld = false
                        event(.sounding)
                    }
                    if !complete, stopped { return }
                }
            }
        }
    }

    private func spawn(_ arguments: [String], audio: Int32, events: Int32) -> Result<pid_t, Spawning.SpawnFailure> {
        // Its stderr is the node's (FFmpeg's own complaints land in the journal); the events on 3.
        Spawning.spawn(arguments, executable: executable, stdout: .descriptor(audio), extra: [(3, events)], group: false)
    }
}

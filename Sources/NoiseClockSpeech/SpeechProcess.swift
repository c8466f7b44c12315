#if canImport(Glibc)
import Glibc
#endif
import NoiseClockAudio
import NoiseClockStreams
import NoiseClockSystem
import Synchronization

/// One utterance made by an engine's process (SPEC §16): the built-in `noiseclock-speak`
/// (libespeak-ng) or the user's `speech.command` (Piper): the text on its stdin, WAV on its
/// stdout. One thread of the node ("speech") writes the chime into the buffer, starts the process,
/// reads its WAV, resamples it to the engine's format and writes it into the buffer as it comes,
/// waiting for room (4 s ahead at most), so a long text costs the buffer, not its length. Every
/// wait is bounded: an engine that says nothing for `stallTimeout` is killed, and its sound is cut
/// at `maximumSeconds`. The process lives only while it speaks; synthesis never runs on the
/// node's thread.
public final class SpeechProcess: Sendable {
    public struct Job: Sendable {
        /// The program and its arguments (`/bin/sh -c COMMAND` for the user's).
        public var arguments: [String]
        /// Added to the node's environment (`NOISECLOCK_VOICE`, `NOISECLOCK_LANGUAGE`…).
        public var environment: [String: String]
        public var text: String
        public var chime: Bool
        public var stallTimeout: Duration
        public var maximumSeconds: Double

        public init(
            arguments: [String], environment: [String: String] = [:], text: String, chime: Bool, stallTimeout: Duration = .seconds(10),
            maximumSeconds: Double = 180
        ) {
            self.arguments = arguments
            self.environment = environment
            self.text = text
            self.chime = chime
            self.stallTimeout = stallTimeout
            self.maximumSeconds = maximumSeconds
        }
    }

    public enum Event: Sendable, Equatable {
        /// The voice's first samples are in the buffer.
        case speaking
        /// The engine is done (an error: nothing or not all could be said); the buffer is finished
        /// right after.
        case ended(SpeechError?)
    }

    public let buffer: StreamBuffer
    private let job: Job
    private let onEvent: @Sendable (Event) -> Void
    private let state = Mutex(State())

    private struct State {
        var started = false
        var stopped = false
        var pid: pid_t = 0
    }

    /// The built-in engine's helper: beside the running program, else where the package puts it.
    public static var defaultHelper: String {
        let folder = String(Executable.path.reversed().drop { $0 != "/" }.reversed())
        let beside = folder + "noiseclock-speak"
        return access(beside, X_OK) == 0 ? beside : "/usr/libexec/noiseclock/noiseclock-speak"
    }

    public init(_ job: Job, into buffer: StreamBuffer, onEvent: @escaping @Sendable (Event) -> Void) {
        self.job = job
        self.buffer = buffer
        self.onEvent = onEvent
    }

    /// Starts the thread (once).
    public func start() {
        guard state.withLock({ state in
            defer { state.started = true }
            return !state.started
        }) else { return }
        Threads.start(name: "speech") { [self] in
            let error = run()
            // Told before the buffer ends: whoever hears of the end from the source (on the
            // audio thread, after this) hears of the error first.
            onEvent(.ended(error))
            if stopped { buffer.close() } else { buffer.finish() }
        }
    }

    /// Stops at once: the engine's process group is killed, the buffer closed (the source ends).
    public func stop() {
        state.withLock { state in
            state.stopped = true
            if state.pid > 0 { kill(0 - state.pid, SIGKILL) }
        }
        buffer.close()
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func run() -> SpeechError? {
        if job.chime {
            let chime = Chime.samples()
            guard chime.withUnsafeBufferPointer({ buffer.write($0) { stopped } }) else { return nil }
        }
        guard let input = Spawning.pipe() else { return SpeechError("cannot make a pipe: \(String(cString: strerror(errno)))") }
        guard let output = Spawning.pipe() else {
            close(input.read)
            close(input.write)
            return SpeechError("cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        let spawned = spawn(stdin: input.read, stdout: output.write)
        close(input.read)
        close(output.write)
        guard case .success(let pid) = spawned else {
            close(input.write)
            close(output.read)
            if case .failure(let code) = spawned { return SpeechError("cannot start \(job.arguments.first ?? ""): \(String(cString: strerror(code.code)))") }
            return SpeechError("cannot start \(job.arguments.first ?? "")")
        }
        let stopNow = state.withLock { state -> Bool in
            state.pid = pid
            return state.stopped
        }
        if stopNow { kill(0 - pid, SIGKILL) }
        // The text is at most a few KiB: the pipe takes it whole, then the engine sees its end.
        send(Array(job.text.utf8), to: input.write)
        close(input.write)
        let (problem, whole) = pump(output.read)
        // Read to its end, or not listened to any more (a problem, a cut, a stop): the engine and
        // whatever it started go now, and nothing of theirs waits on a pipe no one reads.
        close(output.read)
        if !whole { kill(0 - pid, SIGKILL) }
        // As StreamProcess: forget the id, then reap, so `stop` never signals a reused number.
        var exited = siginfo_t()
        while waitid(P_PID, id_t(pid), &exited, WEXITED | WNOWAIT) < 0, errno == EINTR {}
        state.withLock { $0.pid = 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        if stopped { return nil }
        if let problem { return problem }
        // Cut at `maximumSeconds`: killed by us, and what was said stands.
        if !whole { return nil }
        guard status == 0 else {
            let signal = status & 0x7f
            let how = signal != 0 ? "was killed (signal \(signal))" : "failed (exit \((status >> 8) & 0xff))"
            return SpeechError("the speech engine \(how)")
        }
        return nil
    }

    /// Writes `bytes` to the engine's stdin. An engine that has exited without reading it (`exit 3`,
    /// a command that never reads) makes the write a broken pipe, whose SIGPIPE would end the node:
    /// this thread blocks it while it writes and takes the one it raised (a thread's own signal),
    /// and what the engine did not read is its own affair.
    private func send(_ bytes: [UInt8], to fd: Int32) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + sent }, bytes.count - sent) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EPIPE {
                var none = timespec()
                while sigtimedwait(&pipeSignal, nil, &none) < 0 && errno == EINTR {}
            }
            if n <= 0 { break }
            sent += n
        }
    }

    /// Reads the engine's WAV into the buffer: the problem that ended it early, if any, and whether
    /// it was read to its end (false: cut at `maximumSeconds`, stopped, or a problem).
    private func pump(_ fd: Int32) -> (SpeechError?, Bool) {
        var reader = WAVStream.Reader()
        var resampler: Resampler?
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var framesOut = 0, told = false
        let limit = Int(job.maximumSeconds * Double(AudioFormat.sampleRate))
        let timeout = Int32(job.stallTimeout.components.seconds * 1000 + job.stallTimeout.components.attoseconds / 1_000_000_000_000_000)
        func put(_ samples: [Int16]) -> Bool {
            guard !samples.isEmpty else { return true }
            let frames = min(samples.count / 2, limit - framesOut)
            guard frames > 0 else { return false }
            framesOut += frames
            let written = samples.withUnsafeBufferPointer { all in
                buffer.write(UnsafeBufferPointer(rebasing: all[0..<(frames * 2)])) { stopped }
            }
            if written && !told {
                told = true
                onEvent(.speaking)
            }
            return written && framesOut < limit
        }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return (SpeechError("cannot read the speech engine: \(String(cString: strerror(errno)))"), false)
            }
            if ready == 0 { return (SpeechError("the speech engine sent nothing for \(job.stallTimeout.components.seconds) s"), false) }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return (SpeechError("cannot read the speech engine: \(String(cString: strerror(errno)))"), false)
            }
            if n == 0 { break }
            let samples: [Int16]
            do throws(SpeechError) { samples = try reader.feed(chunk[..<n]) } catch { return (error, false) }
            if let format = reader.format, resampler == nil { resampler = Resampler(inputRate: format.sampleRate, channels: format.channels) }
            if var current = resampler {
                let more = put(current.process(samples))
                resampler = current
                // Stopped, or cut at `maximumSeconds`: what was said stands.
                if !more { return (nil, false) }
            }
            if reader.isComplete { break }
        }
        guard var last = resampler else { return (reader.format == nil ? SpeechError("the speech engine wrote no WAV") : nil, true) }
        _ = put(last.finish())
        return (framesOut == 0 ? SpeechError("the speech engine wrote no sound") : nil, true)
    }

    private func spawn(stdin: Int32, stdout: Int32) -> Result<pid_t, Spawning.SpawnFailure> {
        Spawning.spawn(job.arguments, environment: job.environment, stdin: stdin, stdout: stdout)
    }
}

import NoiseClockSystem

#if canImport(Glibc)
import Glibc
#endif

/// One of the user's commands, run through `/bin/sh -c` as the configuration file wrote it.
///
/// posix_spawn rather than Foundation's `Process`: the node does not link Foundation, and the
/// child must start with an empty signal mask and default handlers, where the node's threads keep
/// SIGTERM and SIGINT blocked for their `sigwait` thread (a child inheriting that mask could not
/// be stopped by them). The child gets a process group of its own, so a timeout kills whatever the
/// shell started as well, and no descriptor of the node's but stdin, stdout and stderr.
enum ShellCommand {
    enum Outcome: Hashable, Sendable {
        /// The exit status, and the end of what it wrote to stderr.
        case exited(Int32, String)
        case killed(signal: Int32, String)
        case timedOut(String)
        case notStarted(String)
    }

    /// How much of stderr is kept: the end is where a failing command says why.
    static let keptOutput = 2048

    /// Runs `command` to its end or for at most `timeout`, blocking the calling thread. stdin and
    /// stdout are /dev/null; stderr is collected while it runs, so a chatty command never blocks
    /// on a full pipe.
    static func run(_ command: String, timeout: Duration) -> Outcome {
        // Close-on-exec from the start, so no other child holds the pipe open.
        guard let (readEnd, writeEnd) = Spawning.pipe() else {
            return .notStarted("pipe: \(String(cString: strerror(errno)))")
        }
        defer { close(readEnd) }
        let started = spawn(command, errorOutput: writeEnd)
        close(writeEnd)
        let pid: pid_t
        switch started {
        case .success(let child): pid = child
        case .failure(let error): return .notStarted("/bin/sh: \(String(cString: strerror(error.code)))")
        }

        let deadline = ContinuousClock.now + timeout
        var output: [UInt8] = []
        var outputOpen = true
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { return .notStarted("waitpid: \(String(cString: strerror(errno)))") }
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                drain(readEnd, into: &output)
                return .timedOut(text(output))
            }
            // Wake for output or every 20 ms to look for the exit (a command that leaves a
            // background child holding stderr open has still finished).
            let wait = Int32(min(20, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            if outputOpen {
                outputOpen = read(readEnd, into: &output, waitingMilliseconds: wait)
            } else {
                Threads.sleep(.milliseconds(Int(wait)))
            }
        }
        drain(readEnd, into: &output)
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff, text(output)) : .killed(signal: signal, text(output))
    }

    private static func spawn(_ command: String, errorOutput: Int32) -> Result<pid_t, Spawning.SpawnFailure> {
        Spawning.spawn(["/bin/sh", "-c", command], stderr: .descriptor(errorOutput))
    }

    /// Waits up to `milliseconds` for output and appends what came; false once the pipe is closed.
    private static func read(_ fd: Int32, into output: inout [UInt8], waitingMilliseconds milliseconds: Int32) -> Bool {
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = Glibc.poll(&poll, 1, milliseconds)
        guard ready > 0 else { return true }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n < 0 { return errno == EINTR || errno == EAGAIN }
        if n == 0 { return false }
        output.append(contentsOf: chunk.prefix(n))
        if output.count > keptOutput { output.removeFirst(output.count - keptOutput) }
        return true
    }

    /// Takes what is already in the pipe, without waiting for writers that may never close it.
    private static func drain(_ fd: Int32, into output: inout [UInt8]) {
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while Glibc.poll(&poll, 1, 0) > 0, poll.revents & Int16(POLLIN) != 0, read(fd, into: &output, waitingMilliseconds: 0) {}
    }

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

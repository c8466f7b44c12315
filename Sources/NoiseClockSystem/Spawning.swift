import CTimerFD

#if canImport(Glibc)
import Glibc
#endif

/// Descriptor hygiene for the children the node spawns (the user's screen commands): calls Swift's
/// Glibc module does not declare.
public enum Spawning {
    /// A pipe, both ends close-on-exec from the start; nil with `errno` set on failure.
    public static func pipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard ends.withUnsafeMutableBufferPointer({ nc_pipe_cloexec($0.baseAddress) }) == 0 else { return nil }
        return (ends[0], ends[1])
    }

    /// Makes the child close every descriptor from 3 up before it runs its program: it gets its
    /// stdin, stdout and stderr and nothing of the node's (the broker's socket, the sound card,
    /// a store file being written), even where a library opened one without close-on-exec. A child
    /// left running in the background would otherwise keep the broker's connection open after the
    /// node has gone, and hold back its last will. 0, or an error number.
    /// `from`: the first descriptor closed (a child given more than stdin, stdout and stderr
    /// keeps those below it).
    public static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t, from first: Int32 = 3) -> Int32 {
        nc_spawn_close_from(&actions, first)
    }
}

extension Spawning {
    /// Starts `arguments[0]` (an absolute path) with `arguments`, its stdin, stdout and stderr on
    /// the given descriptors (-1: /dev/null's stays unset, the node's own is inherited), nothing
    /// else of the node's descriptors, no signal blocked or ignored, `environment` laid over the
    /// node's, and in a process group of its own (so it and whatever it starts are stopped
    /// together). The child's pid, or the error number of `posix_spawn`.
    public static func spawn(
        _ arguments: [String], environment overrides: [String: String] = [:], stdin: Int32 = -1, stdout: Int32 = -1, stderr: Int32 = -1
    ) -> Result<pid_t, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] where descriptor >= 0 {
            posix_spawn_file_actions_adddup2(&actions, descriptor, target)
        }
        _ = closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var environment: [String: String] = [:]
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") { environment[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
            index += 1
        }
        for (key, value) in overrides { environment[key] = value }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { $0.withCString { strdup($0) } } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { "\($0.key)=\($0.value)".withCString { strdup($0) } } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, arguments.first ?? "", &actions, &attributes, argv, envp)
        return rc == 0 ? .success(pid) : .failure(SpawnFailure(code: rc))
    }

    /// An error number from `posix_spawn`.
    public struct SpawnFailure: Error, Sendable, CustomStringConvertible {
        public var code: Int32
        public init(code: Int32) { self.code = code }
        public var description: String { String(cString: strerror(code)) }
    }

    /// What a program run to its end said.
    public struct Output: Sendable {
        /// Its exit status, or 128 + the signal that ended it.
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: [UInt8]
        /// It wrote more than the bound to stdout (the rest was not read; it was stopped).
        public var truncated: Bool
        /// It ran past the timeout and was stopped.
        public var timedOut: Bool
    }

    /// Runs `arguments` to its end on the calling thread (a worker's, never the node's): stdin
    /// from /dev/null, stdout kept up to `maxOutput` bytes, stderr up to 4 KiB; a program that
    /// writes more, or runs past `timeout`, is stopped with its group.
    public static func run(_ arguments: [String], maxOutput: Int, timeout: Duration) -> Result<Output, SpawnFailure> {
        guard let out = pipe() else { return .failure(SpawnFailure(code: errno)) }
        guard let err = pipe() else {
            close(out.read)
            close(out.write)
            return .failure(SpawnFailure(code: errno))
        }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let spawned = spawn(arguments, stdin: null, stdout: out.write, stderr: err.write)
        close(out.write)
        close(err.write)
        if null >= 0 { close(null) }
        guard case .success(let pid) = spawned else {
            close(out.read)
            close(err.read)
            if case .failure(let failure) = spawned { return .failure(failure) }
            return .failure(SpawnFailure(code: EINVAL))
        }
        var output = Output(status: 0, stdout: [], stderr: [], truncated: false, timedOut: false)
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        let limit = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var open = [out.read, err.read]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = limit - (Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9)
            if left <= 0 {
                output.timedOut = true
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(left * 1000, 1_000)) + 1)
            if ready < 0 && errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count <= 0 {
                    if count < 0, errno == EINTR || errno == EAGAIN { continue }
                    open.removeAll { $0 == entry.fd }
                } else if entry.fd == out.read {
                    output.stdout += buffer[..<count]
                    if output.stdout.count > maxOutput {
                        output.stdout.removeLast(output.stdout.count - maxOutput)
                        output.truncated = true
                    }
                } else if output.stderr.count < 4096 {
                    output.stderr += buffer[..<min(count, 4096 - output.stderr.count)]
                }
            }
            if output.truncated { break }
        }
        if output.timedOut || output.truncated { kill(-pid, SIGKILL) }
        close(out.read)
        close(err.read)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift's Glibc module does not import.
        let signal = status & 0x7f
        output.status = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return .success(output)
    }
}

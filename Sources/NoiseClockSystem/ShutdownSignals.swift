#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT, taken by a thread of their own with `sigwait` rather than by libdispatch's
/// signal sources (which start libdispatch's thread pool and its once-a-second monitor).
public enum ShutdownSignals {
    /// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts from now on.
    /// Call it first thing in `main`, before any thread exists.
    public static func block() {
        var set = signals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts a thread that calls `handler` with each SIGTERM or SIGINT (after `block()`).
    public static func watch(_ handler: @escaping @Sendable (Int32) -> Void) {
        Threads.start(name: "signals") {
            var set = signals
            while true {
                var signal: Int32 = 0
                if sigwait(&set, &signal) == 0 { handler(signal) }
            }
        }
    }

    private static var signals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }
}

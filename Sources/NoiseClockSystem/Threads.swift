import CTimerFD
#if canImport(Glibc)
import Glibc
#endif

/// The node's own threads (MQTT network, audio, UPower's main loop) and what they sleep on,
/// on POSIX threads directly: each one blocks in a C library for its whole life, which is what
/// Swift's task pool must not do.
public enum Threads {
    /// Starts a detached thread named `name` (at most 15 bytes are kept) running `body`. A
    /// `background` thread runs 10 nice steps below its process (nice 10 for a node at 0): work
    /// that may take its time (decoding a loop ahead of the play, scanning a folder), so that on a
    /// busy machine it yields to what is due now, such as an alarm's event on this node or on
    /// another one beside it.
    public static func start(name: String, background: Bool = false, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadContext(name: name, background: background, body: body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, threadEntry, context)
        // Each of the node's few threads carries a C library's loop; without it the node cannot work.
        guard rc == 0 else { fatalError("cannot start the \(name) thread: pthread_create returned \(rc)") }
        pthread_detach(thread)
    }

    /// Names the calling thread for `top -H` and `/proc` (pthread_setname_np is not visible from
    /// Swift's Glibc module; this is what it does).
    fileprivate static func nameThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Sleeps the calling thread (never a task) for `duration`.
    public static func sleep(_ duration: Duration) {
        guard duration > .zero else { return }
        var request = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}

/// What a new thread runs first: takes its context back from `start` and runs the body.
private func threadEntry(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    let context = Unmanaged<ThreadContext>.fromOpaque(argument).takeRetainedValue()
    Threads.nameThread(context.name)
    // On Linux a nice value belongs to the thread (`who` is its thread id): only this one yields.
    if context.background { _ = nc_thread_lower_priority(10) }
    context.body()
    return nil
}

private final class ThreadContext: Sendable {
    let name: String
    let background: Bool
    let body: @Sendable () -> Void

    init(name: String, background: Bool, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.background = background
        self.body = body
    }
}

/// A flag a thread sleeps on until another sets it, or a timeout passes (on the monotonic
/// clock, so setting the wall clock neither ends nor stretches a wait).
public final class WakeSignal: @unchecked Sendable {
    // @unchecked Sendable: `signaled` is only touched with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var signaled = false

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Sets the flag and wakes every waiter.
    public func signal() {
        pthread_mutex_lock(mutex)
        signaled = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Waits until the flag is set (and clears it) or `timeout` passes. True when signaled.
    @discardableResult
    public func wait(timeout: Duration) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int64(deadline.tv_nsec) + timeout.components.attoseconds / 1_000_000_000
        deadline.tv_sec += Int(timeout.components.seconds) + Int(nanoseconds / 1_000_000_000)
        deadline.tv_nsec = Int(nanoseconds % 1_000_000_000)
        pthread_mutex_lock(mutex)
        while !signaled {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
        }
        let woken = signaled
        signaled = false
        pthread_mutex_unlock(mutex)
        return woken
    }
}

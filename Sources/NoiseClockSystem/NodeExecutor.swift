import CTimerFD
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The one thread the node's Swift code runs on, and the node's event loop: a task executor that,
/// with no job to run, waits in one `epoll_wait` on the descriptors watched on it (the MQTT
/// socket, its keepalive timer, the time source's timers) and an eventfd that a job enqueued
/// from another thread signals. An idle node costs no wake-ups, and a command that comes in on
/// the socket is read, run and answered in one wake-up of this one thread.
///
/// Swift's default global executor on Linux is libdispatch's thread pool, whose workqueue monitor
/// wakes once a second for the life of the process once the pool has been used (measured: 60
/// context switches a minute with nothing to do). The node's tasks, their child tasks and the
/// default actors they call all run here instead (SE-0417 task executor preference), so the pool
/// is never started. A clock needs no more than one thread for its Swift side: blocking C calls
/// have their own threads (`Threads`).
///
/// A watch's handler runs on this thread between jobs, synchronously: it must not block (it reads
/// a ready descriptor, resumes a continuation, writes what a socket takes).
public final class NodeExecutor: TaskExecutor, SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: `parked` is only touched through atomics; the rest is behind locks,
    // or the loop thread's own (`turnEnds`, `lastLook`, `urgentScratch`).
    public static let shared = NodeExecutor(name: "swift executor")

    /// What a watched descriptor is ready for, or what a watch asks for.
    public struct Readiness: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let readable = Readiness(rawValue: Int32(NC_READABLE))
        public static let writable = Readiness(rawValue: Int32(NC_WRITABLE))
        /// The peer hung up or the descriptor failed (reported whether asked for or not).
        public static let hangup = Readiness(rawValue: Int32(NC_HANGUP))
    }

    /// A descriptor watched on the loop; `unwatch` ends it.
    public struct Watch: Sendable, Hashable {
        public let fd: Int32
        let token: UInt64
    }

    /// Jobs of tasks above the default priority (an alarm, a timer or a gong at its instant), run
    /// before the others; then the rest, in order.
    private let urgentJobs = Mutex<[UnownedJob]>([])
    private let jobs = Mutex<[UnownedJob]>([])
    private let urgentCount = Atomic<Int>(0)
    /// Closures to run on the loop (`execute`), in order, before the next jobs.
    private let calls = Mutex<[@Sendable () -> Void]>([])
    /// True while the loop thread waits (or is about to wait) in epoll: an enqueue that finds it
    /// true signals the eventfd, one that finds it false (the loop runs) costs no system call.
    private let parked = Atomic<Bool>(false)
    private let epoll: Int32
    private let wakeFD: Int32
    private let handlers = Mutex<[UInt64: @Sendable (Readiness) -> Void]>([:])
    private let nextToken = Atomic<UInt64>(1)
    /// The loop thread's pthread id, once it runs.
    private let loopThread = Atomic<UInt>(0)
    /// How many times the loop thread has come out of epoll_wait having slept (for tests).
    private let waits = Atomic<Int>(0)
    /// How many jobs have been enqueued (for tests and the bench: the hops a path costs).
    private let enqueued = Atomic<Int>(0)

    /// What runs at the end of every turn (`atEndOfTurn`); the loop thread's alone.
    private var turnEnds: [(token: UInt64, body: @Sendable () -> Void)] = []
    /// When the loop last looked at its descriptors (CLOCK_MONOTONIC ns); the loop thread's alone.
    private var lastLook: Int64 = 0
    /// How long a stream of jobs may run before the loop looks at its descriptors between batches.
    static let busyLook: Int64 = 1_000_000

    /// The eventfd's token in the epoll set.
    private static let wakeToken: UInt64 = 0

    /// The priority from which a job is urgent (as raw values: Swift 6.2, Debian's compiler for the
    /// arm64 package, has no public `JobPriority(TaskPriority)`).
    static let urgent: UInt8 = TaskPriority.high.rawValue

    public init(name: String) {
        epoll = nc_epoll_create()
        wakeFD = nc_eventfd_create()
        // Without epoll and eventfd (Linux 2.6.27 and later) the node cannot run at all.
        guard epoll >= 0, wakeFD >= 0, nc_epoll_control(epoll, 0, wakeFD, Int32(NC_READABLE), Self.wakeToken) == 0 else {
            fatalError("cannot create the event loop: errno \(errno)")
        }
        Threads.start(name: name) { [self] in run() }
    }

    // MARK: Jobs

    public func enqueue(_ job: consuming ExecutorJob) {
        enqueued.add(1, ordering: .relaxed)
        let urgent = job.priority.rawValue >= Self.urgent
        let job = UnownedJob(job)
        if urgent {
            urgentJobs.withLock {
                $0.append(job)
                urgentCount.store($0.count, ordering: .releasing)
            }
        } else {
            jobs.withLock { $0.append(job) }
        }
        wakeIfParked()
    }

    /// Runs `body` on the loop thread soon, before the next jobs (from any thread).
    public func execute(_ body: @escaping @Sendable () -> Void) {
        calls.withLock { $0.append(body) }
        wakeIfParked()
    }

    /// True on the loop thread.
    public var inLoop: Bool { loopThread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// As the executor of `NodeActor`: code isolated to it runs on the loop thread, or nowhere.
    public func checkIsolated() {
        precondition(inLoop, "not on the node's executor")
    }

    /// Runs `body` now when on the loop thread, else on the loop soon.
    public func onLoop(_ body: @escaping @Sendable () -> Void) {
        if inLoop { body() } else { execute(body) }
    }

    /// One system call only when the loop sleeps: a job enqueued by a job costs none.
    private func wakeIfParked() {
        if parked.exchange(false, ordering: .sequentiallyConsistent) { nc_eventfd_signal(wakeFD) }
    }

    // MARK: Watching descriptors

    /// Watches `fd` for `interest`; `handler` runs on the loop thread with what it is ready for
    /// (level-triggered: again at each turn while it stays ready). From any thread.
    public func watch(_ fd: Int32, for interest: Readiness, handler: @escaping @Sendable (Readiness) -> Void) -> Watch {
        let token = nextToken.add(1, ordering: .relaxed).oldValue
        handlers.withLock { $0[token] = handler }
        if nc_epoll_control(epoll, 0, fd, interest.rawValue, token) != 0 {
            fatalError("cannot watch descriptor \(fd): errno \(errno)")
        }
        return Watch(fd: fd, token: token)
    }

    /// Changes what `watch` waits for.
    public func change(_ watch: Watch, to interest: Readiness) {
        _ = nc_epoll_control(epoll, 1, watch.fd, interest.rawValue, watch.token)
    }

    /// Ends `watch` (before its descriptor is closed): its handler is not called again, even for
    /// readiness already reported in the same turn.
    public func unwatch(_ watch: Watch) {
        _ = nc_epoll_control(epoll, 2, watch.fd, 0, watch.token)
        handlers.withLock { $0[watch.token] = nil }
    }

    /// Runs `body` on the loop thread at the end of every turn: before the loop looks at its
    /// descriptors, whether to wait (nothing left to run) or not (a stream of jobs has run for
    /// `busyLook`). For what is cheaper done once a turn than once a job: the MQTT client writes
    /// what the turn's jobs published in one go. `body` must not block. From any thread.
    @discardableResult
    public func atEndOfTurn(_ body: @escaping @Sendable () -> Void) -> TurnEnd {
        let token = nextToken.add(1, ordering: .relaxed).oldValue
        onLoop { [self] in turnEnds.append((token, body)) }
        return TurnEnd(token: token)
    }

    /// Ends what `atEndOfTurn` started: `body` is not run again after this turn. From any thread.
    public func remove(_ turnEnd: TurnEnd) {
        onLoop { [self] in turnEnds.removeAll { $0.token == turnEnd.token } }
    }

    /// What `atEndOfTurn` runs; `remove` ends it.
    public struct TurnEnd: Sendable, Hashable {
        let token: UInt64
    }

    /// How many times the loop has woken from a wait (for tests).
    public var wakeCount: Int { waits.load(ordering: .relaxed) }

    /// How many jobs have been enqueued on the loop so far: a task's start, and each resumption
    /// (after an `await` that really waited, or a hop between isolation domains).
    public var jobCount: Int { enqueued.load(ordering: .relaxed) }

    // MARK: The loop

    private func run() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        var batch: [UnownedJob] = []
        var urgent: [UnownedJob] = []
        var pending: [@Sendable () -> Void] = []
        var tokens = [UInt64](repeating: 0, count: 64)
        var ready = [Int32](repeating: 0, count: 64)
        while true {
            runUrgent(&urgent)
            calls.withLock { swap(&pending, &$0) }
            for call in pending { call() }
            pending.removeAll(keepingCapacity: true)
            jobs.withLock { swap(&batch, &$0) }
            if batch.isEmpty {
                // Before `parked` is set: what the turn's end enqueues needs no signal.
                for end in turnEnds { end.body() }
                // Every queue looked at after `parked` is set: an enqueue that was not seen then
                // happens after it, finds `parked` true and signals the eventfd.
                parked.store(true, ordering: .sequentiallyConsistent)
                let idle = jobs.withLock { $0.isEmpty } && urgentJobs.withLock { $0.isEmpty } && calls.withLock { $0.isEmpty }
                if !idle { parked.store(false, ordering: .sequentiallyConsistent) }
                dispatch(timeout: idle ? -1 : 0, &tokens, &ready)
                continue
            }
            for job in batch {
                runUrgent(&urgent)
                runJob(job)
            }
            batch.removeAll(keepingCapacity: true)
            // A stream of jobs must not starve the descriptors: a look without waiting once it has
            // run for `busyLook`. Sooner costs a system call for every job that makes another (a
            // command's task starting its child), and a command three.
            if nc_monotonic_ns() - lastLook >= Self.busyLook {
                for end in turnEnds { end.body() }
                dispatch(timeout: 0, &tokens, &ready)
            }
        }
    }

    /// Waits up to `timeout` ms for the watched descriptors and runs the handlers of the ready ones.
    private func dispatch(timeout: Int32, _ tokens: inout [UInt64], _ ready: inout [Int32]) {
        let count = tokens.withUnsafeMutableBufferPointer { tokenBuffer in
            ready.withUnsafeMutableBufferPointer { readyBuffer in
                nc_epoll_wait(epoll, tokenBuffer.baseAddress, readyBuffer.baseAddress, Int32(tokenBuffer.count), timeout)
            }
        }
        // Awake from here: what the handlers enqueue needs no signal.
        parked.store(false, ordering: .sequentiallyConsistent)
        lastLook = nc_monotonic_ns()
        if timeout != 0 { waits.add(1, ordering: .relaxed) }
        guard count > 0 else {
            if count < 0 { fatalError("the event loop cannot wait: epoll_wait failed with errno \(errno)") }
            return
        }
        for index in 0..<Int(count) {
            let token = tokens[index]
            if token == Self.wakeToken {
                nc_eventfd_drain(wakeFD)
                continue
            }
            // Looked up at each event: a handler earlier in this turn may have ended a watch.
            guard let handler = handlers.withLock({ $0[token] }) else { continue }
            handler(Readiness(rawValue: ready[index]))
            runUrgent(&urgentScratch)
        }
    }

    /// Runs `job` isolated to this executor as the serial executor of `NodeActor` as well as the
    /// task executor (as swift-nio's event loop runs its jobs): code of the job that enters
    /// `NodeActor` finds itself on the actor's executor already and goes on without a hop.
    /// (`runSynchronously(on:)` records a generic executor as current, so every entry into a
    /// `@NodeActor` function enqueued another job.)
    private func runJob(_ job: UnownedJob) {
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }

    /// Scratch for the urgent jobs a handler's continuation made ready; loop thread only.
    private var urgentScratch: [UnownedJob] = []

    /// Runs the urgent jobs there are, and those they enqueue, before anything else. The count is
    /// a hint read without the lock: a job it misses runs at the next look (before the next job,
    /// or before the thread parks).
    /// What urgent jobs wrote (an alarm's event) goes out at once, with the end of a turn of its
    /// own, ahead of the jobs that wait.
    private func runUrgent(_ urgent: inout [UnownedJob]) {
        guard urgentCount.load(ordering: .acquiring) > 0 else { return }
        while urgentCount.load(ordering: .acquiring) > 0 {
            urgentJobs.withLock {
                swap(&urgent, &$0)
                urgentCount.store(0, ordering: .releasing)
            }
            for job in urgent { runJob(job) }
            urgent.removeAll(keepingCapacity: true)
        }
        for end in turnEnds { end.body() }
    }

    /// Runs `body` as a task on this executor and blocks the calling thread (the main thread of a
    /// synchronous `main`) until it ends; returns its result or throws its error.
    ///
    /// The task is of medium priority, below the urgent level, whatever the caller's: on Linux a
    /// task made on the main thread inherits userInitiated, which would make every job of the
    /// node urgent and an alarm's ring no more urgent than a ping.
    public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = WakeSignal()
        let result = ResultBox<T>()
        Task(executorPreference: self, priority: .medium) {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.set(outcome)
            done.signal()
        }
        while !done.wait(timeout: .seconds(3600)) {}
        return try result.get()
    }
}

/// A result handed from the executor's thread to the blocked main thread.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: written once before the signal, read once after it.
    private var value: Result<T, any Error>?

    func set(_ outcome: Result<T, any Error>) { value = outcome }

    func get() throws -> T {
        guard let value else { fatalError("runBlocking returned without a result") }
        return try value.get()
    }
}

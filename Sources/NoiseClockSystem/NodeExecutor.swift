import CTimerFD
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The one thread the node's Swift code runs on: a task executor that sleeps on a futex word
/// while it has no job, so an idle node costs no wake-ups.
///
/// Swift's default global executor on Linux is libdispatch's thread pool, whose workqueue monitor
/// wakes once a second for the life of the process once the pool has been used (measured: 60
/// context switches a minute with nothing to do). The node's tasks, their child tasks and the
/// default actors they call all run here instead (SE-0417 task executor preference), so the pool
/// is never started. A clock needs no more than one thread for its Swift side: blocking C calls
/// have their own threads (`Threads`).
public final class NodeExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `parking` is only touched through the shim's atomic calls.
    public static let shared = NodeExecutor(name: "swift executor")

    /// Jobs of tasks above the default priority (an alarm, a timer or a gong at its instant), run
    /// before the others; then the rest, in order.
    private let urgentJobs = Mutex<[UnownedJob]>([])
    private let jobs = Mutex<[UnownedJob]>([])
    private let urgentCount = Atomic<Int>(0)
    /// The drain thread's futex word (`nc_park_*`): 1 while it sleeps with no job.
    private let parking = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)

    /// The priority from which a job is urgent.
    static let urgent = JobPriority(TaskPriority.high)

    public init(name: String) {
        parking.initialize(to: 0)
        Threads.start(name: name) { [self] in drain() }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let urgent = job.priority >= Self.urgent
        let job = UnownedJob(job)
        if urgent {
            urgentJobs.withLock {
                $0.append(job)
                urgentCount.store($0.count, ordering: .releasing)
            }
        } else {
            jobs.withLock { $0.append(job) }
        }
        // One futex call only when the thread sleeps: a job enqueued by a job costs none.
        _ = nc_park_wake(parking)
    }

    private func drain() {
        var batch: [UnownedJob] = []
        var urgent: [UnownedJob] = []
        while true {
            runUrgent(&urgent)
            jobs.withLock { swap(&batch, &$0) }
            guard !batch.isEmpty else {
                // Both queues looked at under their locks after the word is set: an enqueue that
                // was not seen then happens after it, and its `nc_park_wake` finds the word set.
                nc_park_prepare(parking)
                if jobs.withLock({ $0.isEmpty }) && urgentJobs.withLock({ $0.isEmpty }) {
                    nc_park_wait(parking)
                } else {
                    nc_park_cancel(parking)
                }
                continue
            }
            for job in batch {
                runUrgent(&urgent)
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Runs the urgent jobs there are, and those they enqueue, before anything else. The count is
    /// a hint read without the lock: a job it misses runs at the next look (before the next job,
    /// or before the thread parks).
    private func runUrgent(_ urgent: inout [UnownedJob]) {
        while urgentCount.load(ordering: .acquiring) > 0 {
            urgentJobs.withLock {
                swap(&urgent, &$0)
                urgentCount.store(0, ordering: .releasing)
            }
            for job in urgent { job.runSynchronously(on: asUnownedTaskExecutor()) }
            urgent.removeAll(keepingCapacity: true)
        }
    }

    /// Runs `body` as a task on this executor and blocks the calling thread (the main thread of a
    /// synchronous `main`) until it ends; returns its result or throws its error.
    public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = WakeSignal()
        let result = ResultBox<T>()
        Task(executorPreference: self) {
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

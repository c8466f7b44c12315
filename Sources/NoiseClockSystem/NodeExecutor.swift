#if canImport(Glibc)
import Glibc
#endif

/// The one thread the node's Swift code runs on: a task executor that sleeps on a condition
/// variable while it has no job, so an idle node costs no wake-ups.
///
/// Swift's default global executor on Linux is libdispatch's thread pool, whose workqueue monitor
/// wakes once a second for the life of the process once the pool has been used (measured: 60
/// context switches a minute with nothing to do). The node's tasks, their child tasks and the
/// default actors they call all run here instead (SE-0417 task executor preference), so the pool
/// is never started. A clock needs no more than one thread for its Swift side: blocking C calls
/// have their own threads (`Threads`).
public final class NodeExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is only touched with `mutex` held.
    public static let shared = NodeExecutor(name: "swift executor")

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [UnownedJob] = []

    public init(name: String) {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        Threads.start(name: name) { [self] in drain() }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        if jobs.count == 1 { pthread_cond_signal(condition) }
        pthread_mutex_unlock(mutex)
    }

    private func drain() {
        var batch: [UnownedJob] = []
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty { pthread_cond_wait(condition, mutex) }
            swap(&batch, &jobs)
            pthread_mutex_unlock(mutex)
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
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

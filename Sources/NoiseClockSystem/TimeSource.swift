import CTimerFD
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The node's one time source: every sleep of every service ends here, and two Linux timers armed
/// for the earliest deadline of each kind are watched on the node's event loop (`NodeExecutor`),
/// so the process wakes only when something is due, and then only that one thread.
///
/// - Wall-clock deadlines (an alarm at 07:30, the next minute boundary) use a `timerfd` on
///   `CLOCK_REALTIME` armed with `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET`: the kernel wakes it
///   at the instant, and at once when the wall clock is set (an NTP step, a manual change, a resume
///   from suspend). Then every wall-clock sleeper returns early, re-reads the clock and recomputes.
///   A change is also recognised by the distance between the wall and the monotonic clock moving,
///   which catches a clock changed while no wall timer was armed (and libfaketime in the tests).
/// - Plain durations (a preview's 3 s, the battery's 5-minute refresh) use a `timerfd` on
///   `CLOCK_MONOTONIC`, which no change of the wall clock moves.
public final class TimeSource: Sendable {
    /// The process's time source, on the node's event loop.
    public static let shared = TimeSource(loop: .shared)

    /// A change of (wall − monotonic) larger than this is a change of the wall clock.
    static let clockChangeThreshold: Int64 = 250_000_000

    private enum Kind { case wall, monotonic }

    private struct Waiter {
        var kind: Kind
        /// Nanoseconds on the waiter's clock (since 1970 for the wall clock).
        var deadline: Int64
        /// The sleeping task's priority: of the sleepers due together, the most urgent (an alarm,
        /// a timer, a gong) is resumed first, so its work is first on the executor.
        var priority: TaskPriority
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// A sleep's entry lives from its start until it is resumed: `pending` until its continuation
    /// is stored, then `waiting`; `cancelled` when the task was cancelled while pending. A sleep
    /// resumed (due at once, woken, or cancelled) has no entry, so a cancellation that comes after
    /// its resumption finds nothing and leaves nothing behind.
    private enum Entry {
        case pending
        case waiting(Waiter)
        case cancelled
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var armed: [Kind: Int64] = [:]
        /// Wall − monotonic at the last look.
        var offset: Int64
        var started = false
        /// How many times the thread has woken (for tests and benchmarks).
        var wakes = 0
    }

    private let state: Mutex<State>
    private let wallTimer: Int32
    private let monotonicTimer: Int32
    /// The loop the timers are watched on; nil for a time source with a thread of its own.
    private let loop: NodeExecutor?

    /// A time source of its own, with its own thread, "time source" (tests); the node uses `shared`.
    public convenience init() { self.init(loop: nil) }

    /// A time source whose timers are watched on `loop` from the first sleep, or on a thread of
    /// its own without one.
    public init(loop: NodeExecutor?) {
        self.loop = loop
        wallTimer = nc_timerfd_create(CLOCK_REALTIME)
        monotonicTimer = nc_timerfd_create(CLOCK_MONOTONIC)
        // Without timers the node cannot keep time at all; Linux has had them since 2.6.25.
        guard wallTimer >= 0, monotonicTimer >= 0 else { fatalError("cannot create a timerfd: errno \(errno)") }
        state = Mutex(State(offset: Self.read(CLOCK_REALTIME) - Self.read(CLOCK_MONOTONIC)))
    }

    deinit {
        close(wallTimer)
        close(monotonicTimer)
    }

    /// Sleeps until the wall clock reads `deadline`, or less when the wall clock is changed
    /// meanwhile (the caller reads the clock again and decides anew). Throws `CancellationError`
    /// when the task is cancelled.
    public func sleep(untilWall deadline: Date) async throws {
        let nanoseconds = deadline.timeIntervalSince1970 * 1e9
        let clamped = nanoseconds >= 9.2e18 ? Int64.max : nanoseconds <= -9.2e18 ? Int64.min : Int64(nanoseconds.rounded(.up))
        try await wait(.wall, until: clamped)
    }

    /// Sleeps for `duration` on the monotonic clock. Throws `CancellationError` when cancelled.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return try Task.checkCancellation() }
        let (seconds, attoseconds) = duration.components
        // Anything past a century is "never"; the arithmetic then cannot overflow.
        let length = seconds > 3_153_600_000 ? Int64.max / 2 : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        try await wait(.monotonic, until: Self.read(CLOCK_MONOTONIC) + length)
    }

    /// How many times the timers have woken the loop (or the time thread) since the start.
    public var wakeCount: Int { state.withLock { $0.wakes } }

    /// How many sleeps it holds (started and not yet resumed); for tests.
    public var sleepCount: Int { state.withLock { $0.entries.count } }

    // MARK: Waiting

    private func wait(_ kind: Kind, until deadline: Int64) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.entries[state.nextID] = .pending
            return state.nextID
        }
        let priority = Task.currentPriority
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Now { case due, cancelled, waiting }
                let now = state.withLock { state -> Now in
                    if case .cancelled? = state.entries.removeValue(forKey: id) { return .cancelled }
                    if deadline <= Self.read(kind == .wall ? CLOCK_REALTIME : CLOCK_MONOTONIC) { return .due }
                    state.entries[id] = .waiting(Waiter(kind: kind, deadline: deadline, priority: priority, continuation: continuation))
                    if state.armed[kind].map({ deadline < $0 }) ?? true { arm(kind, at: deadline, in: &state) }
                    if !state.started {
                        state.started = true
                        start()
                    }
                    return .waiting
                }
                switch now {
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                switch state.entries[id] {
                case .waiting(let waiter)?:
                    state.entries[id] = nil
                    return waiter
                case .pending?:
                    state.entries[id] = .cancelled
                    return nil
                case .cancelled?, nil:
                    // Already resumed (or already cancelled): nothing to do, nothing to keep.
                    return nil
                }
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func arm(_ kind: Kind, at deadline: Int64, in state: inout State) {
        let fd = kind == .wall ? wallTimer : monotonicTimer
        // A deadline of 0 would disarm the timer; anything at or before now expires at once.
        let at = max(deadline, 1)
        _ = nc_timerfd_arm(fd, at / 1_000_000_000, Int(at % 1_000_000_000), kind == .wall ? 1 : 0)
        state.armed[kind] = deadline
    }

    // MARK: Waking

    /// Watches the timers on the loop, or starts the thread that polls them.
    private func start() {
        guard let loop else {
            Threads.start(name: "time source") { [self] in run() }
            return
        }
        _ = loop.watch(wallTimer, for: .readable) { [self] _ in
            let result = nc_timerfd_read(wallTimer)
            if result != 0 { wakeDue(clockSet: result == -1, expired: [.wall]) }
        }
        _ = loop.watch(monotonicTimer, for: .readable) { [self] _ in
            if nc_timerfd_read(monotonicTimer) != 0 { wakeDue(clockSet: false, expired: [.monotonic]) }
        }
    }

    private func run() {
        var fds = [
            pollfd(fd: wallTimer, events: Int16(POLLIN), revents: 0),
            pollfd(fd: monotonicTimer, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let rc = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, 2, -1) }
            if rc < 0 {
                if errno == EINTR { continue }
                fatalError("the time source cannot wait: poll failed with errno \(errno)")
            }
            var clockSet = false
            var expired: Set<Kind> = []
            if fds[0].revents != 0 {
                let result = nc_timerfd_read(wallTimer)
                if result == -1 { clockSet = true }
                if result != 0 { expired.insert(.wall) }
            }
            if fds[1].revents != 0, nc_timerfd_read(monotonicTimer) != 0 { expired.insert(.monotonic) }
            wakeDue(clockSet: clockSet, expired: expired)
        }
    }

    /// Resumes every sleeper that is due, and every wall-clock sleeper when the wall clock was
    /// set; re-arms the timers for the earliest deadlines left.
    private func wakeDue(clockSet: Bool, expired: Set<Kind>) {
        let wall = Self.read(CLOCK_REALTIME)
        let monotonic = Self.read(CLOCK_MONOTONIC)
        let due = state.withLock { state -> [Waiter] in
            state.wakes += 1
            let offset = wall - monotonic
            let changed = clockSet || abs(offset - state.offset) > Self.clockChangeThreshold
            state.offset = offset
            for kind in expired { state.armed[kind] = nil }
            var due: [Waiter] = []
            var earliest: [Kind: Int64] = [:]
            for (id, entry) in state.entries {
                guard case .waiting(let waiter) = entry else { continue }
                let isDue = waiter.kind == .wall ? changed || waiter.deadline <= wall : waiter.deadline <= monotonic
                if isDue {
                    due.append(waiter)
                    state.entries[id] = nil
                } else {
                    earliest[waiter.kind] = min(earliest[waiter.kind] ?? .max, waiter.deadline)
                }
            }
            for kind in [Kind.wall, .monotonic] {
                if let deadline = earliest[kind] {
                    // Re-armed even when unchanged after a clock change: the kernel wants a new
                    // `timerfd_settime` before it reports the next change.
                    if state.armed[kind] != deadline || changed { arm(kind, at: deadline, in: &state) }
                } else if state.armed[kind] != nil {
                    _ = nc_timerfd_disarm(kind == .wall ? wallTimer : monotonicTimer)
                    state.armed[kind] = nil
                }
            }
            return due
        }
        let ordered = due.sorted { ($0.priority.rawValue, -$0.deadline) > ($1.priority.rawValue, -$1.deadline) }
        for waiter in ordered { waiter.continuation.resume() }
    }

    /// Nanoseconds on `clock`.
    static func read(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

import Foundation
import Synchronization

/// A wall clock for node processes that a test can set and jump, through libfaketime.
///
/// The node is started with `environment` merged into its own: libfaketime then adds the offset
/// held in a file to every wall-clock reading (`Date()`, `clock_gettime(CLOCK_REALTIME)`), and
/// reads that file again once the real second has changed since its last read (so a new offset
/// shows at most a second late), so rewriting it moves the node's clock. Monotonic clocks stay
/// real. Only relative offsets (`+33478.25`, `-120`) are written: an absolute `@…` spec would stop
/// the clock and break sleeps.
///
/// Uses `libfaketime.so.1`, never the `MT` variant, which breaks Swift's `CommandLine.arguments`.
///
/// libfaketime 0.9.10 also rewrites the deadline of every absolute `timerfd_settime` by the
/// offset, without knowing the timer's clock. libdispatch arms its timers that way on
/// CLOCK_MONOTONIC and CLOCK_BOOTTIME, so with any offset other than 0 every Swift
/// `Task.sleep` / `ContinuousClock.sleep` in the node ends far too late (or never) — the node
/// then misses its schedule and cannot stop on SIGTERM. A tiny preloaded shim, ahead of
/// libfaketime, takes over `timerfd_create`/`timerfd_settime`/`timerfd_gettime` instead:
/// - monotonic and boottime timers, relative timers and disarming go straight to the kernel;
/// - an absolute deadline on a CLOCK_REALTIME timerfd, which the program computed from the faked
///   wall clock, is moved to the real one (minus the offset libfaketime shows at that moment);
/// - when the offset file changes, a thread of the shim (inotify on the file's folder) makes every
///   armed CLOCK_REALTIME timerfd expire at once, as the kernel wakes `TFD_TIMER_CANCEL_ON_SET`
///   timers when the real clock is set, so the program sees the jump and arms again. It waits
///   for libfaketime to show the new offset first (up to a second, see above): a timer woken
///   earlier would read the old clock and sleep on. The watch is added before the first
///   CLOCK_REALTIME `timerfd_create` returns, and a deadline being moved and set holds a lock
///   the wake also takes, so no change of the file is missed by a timer armed around it.
///
/// The shim is built once per run with the C compiler of the Swift toolchain.
public final class FakeTime: Sendable {
    public let library: String
    public let shim: String
    public let file: String
    private let directory: String
    private let current = Mutex<TimeInterval>(0)

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// The library under `/usr/lib/*/faketime/`, or nil.
    public static var installedLibrary: String? {
        let root = "/usr/lib"
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
            .map { "\(root)/\($0)/faketime/libfaketime.so.1" } + ["\(root)/faketime/libfaketime.so.1"]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// A clock that starts at `date` (the real time when nil). Throws `Missing`, naming what to
    /// install, without libfaketime or a C compiler.
    public init(at date: Date? = nil) async throws {
        guard let library = Self.installedLibrary else {
            throw Missing(
                description: "libfaketime is not installed (looked for /usr/lib/*/faketime/libfaketime.so.1); "
                    + "install the Debian package `faketime` (scripts/install-deps.sh does)")
        }
        self.library = library
        shim = try await Self.timerShim()
        directory = try makeTemporaryDirectory("faketime")
        file = "\(directory)/offset"
        try write(date?.timeIntervalSinceNow ?? 0)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What a node process needs (merge it into `NodeProcess`'s environment).
    public var environment: [String: String] {
        [
            "LD_PRELOAD": "\(shim):\(library)", "FAKETIME_TIMESTAMP_FILE": file, "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            "FAKETIME_CACHE_DURATION": "0",
            // libfaketime 0.9.10 "fixes" the deadline of a pthread_cond_timedwait on CLOCK_MONOTONIC by
            // the offset, so with any offset such a wait returns at once and the node spins (1.5
            // cores measured), starving every other test on the machine. Without the fix the wait
            // takes its time (measured: 0.2 s of 0.2 s).
            "FAKETIME_FORCE_MONOTONIC_FIX": "0",
        ]
    }

    /// The offset from the real wall clock, in seconds.
    public var offset: TimeInterval { current.withLock { $0 } }

    /// The instant the faked processes see now.
    public var now: Date { Date().addingTimeInterval(offset) }

    /// Sets the faked clock to `date` (offset = `date` − the real now).
    public func set(to date: Date) throws {
        try write(date.timeIntervalSinceNow)
    }

    /// Moves the faked clock by `seconds` (negative: back).
    public func jump(by seconds: TimeInterval) throws {
        try write(offset + seconds)
    }

    private func write(_ seconds: TimeInterval) throws {
        current.withLock { $0 = seconds }
        // Written to a new file and renamed, so the node never reads half a number.
        // No unit letters: libfaketime reads "m", "h", "d", "y" in the text as multipliers.
        let text = (seconds < 0 ? "-" : "+") + String(format: "%.6f", abs(seconds)) + "\n"
        let temporary = "\(file).tmp"
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        guard rename(temporary, file) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file])
        }
    }

    // MARK: The timerfd shim

    private static let shimSource = #"""
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <errno.h>
        #include <fcntl.h>
        #include <limits.h>
        #include <pthread.h>
        #include <signal.h>
        #include <stdint.h>
        #include <stdlib.h>
        #include <string.h>
        #include <sys/inotify.h>
        #include <sys/syscall.h>
        #include <sys/timerfd.h>
        #include <time.h>
        #include <unistd.h>

        /* Preloaded ahead of libfaketime. Timers keep the kernel's meaning, except that an
           absolute deadline on a CLOCK_REALTIME timerfd is taken as faked wall-clock time (the
           program computed it from the faked clock) and moved to the real clock; and when the
           offset file changes, every armed CLOCK_REALTIME timerfd expires at once (once
           libfaketime shows the new offset), as TFD_TIMER_CANCEL_ON_SET timers are woken when
           the real clock is set. */

        #define BILLION 1000000000LL

        static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
        /* Held while a realtime deadline is moved and set, and while the watcher wakes the timers:
           a deadline moved with the old offset is then either set before the wake (and woken) or
           moved after it (with the new offset). Without it, a `timerfd_settime` that read the old
           offset and was preempted before its syscall could overwrite the wake, and the timer then
           slept to a deadline moved by the old offset (minutes late in real time). Taken before
           table_lock, never after it. */
        static pthread_mutex_t arm_lock = PTHREAD_MUTEX_INITIALIZER;
        static int *realtime_fds; /* fds from timerfd_create(CLOCK_REALTIME, ...), maybe closed since */
        static size_t realtime_count, realtime_capacity;
        static int watcher_started;

        static void forget_locked(int fd) {
            for (size_t i = 0; i < realtime_count; i++) {
                if (realtime_fds[i] == fd) {
                    realtime_fds[i] = realtime_fds[--realtime_count];
                    return;
                }
            }
        }

        static void remember(int fd, int realtime) {
            pthread_mutex_lock(&table_lock);
            forget_locked(fd);
            if (realtime) {
                if (realtime_count == realtime_capacity) {
                    size_t capacity = realtime_capacity ? 2 * realtime_capacity : 16;
                    int *grown = realloc(realtime_fds, capacity * sizeof *grown);
                    if (grown) {
                        realtime_fds = grown;
                        realtime_capacity = capacity;
                    }
                }
                if (realtime_count < realtime_capacity) realtime_fds[realtime_count++] = fd;
            }
            pthread_mutex_unlock(&table_lock);
        }

        static int is_realtime(int fd) {
            int found = 0;
            pthread_mutex_lock(&table_lock);
            for (size_t i = 0; i < realtime_count && !found; i++) found = realtime_fds[i] == fd;
            pthread_mutex_unlock(&table_lock);
            return found;
        }

        /* A copy of the table (malloc'd, or NULL when empty); *count its length. */
        static int *copy_table(size_t *count) {
            for (;;) {
                pthread_mutex_lock(&table_lock);
                size_t wanted = realtime_count;
                pthread_mutex_unlock(&table_lock);
                if (wanted == 0) break;
                int *copy = malloc(wanted * sizeof *copy);
                if (!copy) break;
                pthread_mutex_lock(&table_lock);
                int fits = realtime_count <= wanted;
                if (fits) {
                    *count = realtime_count;
                    memcpy(copy, realtime_fds, realtime_count * sizeof *copy);
                }
                pthread_mutex_unlock(&table_lock);
                if (fits) return copy;
                free(copy);
            }
            *count = 0;
            return NULL;
        }

        static long long nanoseconds(struct timespec t) { return (long long)t.tv_sec * BILLION + t.tv_nsec; }

        static int real_now(clockid_t clock, struct timespec *t) { return (int)syscall(SYS_clock_gettime, clock, t); }

        /* The faked wall clock minus the real one, in ns: libfaketime's clock_gettime is the next one
           after this library. Nonzero when it cannot be read. */
        static int faked_offset(long long *offset) {
            typedef int (*clock_gettime_function)(clockid_t, struct timespec *);
            static clock_gettime_function next;
            clock_gettime_function faked = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
            if (!faked) {
                faked = (clock_gettime_function)dlsym(RTLD_NEXT, "clock_gettime");
                if (!faked) return -1;
                __atomic_store_n(&next, faked, __ATOMIC_RELEASE);
            }
            struct timespec before, fake, after;
            if (real_now(CLOCK_REALTIME, &before) != 0 || faked(CLOCK_REALTIME, &fake) != 0
                || real_now(CLOCK_REALTIME, &after) != 0)
                return -1;
            long long real = nanoseconds(before) + (nanoseconds(after) - nanoseconds(before)) / 2;
            *offset = nanoseconds(fake) - real;
            return 0;
        }

        /* `deadline` − `offset` ns; a deadline at or before the epoch becomes {0, 1} (already past). */
        static struct timespec moved(struct timespec deadline, long long offset) {
            long long seconds, nanos = deadline.tv_nsec - offset % BILLION; /* in (-1 s, 2 s) */
            if (__builtin_sub_overflow((long long)deadline.tv_sec, offset / BILLION, &seconds))
                seconds = offset > 0 ? LLONG_MIN : LLONG_MAX;
            if (nanos < 0) {
                nanos += BILLION;
                if (seconds != LLONG_MIN) seconds -= 1;
            } else if (nanos >= BILLION) {
                nanos -= BILLION;
                if (seconds != LLONG_MAX) seconds += 1;
            }
            if (seconds < 0 || (seconds == 0 && nanos == 0)) {
                seconds = 0;
                nanos = 1;
            }
            return (struct timespec){.tv_sec = (time_t)seconds, .tv_nsec = nanos};
        }

        /* --- The watcher: wakes the armed realtime timers after the offset file changes. --- */

        static char *watched_directory, *watched_name, *watched_path;

        /* The offset the file holds, in ns, if it is a plain "+S.F" / "-S.F" (what FakeTime writes). */
        static int file_offset(long long *offset) {
            char text[64];
            int fd = open(watched_path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) return -1;
            ssize_t length = read(fd, text, sizeof text - 1);
            close(fd);
            if (length <= 0) return -1;
            text[length] = 0;
            const char *p = text;
            int negative = *p == '-';
            if (*p == '-' || *p == '+') p++;
            if (*p < '0' || *p > '9') return -1;
            long long seconds = 0, nanos = 0, scale = BILLION;
            for (; *p >= '0' && *p <= '9'; p++) {
                if (seconds > LLONG_MAX / BILLION / 10) return -1;
                seconds = seconds * 10 + (*p - '0');
            }
            if (*p == '.')
                for (p++; *p >= '0' && *p <= '9'; p++)
                    if (scale > 1) nanos += (*p - '0') * (scale /= 10);
            if (*p != 0 && *p != '\n') return -1;
            *offset = (negative ? -1 : 1) * (seconds * BILLION + nanos);
            return 0;
        }

        /* libfaketime reads the file again only once the real second has changed since its last read,
           so the new offset shows up to a second after the file changed: wait for it (polling every
           10 ms, at most 2 s), since a timer woken earlier would see the old clock and sleep again. */
        static void wait_until_offset_seen(void) {
            long long target = 0, seen;
            int known = file_offset(&target) == 0;
            struct timespec start, now, pause = {.tv_sec = 0, .tv_nsec = 10000000};
            real_now(CLOCK_MONOTONIC, &start);
            for (;;) {
                if (faked_offset(&seen) == 0 && known && llabs(seen - target) < 5000000) return;
                real_now(CLOCK_MONOTONIC, &now);
                if (nanoseconds(now) - nanoseconds(start) >= 2 * BILLION) return;
                syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &pause, NULL);
            }
        }

        /* Every armed realtime timerfd expires at once: re-armed with a deadline already past. */
        static void wake_realtime_timers(void) {
            size_t count;
            int *fds = copy_table(&count);
            for (size_t i = 0; i < count; i++) {
                struct itimerspec current;
                /* Fails for an fd closed since, or reused by something that is no timerfd. */
                if (syscall(SYS_timerfd_gettime, fds[i], &current) != 0) continue;
                if (current.it_value.tv_sec == 0 && current.it_value.tv_nsec == 0) continue; /* disarmed */
                struct itimerspec now = {.it_interval = current.it_interval, .it_value = {.tv_sec = 0, .tv_nsec = 1}};
                int periodic = current.it_interval.tv_sec != 0 || current.it_interval.tv_nsec != 0;
                /* A periodic timer restarts from now (relative 1 ns), a one-shot one gets a past deadline. */
                syscall(SYS_timerfd_settime, fds[i], periodic ? 0 : TFD_TIMER_ABSTIME, &now, NULL);
            }
            free(fds);
        }

        /* Reads the queue that start_watcher opened (its fd passed as the argument). */
        static void *watch(void *argument) {
            int queue = (int)(intptr_t)argument;
            char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
            for (;;) {
                ssize_t length = read(queue, buffer, sizeof buffer); /* blocks until the folder changes */
                if (length < 0 && errno == EINTR) continue;
                if (length <= 0) break;
                int changed = 0, gone = 0;
                for (char *p = buffer; p < buffer + length;) {
                    const struct inotify_event *event = (const struct inotify_event *)p;
                    if (event->mask & IN_Q_OVERFLOW) changed = 1;
                    if (event->mask & IN_IGNORED) gone = 1; /* the folder was removed */
                    if (event->len > 0 && strcmp(event->name, watched_name) == 0) changed = 1;
                    p += sizeof *event + event->len;
                }
                if (changed) {
                    wait_until_offset_seen();
                    pthread_mutex_lock(&arm_lock);
                    wake_realtime_timers();
                    pthread_mutex_unlock(&arm_lock);
                }
                if (gone) break;
            }
            close(queue);
            return NULL;
        }

        /* Starts the watcher once per process (again in a forked child), if there is a file to watch. */
        static void start_watcher(void) {
            pthread_mutex_lock(&table_lock);
            int start = !watcher_started;
            watcher_started = 1;
            pthread_mutex_unlock(&table_lock);
            if (!start) return;
            if (!watched_path) {
                const char *file = getenv("FAKETIME_TIMESTAMP_FILE");
                if (!file || !*file) return;
                const char *slash = strrchr(file, '/');
                watched_path = strdup(file);
                watched_name = strdup(slash ? slash + 1 : file);
                watched_directory = slash == file ? strdup("/") : slash ? strndup(file, (size_t)(slash - file)) : strdup(".");
                if (!watched_path || !watched_name || !watched_directory || !*watched_name) return;
            }
            /* The watch is in place before the timerfd_create that started it returns, so no change
               of the file made after a timer exists goes unseen (a thread adding it later could
               miss a change made while it waited to be scheduled). */
            int queue = inotify_init1(IN_CLOEXEC);
            if (queue < 0) return;
            if (inotify_add_watch(queue, watched_directory, IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
                close(queue);
                return;
            }
            /* All signals blocked from its first instruction on: process signals go to the program's threads. */
            sigset_t all, previous;
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &previous);
            pthread_attr_t attributes;
            pthread_attr_init(&attributes);
            pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
            pthread_attr_setstacksize(&attributes, 256 * 1024);
            pthread_t thread;
            int failed = pthread_create(&thread, &attributes, watch, (void *)(intptr_t)queue);
            pthread_attr_destroy(&attributes);
            pthread_sigmask(SIG_SETMASK, &previous, NULL);
            if (failed) {
                close(queue);
                pthread_mutex_lock(&table_lock);
                watcher_started = 0;
                pthread_mutex_unlock(&table_lock);
            } else {
                pthread_setname_np(thread, "faketime-shim");
            }
        }

        static void after_fork_in_child(void) {
            pthread_mutex_init(&table_lock, NULL);
            pthread_mutex_init(&arm_lock, NULL);
            watcher_started = 0;
        }

        __attribute__((constructor)) static void setup(void) { pthread_atfork(NULL, NULL, after_fork_in_child); }

        int timerfd_create(int clockid, int flags) {
            int fd = (int)syscall(SYS_timerfd_create, clockid, flags);
            if (fd >= 0) {
                remember(fd, clockid == CLOCK_REALTIME);
                if (clockid == CLOCK_REALTIME) start_watcher();
            }
            return fd;
        }

        int timerfd_settime(int fd, int flags, const struct itimerspec *new_value, struct itimerspec *old_value) {
            struct itimerspec real;
            long long offset;
            int absolute = new_value && (flags & TFD_TIMER_ABSTIME) && new_value->it_value.tv_sec >= 0
                && new_value->it_value.tv_nsec >= 0 && new_value->it_value.tv_nsec < BILLION
                && (new_value->it_value.tv_sec != 0 || new_value->it_value.tv_nsec != 0) && is_realtime(fd);
            if (!absolute) return (int)syscall(SYS_timerfd_settime, fd, flags, new_value, old_value);
            pthread_mutex_lock(&arm_lock);
            if (faked_offset(&offset) == 0 && offset != 0) {
                real = *new_value;
                real.it_value = moved(new_value->it_value, offset);
                new_value = &real;
            }
            int result = (int)syscall(SYS_timerfd_settime, fd, flags, new_value, old_value);
            pthread_mutex_unlock(&arm_lock);
            return result;
        }

        int timerfd_gettime(int fd, struct itimerspec *curr_value) {
            return (int)syscall(SYS_timerfd_gettime, fd, curr_value);
        }

        """#

    private static let shimBuild = Mutex<Task<String, any Error>?>(nil)

    /// The shim's path, built on first use (once per test process).
    static func timerShim() async throws -> String {
        let build = shimBuild.withLock { build in
            if let build { return build }
            let task = Task { try await buildShim() }
            build = task
            return task
        }
        return try await build.value
    }

    /// The C compiler the shim is built with (clang of the Swift toolchain first). Throws `Missing`.
    public static func cCompiler() throws -> String {
        let compilers = ["clang", "cc", "gcc"]
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/opt/swift/usr/bin", "/usr/bin", "/usr/local/bin"]
        guard let compiler = compilers.lazy.flatMap({ name in searchPath.lazy.map { "\($0)/\(name)" } })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            throw Missing(description: "no C compiler (clang, cc or gcc) to build the timerfd shim FakeTime needs next to libfaketime")
        }
        return compiler
    }

    private static func buildShim() async throws -> String {
        let compiler = try cCompiler()
        // One copy per source text and user, kept between runs; built aside and renamed into place,
        // so test processes running side by side never load a half-written file.
        let hash = shimSource.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        let target = FileManager.default.temporaryDirectory
            .appendingPathComponent("noiseclock-timerfd-shim-\(getuid())-\(String(hash, radix: 16)).so").path
        if FileManager.default.fileExists(atPath: target) { return target }
        let directory = try makeTemporaryDirectory("faketime-shim")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try shimSource.write(toFile: "\(directory)/shim.c", atomically: true, encoding: .utf8)
        let output = "\(directory)/timerfd-shim.so"
        let result = try await runToEnd(compiler, [
            "-shared", "-fPIC", "-O1", "-o", output, "\(directory)/shim.c", "-ldl", "-lpthread",
        ])
        guard result.code == 0, FileManager.default.fileExists(atPath: output), rename(output, target) == 0 else {
            throw Missing(description: "building the timerfd shim with \(compiler) failed:\n\(result.output)")
        }
        return target
    }
}

#ifndef NOISECLOCK_CTIMERFD_SHIM_H
#define NOISECLOCK_CTIMERFD_SHIM_H
/* Linux timerfd (sys/timerfd.h is not part of Swift's Glibc module), a thread's nice value, a
   futex parking word and the descriptor hygiene of a spawned child, seen only by NoiseClockSystem. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* glibc declares these only for _GNU_SOURCE (pipe2) and _DEFAULT_SOURCE builds (closefrom, glibc
   2.34), which Swift's Glibc module is not. */
extern int pipe2(int fds[2], int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/* A pipe whose both ends are close-on-exec from the start: no child spawned by another thread in
   between can inherit them. 0, or -1 with errno. */
static inline int nc_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/* Has the child of a posix_spawn with `actions` close every descriptor from `from` up before it
   runs its program, whether or not the parent marked it close-on-exec. 0, or an error number. */
static inline int nc_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/* A non-blocking, close-on-exec timer on `clock` (CLOCK_REALTIME or CLOCK_MONOTONIC); -1 on failure. */
static inline int nc_timerfd_create(int clock) {
    return timerfd_create(clock, TFD_CLOEXEC | TFD_NONBLOCK);
}

/* Arms `fd` to expire once at the absolute time `seconds`.`nanoseconds` of its clock. With
   `cancel_on_set` (CLOCK_REALTIME only) a change of the wall clock makes read() fail with
   ECANCELED at once. 0 on success, else -1 with errno. */
static inline int nc_timerfd_arm(int fd, int64_t seconds, long nanoseconds, int cancel_on_set) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)seconds;
    spec.it_value.tv_nsec = nanoseconds;
    int flags = TFD_TIMER_ABSTIME | (cancel_on_set ? TFD_TIMER_CANCEL_ON_SET : 0);
    return timerfd_settime(fd, flags, &spec, 0);
}

/* Lowers the calling thread's priority by `steps` nice values (at most to 19). On Linux a nice
   value belongs to a thread, named by its thread id; gettid is not visible from Swift's Glibc
   module. 0 on success, else -1 with errno. */
static inline int nc_thread_lower_priority(int steps) {
    id_t thread = (id_t)syscall(SYS_gettid);
    errno = 0;
    int now = getpriority(PRIO_PROCESS, thread);
    if (now == -1 && errno != 0) return -1;
    return setpriority(PRIO_PROCESS, thread, now + steps > 19 ? 19 : now + steps);
}

/* A parking word for the one thread that sleeps on it: 0 running, 1 parked. The sleeper stores 1
   (`nc_park_prepare`), looks for work once more, then waits (`nc_park_wait`) or stores 0
   (`nc_park_cancel`); a producer makes work visible first, then calls `nc_park_wake`, which costs a
   syscall only when the word says the sleeper is parked. Unlike a condition variable it never
   touches a mutex: glibc re-takes a condition variable's mutex as contended after every wait, so
   each later unlock made a futex call of its own. */
static inline void nc_park_prepare(uint32_t *word) { __atomic_store_n(word, 1, __ATOMIC_SEQ_CST); }

static inline void nc_park_cancel(uint32_t *word) { __atomic_store_n(word, 0, __ATOMIC_SEQ_CST); }

static inline void nc_park_wait(uint32_t *word) {
    while (__atomic_load_n(word, __ATOMIC_SEQ_CST) == 1) {
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 1, (void *)0, (void *)0, 0);
    }
}

/* True when it woke the sleeper. */
static inline int nc_park_wake(uint32_t *word) {
    if (__atomic_exchange_n(word, 0, __ATOMIC_SEQ_CST) != 1) return 0;
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
    return 1;
}

/* Stops `fd` from expiring. */
static inline int nc_timerfd_disarm(int fd) {
    struct itimerspec spec = {0};
    return timerfd_settime(fd, 0, &spec, 0);
}

/* Reads the expiry count: >0 expired, 0 nothing yet (EAGAIN), -1 the wall clock was set
   (ECANCELED), -2 another error. */
static inline int nc_timerfd_read(int fd) {
    uint64_t expirations = 0;
    ssize_t n = read(fd, &expirations, sizeof expirations);
    if (n == (ssize_t)sizeof expirations) return expirations > 0 ? 1 : 0;
    if (n < 0 && errno == EAGAIN) return 0;
    if (n < 0 && errno == ECANCELED) return -1;
    return -2;
}
#endif

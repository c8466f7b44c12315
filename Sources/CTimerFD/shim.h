#ifndef NOISECLOCK_CTIMERFD_SHIM_H
#define NOISECLOCK_CTIMERFD_SHIM_H
/* Linux timerfd (sys/timerfd.h is not part of Swift's Glibc module), epoll and eventfd (whose
   packed struct does not import well), a thread's nice value and the
   descriptor hygiene of a spawned child, seen only by NoiseClockSystem. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
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
/* The event loop's epoll set and its wake-up eventfd, both close-on-exec; -1 on failure. */
/* CLOCK_MONOTONIC in nanoseconds (a vDSO call, no system call). */
static inline int64_t nc_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static inline int nc_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
static inline int nc_eventfd_create(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

static inline void nc_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t n;
    do { n = write(fd, &one, sizeof one); } while (n < 0 && errno == EINTR);
}

static inline void nc_eventfd_drain(int fd) {
    uint64_t value;
    ssize_t n;
    do { n = read(fd, &value, sizeof value); } while (n < 0 && errno == EINTR);
}

/* Readiness bits as the loop names them. */
enum { NC_READABLE = 1, NC_WRITABLE = 2, NC_HANGUP = 4 };

static inline uint32_t nc_epoll_bits(int wanted) {
    return (wanted & NC_READABLE ? EPOLLIN : 0) | (wanted & NC_WRITABLE ? EPOLLOUT : 0);
}

/* Adds (`op` 0), changes (1) or removes (2) `fd` with the token `token`. 0, or -1 with errno. */
static inline int nc_epoll_control(int epoll, int op, int fd, int wanted, uint64_t token) {
    struct epoll_event event = {0};
    event.events = nc_epoll_bits(wanted);
    event.data.u64 = token;
    int code = op == 0 ? EPOLL_CTL_ADD : op == 1 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;
    return epoll_ctl(epoll, code, fd, &event);
}

/* Waits up to `timeout_ms` (-1: without end) for at most `capacity` ready descriptors; writes
   each one's token and readiness (NC_*). The count, 0 on a timeout or EINTR, -1 on another error. */
static inline int nc_epoll_wait(int epoll, uint64_t *tokens, int *ready, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int n = epoll_wait(epoll, events, capacity, timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : -1;
    for (int i = 0; i < n; i++) {
        uint32_t bits = events[i].events;
        tokens[i] = events[i].data.u64;
        ready[i] = (bits & EPOLLIN ? NC_READABLE : 0) | (bits & EPOLLOUT ? NC_WRITABLE : 0)
            | (bits & (EPOLLERR | EPOLLHUP | EPOLLRDHUP) ? NC_HANGUP : 0);
    }
    return n;
}
#endif

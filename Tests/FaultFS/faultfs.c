// An LD_PRELOAD shim that makes a node's storage slow or broken, for the storage tests (SPEC §8)
// and the slow-storage benchmark (SPEC §7). Built by `FaultFS.library()`.
//
//   FAULTFS_FSYNC_DELAY_MS  every fsync/fdatasync sleeps this long first (an SD card under load)
//   FAULTFS_OPEN_DELAY_MS   every open of a file whose name ends in FAULTFS_OPEN_SUFFIX (".mp3"
//                           unless set) sleeps this long first (a cold SD card): the slow-reads
//                           benchmark, SPEC §7
//   FAULTFS_DIR             the folder the faults below apply to (the node's state folder)
//   FAULTFS_CONTROL         a file whose first word is the fault in force, read at each call, so a
//                           test switches it while the node runs:
//                             dirsync   fsync of the folder fails (EIO), after the rename
//                             full      writes into the folder fail (ENOSPC)
//                             readonly  creating or renaming in the folder fails (EROFS)
//                             unreadable  as dirsync, and opening a file in the folder only
//                                         to read it fails (EIO): the old document a failed
//                                         save would put back cannot be read
//                           anything else, or no file: no fault
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum fault { NONE, DIRSYNC, FULL, READONLY, UNREADABLE };

static enum fault current_fault(void) {
    const char *control = getenv("FAULTFS_CONTROL");
    if (!control) return NONE;
    static int (*real_open)(const char *, int, ...);
    if (!real_open) real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    int fd = real_open(control, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NONE;
    char word[16] = {0};
    ssize_t n = read(fd, word, sizeof word - 1);
    close(fd);
    if (n <= 0) return NONE;
    if (strncmp(word, "dirsync", 7) == 0) return DIRSYNC;
    if (strncmp(word, "full", 4) == 0) return FULL;
    if (strncmp(word, "readonly", 8) == 0) return READONLY;
    if (strncmp(word, "unreadable", 10) == 0) return UNREADABLE;
    return NONE;
}

/// Whether `path` lies in FAULTFS_DIR (the folder itself included).
static int in_folder(const char *path) {
    const char *dir = getenv("FAULTFS_DIR");
    if (!dir || !path) return 0;
    size_t length = strlen(dir);
    while (length > 1 && dir[length - 1] == '/') length--;
    return strncmp(path, dir, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

static int fd_in_folder(int fd) {
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = '\0';
    return in_folder(path);
}

static void sleep_for(const char *variable) {
    const char *text = getenv(variable);
    long ms = text ? atol(text) : 0;
    if (ms <= 0) return;
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {}
}

static void delay(void) { sleep_for("FAULTFS_FSYNC_DELAY_MS"); }

/// A cold card: the open of a sound file waits first.
static void delay_open(const char *path) {
    const char *suffix = getenv("FAULTFS_OPEN_SUFFIX");
    if (!suffix || !*suffix) suffix = ".mp3";
    size_t length = strlen(path), ending = strlen(suffix);
    if (length >= ending && strcmp(path + length - ending, suffix) == 0) sleep_for("FAULTFS_OPEN_DELAY_MS");
}

static int sync_fault(int fd) {
    struct stat status;
    enum fault fault = current_fault();
    if ((fault == DIRSYNC || fault == UNREADABLE) && fstat(fd, &status) == 0 && S_ISDIR(status.st_mode) && fd_in_folder(fd)) {
        errno = EIO;
        return 1;
    }
    return 0;
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    delay();
    if (sync_fault(fd)) return -1;
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    delay();
    if (sync_fault(fd)) return -1;
    return real(fd);
}

ssize_t write(int fd, const void *buffer, size_t count) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (fd > 2 && current_fault() == FULL && fd_in_folder(fd)) {
        struct stat status;
        if (fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
            errno = ENOSPC;
            return -1;
        }
    }
    return real(fd, buffer, count);
}

static int refuses_creation(const char *path, int flags) {
    return (flags & (O_WRONLY | O_RDWR | O_CREAT)) && current_fault() == READONLY && in_folder(path);
}

/// A file in the folder (not the folder itself) opened only to be read, while `unreadable` is in force.
static int refuses_reading(const char *path, int flags) {
    if (flags & (O_WRONLY | O_RDWR | O_CREAT | O_DIRECTORY)) return 0;
    const char *dir = getenv("FAULTFS_DIR");
    if (!dir || !in_folder(path)) return 0;
    size_t length = strlen(dir);
    while (length > 1 && dir[length - 1] == '/') length--;
    return path[length] == '/' && path[length + 1] != '\0' && current_fault() == UNREADABLE;
}

#define OPEN_WRAPPER(name)                                                              \
    int name(const char *path, int flags, ...) {                                        \
        static int (*real)(const char *, int, ...);                                     \
        if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name);     \
        mode_t mode = 0;                                                                \
        if (flags & (O_CREAT | O_TMPFILE)) {                                            \
            va_list arguments;                                                          \
            va_start(arguments, flags);                                                 \
            mode = va_arg(arguments, mode_t);                                           \
            va_end(arguments);                                                          \
        }                                                                               \
        if (refuses_creation(path, flags)) {                                            \
            errno = EROFS;                                                              \
            return -1;                                                                  \
        }                                                                               \
        if (refuses_reading(path, flags)) {                                             \
            errno = EIO;                                                                \
            return -1;                                                                  \
        }                                                                               \
        delay_open(path);                                                               \
        return real(path, flags, mode);                                                 \
    }

OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

int rename(const char *from, const char *to) {
    static int (*real)(const char *, const char *);
    if (!real) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    if (current_fault() == READONLY && (in_folder(from) || in_folder(to))) {
        errno = EROFS;
        return -1;
    }
    return real(from, to);
}

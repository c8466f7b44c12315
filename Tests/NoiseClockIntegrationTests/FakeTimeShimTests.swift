import Foundation
import NoiseClockTestSupport
import Testing

// The timerfd shim FakeTime preloads ahead of libfaketime, checked with a small C program run
// under FakeTime's environment: realtime deadlines are read on the faked clock, monotonic ones on
// the real clock, and a jump of the faked clock wakes an armed realtime timer once the program
// can see the jump.

/// Arms timerfds and prints what it measured, one `name value…` line each; "armed" when the last
/// timer is armed and waits for the test to jump the clock. A timer that does not fire within
/// 20 s gives -1.
private let probeSource = #"""
    #define _GNU_SOURCE
    #include <poll.h>
    #include <stdint.h>
    #include <stdio.h>
    #include <sys/syscall.h>
    #include <sys/timerfd.h>
    #include <time.h>
    #include <unistd.h>

    static double seconds(struct timespec t) { return (double)t.tv_sec + t.tv_nsec / 1e9; }
    static double monotonic(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return seconds(t); }
    static double faked(void) { struct timespec t; clock_gettime(CLOCK_REALTIME, &t); return seconds(t); }
    static double real(void) { struct timespec t; syscall(SYS_clock_gettime, CLOCK_REALTIME, &t); return seconds(t); }

    static int arm(int fd, int flags, double at) {
        struct itimerspec value = {0};
        value.it_value.tv_sec = (time_t)at;
        value.it_value.tv_nsec = (long)((at - (double)(time_t)at) * 1e9);
        return timerfd_settime(fd, flags, &value, NULL);
    }

    /* Seconds from `start` until fd is readable (it is then read), -1 after 20 s. */
    static double fired(int fd, double start) {
        struct pollfd ready = {fd, POLLIN, 0};
        if (poll(&ready, 1, 20000) != 1) return -1;
        double elapsed = monotonic() - start;
        uint64_t expirations;
        if (read(fd, &expirations, sizeof expirations) != sizeof expirations) return -1;
        return elapsed;
    }

    int main(void) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        int realtime = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
        int steady = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        if (realtime < 0 || steady < 0) return 2;
        printf("offset %.6f\n", faked() - real());

        double start = monotonic();
        if (arm(realtime, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, faked() + 2) != 0) return 3;
        printf("realtime %.6f\n", fired(realtime, start));

        start = monotonic();
        if (arm(steady, TFD_TIMER_ABSTIME, monotonic() + 1) != 0) return 4;
        printf("monotonic %.6f\n", fired(steady, start));

        if (arm(realtime, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, faked() + 60) != 0) return 5;
        if (arm(steady, TFD_TIMER_ABSTIME, monotonic() + 30) != 0) return 6;
        start = monotonic();
        printf("armed\n");
        double woken = fired(realtime, start);
        printf("jump %.6f %.6f\n", woken, faked() - real());
        struct pollfd ready = {steady, POLLIN, 0};
        printf("monotonic-untouched %d\n", poll(&ready, 1, 0) == 0);
        return 0;
    }

    """#

@Suite("The timerfd shim FakeTime preloads ahead of libfaketime")
struct FakeTimeShimTests {
    @Test("realtime deadlines on the faked clock, monotonic ones on the real clock; a jump wakes an armed realtime timer once visible")
    func timers() async throws {
        let directory = try makeTemporaryDirectory("faketime-shim-test")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = try await FakeTime(at: Date().addingTimeInterval(3600))
        try probeSource.write(toFile: "\(directory)/probe.c", atomically: true, encoding: .utf8)
        let compiled = try await runToEnd(try FakeTime.cCompiler(), ["-O1", "-o", "\(directory)/probe", "\(directory)/probe.c"])
        try #require(compiled.code == 0, "the probe did not build:\n\(compiled.output)")

        let probe = try ChildProcess("\(directory)/probe", [], environment: clock.environment, logPath: "\(directory)/probe.log")
        let armed = ContinuousClock.now + .seconds(60)
        while !probe.log.contains("armed\n"), probe.isRunning, ContinuousClock.now < armed {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(probe.log.contains("armed\n"), "the probe never armed its last timers:\n\(probe.log)")
        // The offset FakeTime wrote (not exactly 3600: building the shim takes a moment under load).
        let before = clock.offset
        try clock.jump(by: 50)
        let code = await probe.waitForExit(timeout: .seconds(60))
        let log = probe.log
        try #require(code == 0, "the probe failed (\(String(describing: code))):\n\(log)")

        let values = Dictionary(
            log.split(separator: "\n").map { line in
                let words = line.split(separator: " ")
                return (String(words[0]), words.dropFirst().compactMap { Double($0) })
            }, uniquingKeysWith: { first, _ in first })
        let offset = try #require(values["offset"]?.first, "\(log)")
        #expect(abs(offset - before) < 0.5, "libfaketime did not apply the offset:\n\(log)")
        // Two faked seconds are two real ones (not an hour: the deadline was moved by the offset).
        let realtime = try #require(values["realtime"]?.first, "\(log)")
        #expect(realtime >= 1.8 && realtime < 8, "a realtime timer for the faked now + 2 s fired after \(realtime) s:\n\(log)")
        let monotonic = try #require(values["monotonic"]?.first, "\(log)")
        #expect(monotonic >= 0.9 && monotonic < 7, "a monotonic timer for now + 1 s fired after \(monotonic) s:\n\(log)")
        // Armed for 60 s ahead; the jump wakes it within a few seconds (libfaketime shows a new
        // offset up to a second late), and by then the program sees the new offset.
        let jump = try #require(values["jump"], "\(log)")
        try #require(jump.count == 2, "\(log)")
        #expect(jump[0] >= 0 && jump[0] < 10, "the jump woke the realtime timer after \(jump[0]) s:\n\(log)")
        #expect(abs(jump[1] - (before + 50)) < 0.5, "woken before the program could see the jump (offset \(jump[1])):\n\(log)")
        #expect(values["monotonic-untouched"]?.first == 1, "the jump woke a monotonic timer:\n\(log)")
    }
}

@Suite("The node under libfaketime")
struct FakeTimeArgumentsTests {
    // libfaketime sets variables before `main`, which moves `environ`: Swift's runtime finds `argv`
    // by walking back from `environ` and then sees no arguments at all.
    @Test("it still reads its arguments: check-config with --config prints the file's values and exits")
    func arguments() async throws {
        let clock = try await FakeTime(at: Date(timeIntervalSince1970: 1_781_496_000))
        let directory = try makeTemporaryDirectory("faketime-args")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "clock:\n  time_format: 12h\n".write(toFile: "\(directory)/noiseclock.yaml", atomically: true, encoding: .utf8)
        let process = try ChildProcess(
            NoiseClockBinary.path, ["check-config", "--config", "\(directory)/noiseclock.yaml"], environment: clock.environment,
            logPath: "\(directory)/out.log")
        let code = await process.waitForExit(timeout: .seconds(30))
        if code == nil { process.signal(SIGKILL) }
        #expect(code == 0, "without its arguments the node runs instead of checking; output:\n\(process.log)")
        #expect(process.log.contains("clock.time_format: 12h"), "\(process.log)")
    }
}

import Foundation
import NoiseClockCore
import NoiseClockSystem
import Synchronization
import Testing

@Suite("Threads and wake signals")
struct ThreadsTests {
    @Test("a thread runs its body under its name (cut to 15 bytes, as Linux keeps)")
    func namedThread() async throws {
        let seen = Mutex<String?>(nil)
        let done = WakeSignal()
        Threads.start(name: "noiseclock test thread") {
            let comm = FileBytes.read("/proc/thread-self/comm").map { String(decoding: $0, as: UTF8.self) }
            seen.withLock { $0 = comm }
            done.signal()
        }
        #expect(done.wait(timeout: .seconds(10)))
        #expect(seen.withLock { $0 } == "noiseclock test\n")
    }

    @Test("a background thread runs 10 nice steps below its process (at most 19), an ordinary one at the process's, and only that thread changes")
    func backgroundNice() async throws {
        /// Field 19 of /proc/thread-self/stat (after the command in parentheses): the thread's nice value.
        @Sendable func niceOfThisThread() -> Int? {
            guard let bytes = FileBytes.read("/proc/thread-self/stat") else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            return fields.count > 16 ? Int(fields[16]) : nil
        }
        let process = try #require(niceOfThisThread())
        for background in [true, false] {
            let seen = Mutex<Int?>(nil)
            let done = WakeSignal()
            Threads.start(name: "nice test", background: background) {
                seen.withLock { $0 = niceOfThisThread() }
                done.signal()
            }
            #expect(done.wait(timeout: .seconds(10)))
            #expect(seen.withLock { $0 } == (background ? min(19, process + 10) : process))
        }
        #expect(niceOfThisThread() == process)
    }

    @Test("a signal sent before the wait is kept; the wait returns at once and clears it")
    func signalKept() {
        let signal = WakeSignal()
        signal.signal()
        let start = ContinuousClock.now
        #expect(signal.wait(timeout: .seconds(10)))
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(!signal.wait(timeout: .milliseconds(20)))
    }

    @Test("without a signal the wait ends after its timeout, not before")
    func timeout() {
        let signal = WakeSignal()
        let start = ContinuousClock.now
        #expect(!signal.wait(timeout: .milliseconds(150)))
        #expect(ContinuousClock.now - start >= .milliseconds(150))
    }

    @Test("a signal from another thread wakes the waiter early")
    func wakesWaiter() {
        let signal = WakeSignal()
        Threads.start(name: "signaller") {
            Threads.sleep(.milliseconds(50))
            signal.signal()
        }
        let start = ContinuousClock.now
        #expect(signal.wait(timeout: .seconds(30)))
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test("Threads.sleep sleeps at least as long as asked")
    func sleeps() {
        let start = ContinuousClock.now
        Threads.sleep(.milliseconds(120))
        #expect(ContinuousClock.now - start >= .milliseconds(120))
    }
}

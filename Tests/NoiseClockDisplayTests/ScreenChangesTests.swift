import NoiseClockDisplay
import Synchronization
import Testing

/// A screen that records the levels it is set to, and fails while `failing` is set.
private final class RecordingScreen: ScreenControl {
    let levels = Mutex<[Int]>([])
    let failing = Mutex(false)
    var name: String { "recording" }
    var canDim: Bool { true }
    var brightness: Int? { levels.withLock { $0.last } }

    func set(brightness percent: Int) throws(ScreenError) {
        if failing.withLock({ $0 }) { throw ScreenError(key: "display.backlight", reason: "refused") }
        levels.withLock { $0.append(percent) }
    }
}

@Suite("ScreenChanges: the screen ends at the level asked for last, whatever order the threads run in")
struct ScreenChangesTests {
    @Test("a change overtaken by a later one does nothing when its thread runs last")
    func overtaken() throws {
        let screen = RecordingScreen()
        let changes = ScreenChanges(screen)
        let older = changes.change(to: 100), newer = changes.change(to: 1)
        try newer()
        try older()
        #expect(screen.levels.withLock { $0 } == [1])
        #expect(screen.brightness == 1)
    }

    @Test("changes that run in the order asked for all reach the screen")
    func inOrder() throws {
        let screen = RecordingScreen()
        let changes = ScreenChanges(screen)
        let first = changes.change(to: 3), second = changes.change(to: 4), third = changes.change(to: 5)
        try first()
        try second()
        try third()
        #expect(screen.levels.withLock { $0 } == [3, 4, 5])
    }

    @Test("a newer change that failed still outranks an older one: the older does not follow it")
    func failedNewer() throws {
        let screen = RecordingScreen()
        let changes = ScreenChanges(screen)
        let older = changes.change(to: 80), newer = changes.change(to: 10)
        screen.failing.withLock { $0 = true }
        #expect(throws: ScreenError.self) { try newer() }
        screen.failing.withLock { $0 = false }
        try older()
        #expect(screen.levels.withLock { $0 }.isEmpty)
        // The next change asked for reaches the screen.
        try changes.change(to: 10)()
        #expect(screen.levels.withLock { $0 } == [10])
    }

    @Test("changes asked for in order on one thread and run on many end at the last level", arguments: 0..<20)
    func manyThreads(round: Int) async throws {
        let screen = RecordingScreen()
        let changes = ScreenChanges(screen)
        let pending = (1...50).map { changes.change(to: $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for change in pending.shuffled() { group.addTask { try change() } }
            try await group.waitForAll()
        }
        let levels = screen.levels.withLock { $0 }
        #expect(levels.last == 50)
        #expect(levels == levels.sorted(), "round \(round): an older level followed a newer one: \(levels)")
    }
}

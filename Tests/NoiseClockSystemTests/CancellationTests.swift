import NoiseClockSystem
import Synchronization
import Testing

@Suite("Cancellation.wait: a wait for the task's end that arms nothing")
struct CancellationTests {
    @Test("the wait returns when its task is cancelled, not before")
    func returnsOnCancel() async {
        let returned = Atomic<Bool>(false)
        let waiting = AsyncStream<Void>.makeStream()
        let task = Task {
            waiting.continuation.yield()
            await Cancellation.wait()
            returned.store(true, ordering: .sequentiallyConsistent)
        }
        var started = waiting.stream.makeAsyncIterator()
        _ = await started.next()
        // Not cancelled: the wait goes on however often the test yields to it.
        for _ in 0..<100 { await Task.yield() }
        let early = returned.load(ordering: .sequentiallyConsistent)
        #expect(!early)
        task.cancel()
        await task.value
        let after = returned.load(ordering: .sequentiallyConsistent)
        #expect(after)
    }

    @Test("a task cancelled before it waits returns at once")
    func alreadyCancelled() async {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await Cancellation.wait()
            return Task.isCancelled
        }
        #expect(await task.value)
    }
}

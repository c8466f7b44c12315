import Glibc
import NoiseClockFace
import NoiseClockTestSupport
import Synchronization
import Testing

@Suite("The face's status cell")
struct StatusCellTests {
    /// The service's task reports "listening" while the event loop counts a client. The hook of
    /// the first change is held until the second change was made (or 0.3 s, which a cell that
    /// tells its hook under its lock needs, as the second change waits for the lock): the last
    /// status the hook was told must be the current one, never the older of the two.
    @Test("two changes at once: the last status the hook is told is the current one")
    func lastToldIsCurrent() async {
        let told = Mutex<FaceStatus?>(nil)
        let held = Atomic<Bool>(false)
        let secondMade = Atomic<Bool>(false)
        let cell = StatusCell(FaceStatus(url: "http://127.0.0.1:1/", ok: false, error: "starting")) { status in
            if status.ok && status.clients == 0 {
                held.store(true, ordering: .releasing)
                var waited = 0
                while !secondMade.load(ordering: .acquiring) && waited < 300 {
                    usleep(1_000)
                    waited += 1
                }
            }
            told.withLock { $0 = status }
        }
        let service = Task.detached { cell.update { $0.ok = true; $0.error = nil } }
        #expect(await eventually { held.load(ordering: .acquiring) })
        cell.update { $0.clients = 2 }
        secondMade.store(true, ordering: .releasing)
        await service.value
        #expect(cell.current == FaceStatus(url: "http://127.0.0.1:1/", ok: true, error: nil, clients: 2))
        #expect(told.withLock { $0 } == cell.current)
    }
}

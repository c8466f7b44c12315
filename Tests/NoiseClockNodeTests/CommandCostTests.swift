import Foundation
import NoiseClockCore
import NoiseClockSystem
import Synchronization
import Testing

@testable import NoiseClockNode

/// What a command costs the loop, in jobs (`NodeExecutor.jobCount`): a job is a trip through the
/// loop's queue, and a command should take one only where it really waits (a store's write). A
/// feature added to a verb's path must not add a hop.
@Suite("A command's cost on the loop")
struct CommandCostTests {
    /// The fewest jobs any of `rounds` rounds of `count` commands of `verb` took, handled as the
    /// command intake handles them: in a task of the node (on the loop, with the loop as its
    /// executor preference), through the router. Other tests share the loop and only ever add
    /// jobs, so the fewest is this path's own.
    private func fewestJobs(_ fixture: NodeFixture, verb: String, payload: String = "", count: Int, rounds: Int = 5) async -> Int {
        await NodeActor.task { await Self.fewestJobsOnTheLoop(fixture, verb: verb, payload: payload, count: count, rounds: rounds) }.value
    }

    @NodeActor
    private static func fewestJobsOnTheLoop(_ fixture: NodeFixture, verb: String, payload: String, count: Int, rounds: Int) async -> Int {
        let router = fixture.node.router
        let answered = Answers()
        var fewest = Int.max
        for _ in 0..<rounds {
            let before = NodeExecutor.shared.jobCount
            for _ in 0..<count {
                await router.handle(Command(verb: verb, payload: Array(payload.utf8)) { response in answered.add(response) })
            }
            fewest = min(fewest, NodeExecutor.shared.jobCount - before)
        }
        #expect(answered.okCount == count * rounds, "\(answered.okCount) of \(count * rounds) answered ok")
        return fewest
    }

    @Test("a ping through the router costs the loop no job: the handler and the status it reads run without a hop")
    func pingCostsNoJob() async throws {
        let fixture = try NodeFixture()
        let jobs = await fewestJobs(fixture, verb: "ping", count: 200)
        // A hop on the path costs one job per ping (200 here); the router's handlers used to run
        // nonisolated, each return from a feature one job.
        #expect(jobs < 20, "\(jobs) jobs for 200 pings")
    }

    @Test("a display change (a feature's verb that does not store) costs the loop no job either")
    func featureVerbCostsNoJob() async throws {
        let fixture = try NodeFixture()
        let jobs = await fewestJobs(fixture, verb: "display/wake", count: 200)
        #expect(jobs < 20, "\(jobs) jobs for 200 display/wake commands")
    }
}

/// The answers a test's commands got.
private final class Answers: Sendable {
    private let ok = Mutex(0)
    func add(_ response: CommandResponse) { if case .success = response.result { ok.withLock { $0 += 1 } } }
    var okCount: Int { ok.withLock { $0 } }
}

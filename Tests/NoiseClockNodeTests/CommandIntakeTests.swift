import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import NoiseClockTestSupport
import Synchronization
import Testing

@testable import NoiseClockNode

/// A router of two verbs: `hold` waits at a gate until the test opens it (so the intake's places
/// fill up), `note` records its `n`, in the order the notes run.
private final class Recorder: Sendable {
    let gate = AsyncGate(size: 0)
    private let notes = Mutex<[String]>([])

    var router: CommandRouter {
        var router = CommandRouter()
        router.add("hold") { [gate] _ in
            await gate.enter()
            return .null
        }
        router.add("note", shape: .object(bareValue: nil)) { [self] arguments in
            self.notes.withLock { $0.append(arguments.values["n"]?.stringValue ?? "?") }
            return .null
        }
        return router
    }

    /// Lets `count` held commands go on.
    func open(_ count: Int) {
        for _ in 0..<count { gate.leave() }
    }

    var noted: [String] { notes.withLock { $0 } }
}

private let commandTopic = "noiseclock/kitchen/cmd/"
private let noteAnswers = "noiseclock/kitchen/response/note"

/// A `note` command whose payload is `size` bytes (padded), with the transaction `t<n>`.
private func note(_ n: String, size: Int = 0) -> MQTTMessage {
    let head = #"{"n":"\#(n)","transaction":"t\#(n)","pad":""#
    let pad = String(repeating: "x", count: max(0, size - head.utf8.count - 2))
    return MQTTMessage(topic: commandTopic + "note", text: head + pad + #""}"#)
}

private let hold = MQTTMessage(topic: commandTopic + "hold", text: "")

/// The command intake (`CommandService.Intake`): what waits for a place is bounded in bytes,
/// starts in the order it came, and waits for room in the outgoing queue without polling.
@Suite("Command intake: bounded, in order, without polling")
struct CommandIntakeTests {
    private func service(_ fixture: NodeFixture, _ recorder: Recorder, waitingLimit: Int = CommandService.waitingByteLimit) -> CommandService {
        CommandService(
            transport: fixture.transport, topics: fixture.topics, router: recorder.router, logger: fixture.logs.logger(),
            waitingLimit: waitingLimit, status: fixture.node.status)
    }

    /// `commands` of the latest `B/status` published.
    private func counted(_ fixture: NodeFixture) -> JSONValue? {
        fixture.transport.published(on: "noiseclock/kitchen/status").last?.json?["commands"]
    }

    @Test("what waits is bounded in bytes: a command that does not fit is answered unavailable at once, with its transaction, and never runs; a smaller one after it still fits")
    func waitingIsBoundedInBytes() async throws {
        let fixture = try NodeFixture()
        let recorder = Recorder()
        let cost = note("1", size: 1000).heldBytes + CommandService.commandCost
        // Room for three such commands, and half of one more.
        let running = service(fixture, recorder, waitingLimit: 3 * cost + cost / 2)
        let task = Task { try await running.run() }
        defer { task.cancel() }

        for _ in 0..<CommandService.window { fixture.transport.inject(hold) }
        for n in ["1", "2", "3", "4"] { fixture.transport.inject(note(n, size: 1000)) }
        fixture.transport.inject(note("5"))
        // The refusal comes while the 64 held commands are still in progress.
        let refused = await fixture.transport.waitUntilPublished { $0.contains { $0.topic == noteAnswers } }
        #expect(refused)
        let early = fixture.transport.published(on: noteAnswers)
        #expect(early.count == 1)
        #expect(early.first?.json?["status"] == "error")
        #expect(early.first?.json?["error"]?["code"] == "unavailable")
        #expect(early.first?.json?["transaction"] == "t4")
        #expect(recorder.noted.isEmpty)
        #expect(counted(fixture) == ["refused": 1, "dropped": 0], "B/status counts the refusal")

        recorder.open(CommandService.window)
        #expect(await fixture.transport.waitUntilPublished { $0.filter { $0.topic == noteAnswers }.count == 5 })
        #expect(counted(fixture) == ["refused": 1, "dropped": 0])
        #expect(recorder.noted == ["1", "2", "3", "5"], "the note that did not fit never ran; the others ran in order")
        let answers = fixture.transport.published(on: noteAnswers).compactMap { $0.json?["transaction"]?.stringValue }
        #expect(answers == ["t4", "t1", "t2", "t3", "t5"])
        task.cancel()
        _ = await task.result
    }

    @Test("commands past the 64 in progress wait and start in the order they came")
    func waitingCommandsKeepTheirOrder() async throws {
        let fixture = try NodeFixture()
        let recorder = Recorder()
        let running = service(fixture, recorder)
        let task = Task { try await running.run() }
        defer { task.cancel() }

        for _ in 0..<CommandService.window { fixture.transport.inject(hold) }
        let notes = (0..<500).map(String.init)
        for n in notes { fixture.transport.inject(note(n, size: 2000)) }
        // Each held command that ends frees the place the oldest waiting note takes.
        recorder.open(CommandService.window)
        #expect(await fixture.transport.waitUntilPublished { $0.filter { $0.topic == noteAnswers }.count == notes.count })
        #expect(recorder.noted == notes)
        #expect(fixture.transport.published(on: noteAnswers).allSatisfy { $0.json?["status"] == "ok" })
        task.cancel()
        _ = await task.result
    }

    @Test("while the outgoing queue is half full the intake waits for room once, without looking again or sleeping, then starts the waiting commands in order")
    func waitsForRoomWithoutPolling() async throws {
        let fixture = try NodeFixture()
        let recorder = Recorder()
        fixture.transport.setRoom(false)
        let running = service(fixture, recorder)
        let task = Task { try await running.run() }
        defer { task.cancel() }

        for n in ["1", "2", "3"] { fixture.transport.inject(note(n)) }
        #expect(await eventually { fixture.transport.roomLooks.waits == 1 })
        let looks = fixture.transport.roomLooks
        let timerWakes = TimeSource.shared.wakeCount
        try await Task.sleep(for: .milliseconds(300))
        let after = fixture.transport.roomLooks
        #expect(after.checks == looks.checks && after.waits == looks.waits, "the intake looked at the queue again while it waited")
        // Other tests in the process may wake the shared timers a few times; a 1 ms poll would wake them about 300 times.
        #expect(TimeSource.shared.wakeCount - timerWakes <= 25, "timers woke the loop \(TimeSource.shared.wakeCount - timerWakes) times while the intake waited")
        #expect(recorder.noted.isEmpty)

        fixture.transport.setRoom(true)
        #expect(await fixture.transport.waitUntilPublished { $0.filter { $0.topic == noteAnswers }.count == 3 })
        #expect(recorder.noted == ["1", "2", "3"])
        task.cancel()
        _ = await task.result
    }

    @Test("while the outgoing queue is half full a command that does not fit is dropped without an answer (it would push older messages out); B/status counts it")
    func droppedWhileTheQueueIsFull() async throws {
        let fixture = try NodeFixture()
        let recorder = Recorder()
        let cost = note("1", size: 1000).heldBytes + CommandService.commandCost
        fixture.transport.setRoom(false)
        let running = service(fixture, recorder, waitingLimit: cost + cost / 2)
        let task = Task { try await running.run() }
        defer { task.cancel() }

        fixture.transport.inject(note("1", size: 1000))
        fixture.transport.inject(note("2", size: 1000))
        #expect(await eventually { counted(fixture) == ["refused": 0, "dropped": 1] }, "B/status counts the dropped command")
        #expect(fixture.transport.published(on: noteAnswers).isEmpty, "no answer while the queue is full")

        fixture.transport.setRoom(true)
        #expect(await fixture.transport.waitUntilPublished { $0.contains { $0.topic == noteAnswers } })
        #expect(recorder.noted == ["1"])
        #expect(fixture.transport.published(on: noteAnswers).compactMap { $0.json?["transaction"]?.stringValue } == ["t1"])
        task.cancel()
        _ = await task.result
    }
}

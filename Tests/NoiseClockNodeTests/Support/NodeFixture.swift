import Clocks
import Foundation
import NoiseClockCore
import NoiseClockMQTT

@testable import NoiseClockNode

/// A whole node (`kitchen`, base topic `noiseclock`) on a fake transport, an in-memory store and a
/// test clock that starts at 2026-03-10 07:04:00 UTC, with Europe/Berlin as the system's zone.
struct NodeFixture {
    static let start = instant(2026, 3, 10, 7, 4)

    let transport: FakeTransport
    let store: InMemoryStore
    let clock: TestClock<Duration>
    let logs = LogRecorder()
    let node: Node

    init(
        supportsProperties: Bool = true, configuration file: [String: String] = [:], store: InMemoryStore = InMemoryStore(),
        sounds: SoundLibrary = .empty
    ) throws {
        transport = FakeTransport(supportsProperties: supportsProperties)
        self.store = store
        clock = TestClock()
        node = Node(
            configuration: try makeConfiguration(file), transport: transport, store: store,
            clock: .driven(by: clock, startingAt: Self.start, timeZone: berlin), sounds: sounds, logger: logs.logger())
    }

    var topics: Topics { node.configuration.topics }
    var settings: ClockSettings { node.settings.current }

    func respond(_ verb: String, _ payload: String = "") async -> CommandResponse {
        await node.router.respond(verb: verb, payload: Array(payload.utf8))
    }

    func commandService(logger: LogRecorder? = nil) -> CommandService {
        CommandService(
            transport: transport, topics: topics, router: node.router, logger: (logger ?? logs).logger(),
            buttons: node.configuration.buttons)
    }
}

extension CommandResponse {
    var data: JSONValue? { try? result.get() }

    var error: CommandError? {
        if case .failure(let error) = result { return error }
        return nil
    }
}

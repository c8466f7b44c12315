import Clocks
import Foundation
import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockTestSupport
import Synchronization
import Testing

@testable import NoiseClockNode

// MARK: Waiting

/// Polls `condition` on the real clock until it holds or `timeout` passes; returns whether it held.
/// Used instead of fixed sleeps to wait for work done on other tasks.
func eventually(
    timeout: Duration = eventHangGuard, pollingEvery interval: Duration = .milliseconds(2),
    _ condition: @Sendable () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return await condition()
}

/// How long a test waits for a sound file decoded ahead (`LoopCache.hold`). The decode runs on a
/// "loop decode" thread at nice 10 by design, so while the whole suite (a browser among it) keeps
/// every core busy it can wait many seconds for its turn; the wait ends as soon as the file is kept.
let backgroundDecodeTimeout: Duration = .seconds(60)

// MARK: Files

/// A fresh folder under the system's temporary directory, removed (permissions restored first) by `remove()`.
struct TemporaryDirectory {
    let path: String

    init(_ label: String = #function) throws {
        let name = "noiseclock-tests-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
        path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    func bytes(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: file(name)).map { Array($0) }
    }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
    }

    func write(_ name: String, _ text: String) throws {
        try write(name, Array(text.utf8))
    }

    func remove() {
        chmod(path, 0o700)
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a fresh temporary directory and removes it afterwards, whatever happens.
func withTemporaryDirectory<T>(
    _ label: String = #function, _ body: (TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory(label)
    defer { directory.remove() }
    return try await body(directory)
}

// MARK: Stores

/// A `Store` in memory, counting saves.
final class InMemoryStore: Store {
    private let documents: Mutex<[String: JSONValue]>
    private let saveCount = Mutex(0)

    init(_ documents: [String: JSONValue] = [:]) {
        self.documents = Mutex(documents)
    }

    var saves: Int { saveCount.withLock { $0 } }

    func document(_ name: String) -> JSONValue? { documents.withLock { $0[name] } }

    func load(_ name: String) -> StoredDocument {
        documents.withLock { $0[name] }.map { .value($0) } ?? .missing
    }

    func save(_ name: String, _ value: JSONValue) throws {
        documents.withLock { $0[name] = value }
        saveCount.withLock { $0 += 1 }
    }

    func moveAside(_ name: String, reason: String) -> StoredDocument {
        documents.withLock { _ = $0.removeValue(forKey: name) }
        return .movedAside(movedTo: "\(name).unreadable-test", reason: reason)
    }
}

/// A `Store` whose disk is gone: loads find nothing, saves always throw.
struct FailingStore: Store {
    static let failure = StoreError(path: "/state/settings.json", operation: "write", errno: ENOSPC)

    func load(_ name: String) -> StoredDocument { .missing }

    func save(_ name: String, _ value: JSONValue) throws {
        throw Self.failure
    }

    func moveAside(_ name: String, reason: String) -> StoredDocument {
        .movedAside(movedTo: name, reason: reason)
    }
}

// MARK: Logging

/// Log entries kept in memory, so a test can check what the node told its operator.
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let storage = Mutex<[Entry]>([])

    var entries: [Entry] { storage.withLock { $0 } }

    fileprivate func append(_ entry: Entry) {
        storage.withLock { $0.append(entry) }
    }

    func logger(label: String = "test") -> Logger {
        Logger(label: label) { _ in RecordingLogHandler(recorder: self) }
    }
}

private struct RecordingLogHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        recorder.append(
            .init(
                level: event.level, message: event.message.description,
                metadata: merged.mapValues { "\($0)" }))
    }
}

// MARK: Fixtures

let utc = Zone.utc
let berlin = Zone(identifier: "Europe/Berlin")!

/// The instant of a wall-clock time in `zone`, built from calendar components with Foundation's
/// ICU time zones (never from the code under test).
func instant(
    _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0, in zone: Zone = utc
) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone.identifier)!
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    return calendar.date(from: components)!
}

/// A configuration for node `kitchen` under base topic `noiseclock`, plus `file` values.
func makeConfiguration(_ file: [String: String] = [:]) throws -> Configuration {
    let values = ["node.id": "kitchen", "mqtt.base_topic": "noiseclock"].merging(file) { _, new in new }
    return try ConfigurationSchema.resolve(file: values, fileName: "test.yaml", environment: [:], hostname: "test-host")
        .configuration
}

/// A clock that never moves on its own and never sleeps for real.
func frozenClock(at now: Date, zone: Zone = utc) -> NodeClock {
    NodeClock(now: { now }, sleep: { _ in try await Task.sleep(for: .seconds(3600)) }, systemTimeZone: { zone })
}


/// Runs `service` in a task until `body` returns (or throws), then cancels it and waits for it to end.
func whileRunning(_ service: @escaping @Sendable () async throws -> Void, _ body: () async throws -> Void) async throws {
    let task = Task { try await service() }
    do {
        try await body()
    } catch {
        task.cancel()
        _ = await task.result
        throw error
    }
    task.cancel()
    _ = await task.result
}

extension TestClock where Duration == Swift.Duration {
    /// Waits until something sleeps on this clock, so that advancing it wakes that sleeper.
    func waitUntilSleeping(_ who: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let sleeping = await eventually {
            do {
                try await checkSuspension()
                return false
            } catch {
                return true
            }
        }
        try #require(sleeping, "\(who) never went to sleep on the test clock", sourceLocation: sourceLocation)
    }
}

/// What a service under test emits into and reads the time from: a hub whose MQTT subscriber is
/// `transport` (so the test reads what would go to the broker), and the node's time with `settings`.
struct ServiceWiring {
    let hub: StateHub
    let settings: SettingsModel
    let time: NodeTime

    init(
        transport: FakeTransport, settings: ClockSettings, clock: NodeClock, store: InMemoryStore = InMemoryStore(),
        topics: Topics = Topics(base: "noiseclock", nodeID: "kitchen")
    ) {
        let hub = StateHub()
        hub.subscribe(MQTTStatePublisher(transport: transport, topics: topics).handle)
        self.hub = hub
        self.settings = SettingsModel(configured: settings, store: store, hub: hub, logger: LogRecorder().logger())
        time = NodeTime(clock: clock, settings: self.settings)
    }
}

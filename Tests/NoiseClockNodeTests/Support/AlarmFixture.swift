import Clocks
import Foundation
import NoiseClockAudio
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

/// How far the wall clock has been set forward (or back) from the monotonic test clock: NTP at
/// boot, a resume from suspend or a manual change, without any time passing.
final class WallClockOffset: Sendable {
    private let seconds = Mutex<TimeInterval>(0)

    var value: TimeInterval { seconds.withLock { $0 } }

    func jump(by delta: TimeInterval) { seconds.withLock { $0 += delta } }
}

/// A whole node (`kitchen`, base topic `noiseclock`) for the alarm tests: the real sound catalog, a
/// real noise player on a `FakeAudioOutput`, a fake transport, a store (in memory unless given)
/// and a test clock whose wall time can also jump. The zone is Europe/Berlin; unless told
/// otherwise the clock starts on Tuesday 2026-03-10 at 08:04:00 there (07:04 UTC, +01:00).
/// The scheduler has been started (`start()`, as `AlarmService` does first) when `init` returns.
struct AlarmFixture {
    static let start = instant(2026, 3, 10, 8, 4, in: berlin)

    let transport = FakeTransport()
    let store: any Store
    let clock = TestClock<Duration>()
    let offset = WallClockOffset()
    let output = FakeAudioOutput()
    let logs = LogRecorder()
    let library: SoundLibrary
    let node: Node

    init(
        start: Date = Self.start, configuration file: [String: String] = [:], store: any Store = InMemoryStore(),
        startScheduler: Bool = true
    ) async throws {
        self.store = store
        // A cache of its own: what a test keeps decoded is its own to check.
        library = try realLibrary().using(LoopCache())
        let driven = NodeClock.driven(by: clock, startingAt: start, timeZone: berlin)
        let offset = self.offset
        let nodeClock = NodeClock(
            now: { driven.now().addingTimeInterval(offset.value) }, sleep: driven.sleep, systemTimeZone: driven.systemTimeZone)
        node = Node(
            configuration: try makeConfiguration(["audio.fade_ms": "500"].merging(file) { _, new in new }),
            transport: transport, store: store, clock: nodeClock, audio: output, sounds: library, logger: logs.logger())
        if startScheduler { await node.alarms.start() }
    }

    var scheduler: AlarmScheduler { node.alarms }
    var topics: Topics { node.configuration.topics }
    var memory: InMemoryStore? { store as? InMemoryStore }

    /// The wall clock as the node reads it.
    var now: Date { node.time.now() }

    // MARK: Commands

    /// Answers a command, once every sound file it had opened is in the mix (`AudioArbiter.opened`).
    func respond(_ verb: String, _ payload: String = "") async -> CommandResponse {
        let response = await node.router.respond(verb: verb, payload: Array(payload.utf8))
        await node.arbiter?.opened()
        return response
    }

    /// Sends a command that must be answered ok, and returns its data.
    @discardableResult
    func ok(_ verb: String, _ payload: String = "", sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let response = await respond(verb, payload)
        try #require(response.isOK, "\(verb) \(payload) → \(response.json.serialized)", sourceLocation: sourceLocation)
        return try #require(response.data, sourceLocation: sourceLocation)
    }

    /// `alarm/add`, which must succeed; returns the new alarm's id and the alarm object.
    @discardableResult
    func add(_ payload: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> (id: String, alarm: JSONValue) {
        let alarm = try await ok("alarm/add", payload, sourceLocation: sourceLocation)
        let id = try #require(alarm["id"]?.stringValue, sourceLocation: sourceLocation)
        return (id, alarm)
    }

    // MARK: Time

    /// Lets time pass (monotonic and wall clock alike) up to the wall-clock instant `target`, then
    /// has the scheduler look, as its loop would; returns the delay it asks for.
    @discardableResult
    func advance(to target: Date, sourceLocation: SourceLocation = #_sourceLocation) async -> Duration {
        let milliseconds = Int64((target.timeIntervalSince(now) * 1000).rounded())
        #expect(milliseconds >= 0, "cannot go back in time with advance(to:)", sourceLocation: sourceLocation)
        await clock.advance(by: .milliseconds(max(0, milliseconds)))
        let next = await scheduler.advance()
        // A tone whose file was not kept decoded is opened on a thread: the test looks once it is in the mix.
        await node.arbiter?.opened()
        return delay(until: next)
    }

    /// How long from now until `instant`, to the millisecond.
    private func delay(until instant: Date) -> Duration {
        .milliseconds(Int64((instant.timeIntervalSince(now) * 1000).rounded()))
    }

    /// Sets the wall clock forward (or back, with a negative value) without any time passing, then
    /// has the scheduler look.
    @discardableResult
    func jump(by seconds: TimeInterval) async -> Duration {
        offset.jump(by: seconds)
        return delay(until: await scheduler.advance())
    }

    // MARK: What the node published

    var events: [JSONValue] { transport.published(on: topics.event).compactMap(\.json) }

    var eventNames: [String] { events.compactMap { $0["event"]?.stringValue } }

    func events(_ name: String) -> [JSONValue] { events.filter { $0["event"]?.stringValue == name } }

    /// The latest `B/alarm/state`, `B/alarms` and `B/alarm/next`.
    var alarmState: JSONValue? { transport.published(on: topics.alarmState).last?.json }
    var alarms: JSONValue? { transport.published(on: topics.alarms).last?.json }
    var alarmNext: JSONValue? { transport.published(on: topics.alarmNext).last?.json }

    /// The alarm with `id` in the latest `B/alarms`.
    func publishedAlarm(_ id: String) -> JSONValue? { alarms?.items.first { $0["id"]?.stringValue == id } }

    /// The store once the writes asked for so far are made: what a node started after this one
    /// stopped finds.
    func flushedStore() async -> any Store {
        await node.writer.flush()
        return store
    }

    /// `alarms.json` as stored, once the writes asked for so far are made (the clock's changes are
    /// stored without waiting).
    func storedDocument() async -> JSONValue? {
        await node.writer.flush()
        return memory?.document(AlarmScheduler.documentName)
    }

    /// Whether the noise player sounds an alarm tone, and the tone inputs in the mixer.
    func toneSounding() async -> Bool { await node.arbiter?.toneSounding(.alarm) ?? false }
    var toneInputs: [String] { output.ids.filter { $0.hasPrefix("alarm:") } }
}

extension JSONValue {
    /// The elements of an array; empty for anything else.
    var items: [JSONValue] {
        if case .array(let elements) = self { return elements }
        return []
    }
}

/// `B/alarm/next` when no alarm is due.
let noNextAlarm: JSONValue = ["id": nil, "label": nil, "fires_at": nil, "in_s": nil, "earlier_by_min": 0, "reason": nil, "event": nil]

// MARK: Shared by the alarm scheduler tests

/// The fixture's clock starts on Tuesday 2026-03-10 at 08:04 in Berlin (+01:00); most alarms here
/// are set for 08:10 that day.
let fire = instant(2026, 3, 10, 8, 10, in: berlin)
let fireISO = "2026-03-10T08:10:00+01:00"

func berlinISO(_ instant: Date) -> String { ISOTime.string(instant, in: berlin) }

/// The `alarm_ringing` event of SPEC §2.
func ringingEvent(_ id: String, _ label: String, at: Date, firesAt: String = fireISO, snoozeCount: Int = 0) -> JSONValue {
    [
        "event": "alarm_ringing", "at": .string(berlinISO(at)), "alarm_id": .string(id), "label": .string(label),
        "fires_at": .string(firesAt), "snooze_count": .number(Double(snoozeCount)),
    ]
}

/// `B/alarm/state` of SPEC §2 (plus `waiting`, and `sound_failed`: null with no audio engine).
func ringState(
    _ state: String, _ id: String, _ label: String, since: Date, snoozedUntil: Date? = nil, snoozeCount: Int = 0,
    waiting: [JSONValue] = [], escalated: Bool = false
) -> JSONValue {
    [
        "state": .string(state), "alarm_id": .string(id), "label": .string(label), "since": .string(berlinISO(since)),
        "snoozed_until": snoozedUntil.map { .string(berlinISO($0)) } ?? .null,
        "snooze_count": .number(Double(snoozeCount)), "escalated": .bool(escalated), "waiting": .array(waiting),
        "sound_failed": .null,
    ]
}

let idleState: JSONValue = [
    "state": "idle", "alarm_id": nil, "label": nil, "since": nil, "snoozed_until": nil, "snooze_count": 0, "escalated": false, "waiting": [],
    "sound_failed": nil,
]

/// The alarm object without the members that differ between an alarm and its copy.
func withoutID(_ alarm: JSONValue?) -> JSONValue? {
    guard var members = alarm?.objectValue else { return nil }
    members["id"] = nil
    return .object(members)
}

// MARK: - Verbs and topics

/// A store whose `alarms.json` could not be read: `load` reports it moved aside, as `FileStore` does.
struct UnreadableAlarmsStore: Store {
    func load(_ name: String) -> StoredDocument {
        name == AlarmScheduler.documentName ? .movedAside(movedTo: "alarms.json.unreadable-1", reason: "not valid JSON") : .missing
    }

    func save(_ name: String, _ value: JSONValue) throws {}

    func moveAside(_ name: String, reason: String) -> StoredDocument { .movedAside(movedTo: name, reason: reason) }
}


/// An in-memory store whose saves can be made to fail, as a disk that fills up mid-ring.
final class BreakableStore: Store {
    let inner = InMemoryStore()
    let broken = Mutex(false)

    func load(_ name: String) -> StoredDocument { inner.load(name) }

    func save(_ name: String, _ value: JSONValue) throws {
        if broken.withLock({ $0 }) { throw FailingStore.failure }
        try inner.save(name, value)
    }

    func moveAside(_ name: String, reason: String) -> StoredDocument { inner.moveAside(name, reason: reason) }
}

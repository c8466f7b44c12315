import Foundation
import NoiseClockAudio
import NoiseClockCore
import Synchronization
import Testing

@testable import NoiseClockNode

/// Meditation sessions on a whole node (the alarm fixture: the real catalog, a fake output, a test
/// clock starting on 2026-03-10 at 08:04:00 in Berlin).
extension AlarmFixture {
    var meditationTopic: String { topics.state(StateTopic.meditation) }
    var meditationStates: [JSONValue] { transport.published(on: meditationTopic).compactMap(\.json) }
    var meditation: JSONValue? { meditationStates.last }
    var stats: JSONValue? { transport.published(on: topics.state(StateTopic.meditationStats)).last?.json }
    var gongInputs: [String] { output.ids.filter { $0.hasPrefix("meditation:gong:") } }
    /// The history as stored, once the writes asked for so far are made.
    func storedHistory() async -> MeditationHistory? {
        await node.writer.flush()
        return memory?.document(MeditationHistory.documentName).flatMap { try? MeditationHistory(stored: $0) }
    }

    /// Lets `seconds` pass, then has the alarms, the timers and the session look, as their loops
    /// would; returns the session's next wake-up.
    @discardableResult
    func pass(_ seconds: Double) async -> Date? {
        await clock.advance(by: .milliseconds(Int64((seconds * 1000).rounded())))
        await scheduler.advance()
        await node.timers.advance()
        let next = await node.meditation.advance()
        await node.arbiter?.opened()
        return next
    }

    /// Lets time pass up to `instant`, then has everything look.
    @discardableResult
    func pass(to instant: Date) async -> Date? { await pass(instant.timeIntervalSince(now)) }

    /// Every message the node published so far (states and events), to show a refused verb sent nothing.
    var publishedCount: Int { transport.published.count }

    /// The ISO time `seconds` after the fixture's start, as the node writes it.
    func iso(_ seconds: Double) -> JSONValue { .string(berlinISO(AlarmFixture.start.addingTimeInterval(seconds))) }
}

/// `B/meditation` when no session is under way.
let idleMeditation: JSONValue = [
    "state": "idle", "kind": nil, "started_at": nil, "ends_at": nil, "elapsed_s": nil, "remaining_s": nil, "duration_s": nil,
    "interval_min": nil, "next_gong_at": nil, "background": nil, "item": nil, "position_s": nil,
]

/// A guided meditation's audio in tests: a tone, paused and sought as the session says.
final class FakeGuidedSource: GuidedSource, @unchecked Sendable {
    // Touched only under the engine's lock, as the real source is; Sendable only so a test can read it.
    var isPaused = false
    var seeks: [Int] = []

    func seek(toFrame frame: Int) throws(AudioError) {
        seeks.append(frame)
    }

    func render(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        for index in buffer.indices { buffer[index] = isPaused ? 0 : 1000 }
        return buffer.count / AudioFormat.channels
    }
}

/// A library of guided meditations in memory.
final class FakeGuidedLibrary: GuidedLibrary {
    static let bodyScan = GuidedTrack(id: "body-scan", name: "Body scan", teacher: "Ana", path: "/nowhere/body-scan.mp3", durationSeconds: 300)
    let tracks: [GuidedTrack]
    private let made = Mutex<[FakeGuidedSource]>([])

    init(tracks: [GuidedTrack] = [bodyScan]) {
        self.tracks = tracks
    }

    /// The sources made so far, the newest last.
    var sources: [FakeGuidedSource] { made.withLock { $0 } }

    func track(_ id: String) async throws(CommandError) -> GuidedTrack {
        guard let track = tracks.first(where: { $0.id == id }) else { throw CommandError(.notFound, "no guided meditation \"\(id)\"", field: "id") }
        return track
    }

    func source(for track: GuidedTrack) throws(CommandError) -> any GuidedSource {
        let source = FakeGuidedSource()
        made.withLock { $0.append(source) }
        return source
    }
}

extension AlarmFixture {
    /// A session on this node's hub, clock, arbiter and store, with a guided library (the node's
    /// own has none until the library lands); the node's verbs do not reach it.
    func guidedSession(_ guided: FakeGuidedLibrary) async -> MeditationSession {
        let session = MeditationSession(
            hub: node.hub, time: node.time, arbiter: node.arbiter, sounds: library, guided: guided, writer: node.writer,
            fadeMilliseconds: 500, logger: logs.logger())
        await session.start()
        return session
    }
}

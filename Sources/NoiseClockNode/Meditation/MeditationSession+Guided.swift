import FoundationEssentials
import NoiseClockAudio
import NoiseClockCore
import NoiseClockSystem

/// A guided meditation as a session plays it: an entry of the library (`meditations.dir`).
public struct GuidedTrack: Sendable, Hashable {
    public var id: String
    public var name: String
    public var teacher: String
    public var path: String
    public var durationSeconds: Double

    public init(id: String, name: String, teacher: String, path: String, durationSeconds: Double) {
        self.id = id
        self.name = name
        self.teacher = teacher
        self.path = path
        self.durationSeconds = durationSeconds
    }

    var json: JSONValue {
        ["id": .string(id), "name": .string(name), "teacher": .string(teacher), "duration_s": .number(durationSeconds.rounded())]
    }
}

/// A file played once, which can be paused and sought; touched only under the engine's lock
/// (inside `AudioArbiter.update`).
public protocol GuidedSource: SampleSource {
    var isPaused: Bool { get set }
    func seek(toFrame frame: Int) throws(AudioError)
}

extension PlayOnceSource: GuidedSource {}

/// The library of `meditations.dir` (SPEC §10) plays its entries through `PlayOnceSource`.
extension MeditationLibrary: GuidedLibrary {
    public func track(_ id: String) throws(CommandError) -> GuidedTrack {
        let item = try item(id)
        return GuidedTrack(id: item.id, name: item.name, teacher: item.teacher, path: item.path, durationSeconds: item.durationSeconds)
    }

    /// Opens the file on a thread of its own: libmpg123 reads all of it for an exact length (about
    /// 60 ms for 20 minutes), which must not hold up the node's executor.
    public nonisolated func source(for track: GuidedTrack) async throws(CommandError) -> any GuidedSource {
        let opened = await withCheckedContinuation { (done: CheckedContinuation<OpenedSource, Never>) in
            Threads.start(name: "meditation open") {
                do {
                    done.resume(returning: OpenedSource(source: PlayOnceSource(decoder: try MP3Decoder(path: track.path)), error: nil))
                } catch {
                    done.resume(returning: OpenedSource(source: nil, error: "\(error)"))
                }
            }
        }
        guard let source = opened.source else {
            throw CommandError(.unavailable, "\"\(track.name)\" cannot be played: \(opened.error ?? "")", field: "id")
        }
        return source
    }
}

/// A source opened on another thread, handed over once: nothing else holds it until the session
/// puts it in the mix.
private struct OpenedSource: @unchecked Sendable {
    let source: PlayOnceSource?
    let error: String?
}

/// What guided playback needs of the library of guided meditations.
public protocol GuidedLibrary: Sendable {
    /// The entry `id`: `not_found` (field `id`) when there is none, `unavailable` when its file cannot be read.
    func track(_ id: String) async throws(CommandError) -> GuidedTrack
    /// A source that plays `track`'s file once from its start.
    func source(for track: GuidedTrack) async throws(CommandError) -> any GuidedSource
}

extension MeditationSession {
    nonisolated static let guidedInput = "meditation:guided"

    /// A guided meditation under way. Its position follows the wall clock while it plays (the
    /// audio engine keeps real time), and stands still while paused or covered.
    struct GuidedPlay {
        var track: GuidedTrack
        var source: any GuidedSource
        var startedAt: Date
        /// The position at `since`, or where it stands still.
        var position: TimeInterval = 0
        /// Playing since (nil: standing still).
        var since: Date?
        /// Heard before `since`.
        var heard: TimeInterval = 0
        var userPaused = false
        /// Under an alarm or a ringing timer.
        var covered = false
        var completedAt: Date?
        var publishedAt: Date

        var phase: MeditationTimer.Phase {
            if completedAt != nil { return .completed }
            return userPaused || covered ? .paused : .running
        }

        func position(at now: Date) -> TimeInterval {
            min(track.durationSeconds, position + (since.map { max(0, now.timeIntervalSince($0)) } ?? 0))
        }

        func listened(at now: Date) -> TimeInterval { heard + (since.map { max(0, now.timeIntervalSince($0)) } ?? 0) }

        /// When it ends, if it plays on.
        var endsAt: Date? { since.map { $0.addingTimeInterval(track.durationSeconds - position) } }

        var eventDetails: [String: JSONValue] {
            ["kind": "guided", "id": .string(track.id), "duration_s": .number(track.durationSeconds.rounded())]
        }
    }

    // MARK: Verbs

    /// `meditation/play`: plays the guided meditation `id` from its start.
    public func play(_ id: String) async throws(CommandError) -> JSONValue {
        advance()
        try refuseIfActive()
        guard let guided, let arbiter else { throw CommandError(.unavailable, "guided meditations need the audio output and meditations.dir") }
        let track = try await guided.track(id)
        let source = try await guided.source(for: track)
        // Another verb may have started a session while the library answered.
        try refuseIfActive()
        let now = time.now()
        begin(.guided(GuidedPlay(track: track, source: source, startedAt: now, since: now, publishedAt: now)))
        let gain = Volume.gain(time.settings.current.meditation.volume)
        arbiter.update(.meditation) { $0.add(Self.guidedInput, source: source, gain: gain, fadeInFrames: AudioFormat.frames(milliseconds: 50)) }
        var details = session?.eventDetails ?? [:]
        details["name"] = .string(track.name)
        details["teacher"] = .string(track.teacher)
        hub.emit(time.event("meditation_started", details))
        logger.info("guided meditation started", metadata: ["id": "\(track.id)"])
        advance()
        return state(at: time.now())
    }

    /// `meditation/seek`: moves a guided meditation to `position` seconds (0 to its length, end excluded).
    public func seek(_ position: Double) throws(CommandError) -> JSONValue {
        advance()
        let now = time.now()
        guard case .guided(var play)? = session, play.phase != .completed else {
            throw CommandError(.conflict, "seek needs a guided meditation under way (\(stateName(at: now)))")
        }
        guard position >= 0, position < play.track.durationSeconds else {
            throw .invalidField(
                "position_s", "must be from 0 to less than \(Int(play.track.durationSeconds.rounded(.up))) s, the meditation's length")
        }
        var failure: AudioError?
        let source = play.source
        arbiter?.update(.meditation) { _ in
            do throws(AudioError) {
                try source.seek(toFrame: Int(position * Double(AudioFormat.sampleRate)))
            } catch {
                failure = error
            }
        }
        if let failure { throw CommandError(.unavailable, "cannot seek: \(failure)", field: "position_s") }
        play.heard = play.listened(at: now)
        play.position = position
        if play.since != nil { play.since = now }
        play.publishedAt = now
        session = .guided(play)
        changed(at: now)
        wakeUp.wake()
        return state(at: now)
    }

    // MARK: Time

    /// Follows the cover, completes at the end, and says when to look again: the end, or the next
    /// `position_s` update (every `positionPeriod` while it plays).
    func advanceGuided(now: Date) -> [Date] {
        guard case .guided(var play)? = session, play.completedAt == nil else { return [] }
        if let previous = looks.last, now < previous, let since = play.since {
            play.since = since.addingTimeInterval(now.timeIntervalSince(previous))
            play.publishedAt = play.publishedAt.addingTimeInterval(now.timeIntervalSince(previous))
        }
        session = .guided(play)
        let covered = !(arbiter?.isAudible(.meditation) ?? true)
        if covered != play.covered {
            play.covered = covered
            session = .guided(play)
            applyPlayback(at: now)
            guard case .guided(let updated)? = session else { return [] }
            play = updated
        }
        if let end = play.endsAt, now >= end {
            play.heard = play.listened(at: end)
            play.position = play.track.durationSeconds
            play.since = nil
            play.completedAt = end
            session = .guided(play)
            var details = play.eventDetails
            details["minutes"] = .number(Double(MeditationRecord.minutes(meditated: play.heard)))
            hub.emit(time.event("meditation_completed", details))
            record(.guided(play), meditated: play.heard, completed: true)
            fadeOut(Self.guidedInput)
            arbiter?.claim(.meditation, false)
            logger.info("guided meditation completed", metadata: ["id": "\(play.track.id)"])
            return []
        }
        guard let end = play.endsAt else { return [] }
        if now.timeIntervalSince(play.publishedAt) >= Self.positionPeriod { play.publishedAt = now }
        session = .guided(play)
        return [end, play.publishedAt.addingTimeInterval(Self.positionPeriod)]
    }

    /// Plays or stands still as the user's pause and the cover say; the source pauses with it.
    func applyPlayback(at now: Date) {
        guard case .guided(var play)? = session else { return }
        let plays = !play.userPaused && !play.covered && play.completedAt == nil
        if plays == (play.since != nil) { return }
        if plays {
            play.since = now
            play.publishedAt = now
        } else {
            play.heard = play.listened(at: now)
            play.position = play.position(at: now)
            play.since = nil
        }
        let source = play.source
        arbiter?.update(.meditation) { _ in source.isPaused = !plays }
        session = .guided(play)
        wakeUp.wake()
    }

    func guidedState(_ play: GuidedPlay, at now: Date, into members: inout [String: JSONValue]) {
        let position = play.position(at: now)
        members["ends_at"] = (play.completedAt ?? play.endsAt).map { .string(time.iso($0)) } ?? .null
        members["elapsed_s"] = .number(position.rounded(.down))
        members["remaining_s"] = .number(max(0, play.track.durationSeconds - position).rounded(.up))
        members["duration_s"] = .number(play.track.durationSeconds.rounded())
        members["item"] = play.track.json
        members["position_s"] = .number(position.rounded(.down))
    }
}

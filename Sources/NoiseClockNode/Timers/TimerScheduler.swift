import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem

/// The countdown timers (SPEC §10): the `timer/*` verbs, `B/timers`, the ring of a finished timer
/// (through the arbiter, below an alarm and above everything else), and the timer events.
///
/// The timers are one document, `timers.json`, stored before a change is answered `ok`. They
/// survive a restart like alarms: a timer that ended while the node was down rings at once if it
/// ended within `alarms.missed_grace_min`, else it is reported `timer_missed`.
@NodeActor
public final class TimerScheduler {
    public nonisolated static let documentName = "timers.json"
    /// The label of a timer started without one.
    public nonisolated static let defaultLabel = "Timer"
    /// The tone of a timer started without a sound.
    public nonisolated static let defaultSound = "timer-chime"
    /// Timers ring at this volume (0-100).
    public nonisolated static let ringVolume = 80

    /// Loads `timers.json`; an unreadable file is moved aside and reported, and the node starts without timers.
    public nonisolated static func load(from store: any Store, logger: Logger) -> (book: TimerBook, problem: String?) {
        let (book, problem) = store.load(documentName) { try TimerBook(stored: $0) }
        if let problem { logger.error("stored timers were unreadable; starting without timers", metadata: ["problem": "\(problem)"]) }
        return (book ?? TimerBook(), problem)
    }

    let hub: StateHub
    let time: NodeTime
    let arbiter: AudioArbiter?
    let library: SoundLibrary
    let clockwork: TimerClockwork
    let logger: Logger
    /// `timers.json`: what is durable and acted on, and the changes waiting for their write.
    private var ledger: Ledger<TimerBook, [CountdownTimer]>
    /// The timers as stored.
    var book: TimerBook { ledger.current }
    private var looks = Looks()
    /// The sound of the tone ringing now (nil: silent).
    private var ringingSound: String?
    nonisolated let wakeUp = WakeUp()

    public nonisolated convenience init(
        book: TimerBook, store: any Store, hub: StateHub, time: NodeTime, arbiter: AudioArbiter?, library: SoundLibrary,
        ringTimeoutSeconds: Int, graceMinutes: Int, logger: Logger
    ) {
        self.init(
            book: book, writer: StoreWriter(store: store), hub: hub, time: time, arbiter: arbiter, library: library,
            ringTimeoutSeconds: ringTimeoutSeconds, graceMinutes: graceMinutes, logger: logger)
    }

    public nonisolated init(
        book: TimerBook, writer: StoreWriter, hub: StateHub, time: NodeTime, arbiter: AudioArbiter?, library: SoundLibrary,
        ringTimeoutSeconds: Int, graceMinutes: Int, logger: Logger
    ) {
        self.ledger = Ledger(Self.documentName, book, writer: writer) { $0.stored }
        self.hub = hub
        self.time = time
        self.arbiter = arbiter
        self.library = library
        self.clockwork = TimerClockwork(ringTimeout: Double(ringTimeoutSeconds), grace: Double(graceMinutes * 60))
        self.logger = logger
    }

    // MARK: Verbs

    public func start(_ draft: TimerDraft) async throws(CommandError) -> JSONValue {
        advance()
        var draft = draft
        if let sound = draft.sound { draft.sound = try timerSound(sound) }
        let id = newID(), sound = defaultSound
        return try await one { [draft] book, now throws(CommandError) in
            try book.start(draft, id: id, label: Self.defaultLabel, sound: sound, now: now)
        }
    }

    public func pause(_ id: String) async throws(CommandError) -> JSONValue {
        try await one { book, now throws(CommandError) in try book.pause(id, now: now) }
    }

    public func resume(_ id: String) async throws(CommandError) -> JSONValue {
        try await one { book, now throws(CommandError) in try book.resume(id, now: now) }
    }

    public func extend(_ id: String, seconds: Int) async throws(CommandError) -> JSONValue {
        try await one { book, now throws(CommandError) in try book.extend(id, seconds: seconds, now: now) }
    }

    /// Cancels one timer (dismissing it if it rings), or, without an id, every timer.
    public func cancel(_ id: String?) async throws(CommandError) -> JSONValue {
        advance()
        let removed = try await change { book, _ throws(CommandError) in
            if let id { return [try book.remove(id)] }
            let all = book.timers
            for timer in all { _ = try book.remove(timer.id) }
            return all
        }
        for timer in removed where timer.stateName == "ringing" { emit("timer_dismissed", timer, ["reason": "command"]) }
        return .array(removed.map { json($0, now: time.now()) })
    }

    /// Dismisses one ringing timer, or, without an id, every ringing timer. Like an alarm's
    /// dismiss, it takes effect at once and even when it cannot be stored (a ringing timer must
    /// always be stoppable); the answer waits for the write, and a failure is logged.
    public func dismiss(_ id: String?) async throws(CommandError) -> JSONValue {
        advance()
        let ringing: [CountdownTimer]
        if let id {
            let timer = try book.timer(id)
            guard timer.stateName == "ringing" else { throw CommandError(.conflict, "timer \"\(id)\" is not ringing", field: "id") }
            ringing = [timer]
        } else {
            ringing = book.ringing
            guard !ringing.isEmpty else { throw CommandError(.conflict, "no timer is ringing") }
        }
        var next = book
        for timer in ringing { _ = try next.remove(timer.id) }
        let ticket = ledger.adopt(next)
        changed()
        for timer in ringing { emit("timer_dismissed", timer, ["reason": "command"]) }
        let answer = JSONValue.array(ringing.map { json($0, now: time.now()) })
        do {
            try await ticket?.wait()
        } catch {
            logger.error("a timer's dismiss could not be stored; acting on it anyway", metadata: ["error": "\(error)"])
        }
        return answer
    }

    /// Whether a timer rings now (`dismiss` without an id stops the alarm first, then these),
    /// after a look at the time: since the timers' loop last ran a ring may have timed out, or a
    /// timer finished.
    public func ringsNow() -> Bool {
        advance()
        return !book.ringing.isEmpty
    }

    // MARK: Time

    /// Publishes `B/timers` and goes on with what was stored: a timer that ended while the node
    /// was down rings or is missed, a ring in progress rings on.
    public func start() {
        guard looks.start() else { return }
        advance()
        publish()
    }

    /// Rings what finished, silences what rang long enough, reports what was missed, and returns
    /// the next instant at which something is due (nil: nothing runs or rings).
    @discardableResult
    public func advance() -> Date? {
        let now = time.now()
        let step = clockwork.step(book, now: now, previous: looks.last)
        looks.record(now)
        if step.book != book {
            // Stored without waiting: `timer_finished` is what a subscriber times the ring by,
            // and the store's fsync may take hundreds of milliseconds on an SD card. A crash
            // before the write is safe: the stored timer is then still running, and at the
            // restart it is found finished (or missed) again.
            ledger.adopt(step.book)
            for timer in step.finished {
                logger.info("timer finished", metadata: ["timer": "\(timer.id)", "label": "\(timer.label)"])
                emit("timer_finished", timer, ["duration_s": .number(Double(timer.durationSeconds))])
            }
            for timer in step.silenced { emit("timer_dismissed", timer, ["reason": "timeout"]) }
            for timer in step.missed {
                logger.warning("timer missed", metadata: ["timer": "\(timer.id)"])
                emit("timer_missed", timer, [:])
            }
        }
        updateTone()
        publish()
        // Something due within the minute: the output gets ready now, and the tones of the timers
        // that end by then are decoded ahead.
        if arbiter != nil {
            let ending = book.timers.filter { if case .running = $0.state { $0.remaining(at: now) <= AudioArbiter.soon } else { false } }
            library.keepReady(ending.map(\.sound), for: "timers")
        }
        if let wake = step.wake, wake.timeIntervalSince(now) <= AudioArbiter.soon { arbiter?.prepare() }
        return step.wake
    }

    /// Sleeps until `deadline`, or less when a verb changes the timers or the wall clock is set.
    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }

    // MARK: Helpers

    /// A change of one timer, answered with that timer as it is then.
    private func one(_ body: @escaping @Sendable (inout TimerBook, Date) throws(CommandError) -> CountdownTimer) async throws(CommandError) -> JSONValue {
        advance()
        let timers = try await change { book, now throws(CommandError) in [try body(&book, now)] }
        let now = time.now()
        return timers.first.map { json($0, now: now) } ?? .null
    }

    /// Stages a change (`Ledger`), waits for its write without holding the node's thread, then
    /// makes it current: the tone, `B/timers`, and the service woken for the new instants. The
    /// change is a pure function of the timers and the instant it was asked at.
    private func change(_ body: @escaping @Sendable (inout TimerBook, Date) throws(CommandError) -> [CountdownTimer]) async throws(CommandError) -> [CountdownTimer] {
        let now = time.now()
        // The effects are only the answer (the timers as they are once current); what the changes
        // made current did is published whole.
        return try await Ledger.commit({ book throws(CommandError) in try body(&book, now) }, what: "timers", in: { $0(&ledger) }) { _ in
            changed()
        }
    }

    /// After a change: the tone, `B/timers`, and the service woken for its new instants.
    private func changed() {
        updateTone()
        publish()
        wakeUp.wake()
    }

    /// One tone while any timer rings: the sound of the one that finished first.
    private func updateTone() {
        let sound = book.ringing.min { ringStart($0) < ringStart($1) }?.sound
        guard sound != ringingSound, let arbiter else { return }
        ringingSound = sound
        guard let sound else {
            arbiter.stopTone(.timer)
            return
        }
        arbiter.ring(.timer, sound: sound, kind: nil, fallback: defaultSound, library: library, volume: Self.ringVolume, rampSeconds: 0, logger: logger)
    }

    private func ringStart(_ timer: CountdownTimer) -> Date {
        if case .ringing(let since) = timer.state { since } else { .distantFuture }
    }

    func publish() {
        let now = time.now()
        hub.publish(StateTopic.timers, .array(book.timers.map { json($0, now: now) }))
        hub.signals.send(.timerRinging(!book.ringing.isEmpty))
    }

    private func json(_ timer: CountdownTimer, now: Date) -> JSONValue {
        let zone = time.zone()
        return timer.json(at: now) { ISOTime.string($0, in: zone) }
    }

    private func emit(_ name: String, _ timer: CountdownTimer, _ extra: [String: JSONValue]) {
        hub.emit(time.event(name, extra.merging(["timer_id": .string(timer.id), "label": .string(timer.label)]) { a, _ in a }))
    }

    private var defaultSound: String {
        library.catalog.sound(named: Self.defaultSound)?.id ?? library.catalog.defaultSound(of: .alarm)?.id ?? Self.defaultSound
    }

    /// A timer rings with a gong or timer tone, or an alarm tone.
    private func timerSound(_ reference: String) throws(CommandError) -> String {
        let sound = try library.sound(reference, field: "sound")
        guard sound.kind == .gong || sound.kind == .alarm else {
            throw CommandError(.notFound, "no timer tone \"\(reference)\" (a gong, timer or alarm tone)", field: "sound")
        }
        return sound.id
    }

    /// A new timer id, as alarm ids are made (`NodeIDs`).
    private func newID() -> String {
        let staged = ledger.staged
        return NodeIDs.new { id in staged.timers.contains { $0.id == id } }
    }
}

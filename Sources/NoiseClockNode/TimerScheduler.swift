import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore

/// The countdown timers (SPEC §10): the `timer/*` verbs, `B/timers`, the ring of a finished timer
/// (through the arbiter, below an alarm and above everything else), and the timer events.
///
/// The timers are one document, `timers.json`, stored before a change is answered `ok`. They
/// survive a restart like alarms: a timer that ended while the node was down rings at once if it
/// ended within `alarms.missed_grace_min`, else it is reported `timer_missed`.
public actor TimerScheduler {
    public static let documentName = "timers.json"
    /// The label of a timer started without one.
    public static let defaultLabel = "Timer"
    /// The tone of a timer started without a sound.
    public static let defaultSound = "timer-chime"
    /// Timers ring at this volume (0-100).
    public static let ringVolume = 80

    /// Loads `timers.json`; an unreadable file is moved aside and reported, and the node starts without timers.
    public static func load(from store: any Store, logger: Logger) -> (book: TimerBook, problem: String?) {
        let (book, problem) = store.load(documentName) { try TimerBook(stored: $0) }
        if let problem { logger.error("stored timers were unreadable; starting without timers", metadata: ["problem": "\(problem)"]) }
        return (book ?? TimerBook(), problem)
    }

    let store: any Store
    let hub: StateHub
    let time: NodeTime
    let arbiter: AudioArbiter?
    let library: SoundLibrary
    let clockwork: TimerClockwork
    let logger: Logger
    private(set) var book: TimerBook
    /// The wall clock at the last look: a later look that reads earlier means it was set back.
    private var lastLook: Date?
    /// The sound of the tone ringing now (nil: silent).
    private var ringingSound: String?
    private var started = false
    nonisolated let wakeUp = WakeUp()

    public init(
        book: TimerBook, store: any Store, hub: StateHub, time: NodeTime, arbiter: AudioArbiter?, library: SoundLibrary,
        ringTimeoutSeconds: Int, graceMinutes: Int, logger: Logger
    ) {
        self.book = book
        self.store = store
        self.hub = hub
        self.time = time
        self.arbiter = arbiter
        self.library = library
        self.clockwork = TimerClockwork(ringTimeout: Double(ringTimeoutSeconds), grace: Double(graceMinutes * 60))
        self.logger = logger
    }

    // MARK: Verbs

    public func start(_ draft: TimerDraft) throws(CommandError) -> JSONValue {
        advance()
        var draft = draft
        if let sound = draft.sound { draft.sound = try timerSound(sound) }
        let now = time.now()
        var next = book
        let timer = try next.start(draft, id: newID(), label: Self.defaultLabel, sound: defaultSound, now: now)
        try commit(next)
        return json(timer, now: now)
    }

    public func pause(_ id: String) throws(CommandError) -> JSONValue {
        try change { book, now throws(CommandError) in try book.pause(id, now: now) }
    }

    public func resume(_ id: String) throws(CommandError) -> JSONValue {
        try change { book, now throws(CommandError) in try book.resume(id, now: now) }
    }

    public func extend(_ id: String, seconds: Int) throws(CommandError) -> JSONValue {
        try change { book, now throws(CommandError) in try book.extend(id, seconds: seconds, now: now) }
    }

    /// Cancels one timer (dismissing it if it rings), or, without an id, every timer.
    public func cancel(_ id: String?) throws(CommandError) -> JSONValue {
        advance()
        var next = book
        let removed: [CountdownTimer]
        if let id {
            removed = [try next.remove(id)]
        } else {
            removed = book.timers
            for timer in removed { _ = try next.remove(timer.id) }
        }
        try commit(next)
        for timer in removed where timer.stateName == "ringing" { emit("timer_dismissed", timer, ["reason": "command"]) }
        return .array(removed.map { json($0, now: time.now()) })
    }

    /// Dismisses one ringing timer, or, without an id, every ringing timer.
    public func dismiss(_ id: String?) throws(CommandError) -> JSONValue {
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
        try commit(next)
        for timer in ringing { emit("timer_dismissed", timer, ["reason": "command"]) }
        return .array(ringing.map { json($0, now: time.now()) })
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
        guard !started else { return }
        started = true
        advance()
        publish()
    }

    /// Rings what finished, silences what rang long enough, reports what was missed, and returns
    /// the next instant at which something is due (nil: nothing runs or rings).
    @discardableResult
    public func advance() -> Date? {
        let now = time.now()
        let step = clockwork.step(book, now: now, previous: lastLook)
        lastLook = now
        if step.book != book {
            book = step.book
            // The events first, the store after: `timer_finished` is what a subscriber times the
            // ring by, and the store's fsync takes milliseconds (tens on an SD card). A crash in
            // between is safe: the stored timer is then still running, and at the restart it is
            // found finished (or missed) again.
            for timer in step.finished {
                logger.info("timer finished", metadata: ["timer": "\(timer.id)", "label": "\(timer.label)"])
                emit("timer_finished", timer, ["duration_s": .number(Double(timer.durationSeconds))])
            }
            for timer in step.silenced { emit("timer_dismissed", timer, ["reason": "timeout"]) }
            for timer in step.missed {
                logger.warning("timer missed", metadata: ["timer": "\(timer.id)"])
                emit("timer_missed", timer, [:])
            }
            save()
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

    private func change(_ body: (inout TimerBook, Date) throws(CommandError) -> CountdownTimer) throws(CommandError) -> JSONValue {
        advance()
        let now = time.now()
        var next = book
        let timer = try body(&next, now)
        try commit(next)
        return json(timer, now: now)
    }

    /// Stores `next`, makes it current, publishes it, and wakes the service for its new instants.
    private func commit(_ next: TimerBook) throws(CommandError) {
        guard next != book else { return }
        do {
            try store.save(Self.documentName, next.stored)
        } catch {
            throw CommandError(.unavailable, "timers could not be stored: \(error)")
        }
        book = next
        updateTone()
        publish()
        wakeUp.wake()
    }

    /// For changes the clock brings: heard first, stored after (as alarms are).
    private func save() {
        do {
            try store.save(Self.documentName, book.stored)
        } catch {
            logger.error("timers could not be stored", metadata: ["error": "\(error)"])
        }
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
        do {
            arbiter.startTone(.timer, sample: try library.sampleSource(for: sound), gain: Volume.gain(Self.ringVolume), rampFrames: 0)
        } catch {
            logger.error("timer tone unavailable; using the default", metadata: ["sound": "\(sound)", "error": "\(error)"])
            if let fallback = try? library.sampleSource(for: defaultSound) {
                arbiter.startTone(.timer, sample: fallback, gain: Volume.gain(Self.ringVolume), rampFrames: 0)
            }
        }
    }

    private func ringStart(_ timer: CountdownTimer) -> Date {
        if case .ringing(let since) = timer.state { since } else { .distantFuture }
    }

    func publish() {
        let now = time.now()
        hub.publish(StateTopic.timers, .array(book.timers.map { json($0, now: now) }))
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

    /// Eight hex characters, the first a letter, as alarm ids.
    private func newID() -> String {
        while true {
            let hex = UUID().uuidString.lowercased().filter(\.isHexDigit)
            let id = String("abcdef".randomElement() ?? "a") + hex.prefix(7)
            if !book.timers.contains(where: { $0.id == id }) { return id }
        }
    }
}

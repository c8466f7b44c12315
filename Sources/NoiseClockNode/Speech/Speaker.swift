import FoundationEssentials
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockHub
import NoiseClockSpeech
import NoiseClockStreams
import NoiseClockSystem

/// The clock's voice (SPEC §16): what `say`, the talking clock and the briefing ask for waits in a
/// `SpeechQueue` and is spoken one after another, each by an engine's process (`SpeechProcess`,
/// on a thread of its own) into a mixer input of the `speech` source, over the noise and the radio
/// (the arbiter ducks them to 20 % and brings them back), under an alarm or a ringing timer
/// (which interrupts it: the utterance is dropped, the queue waits for the ring to end). In quiet
/// hours a normal announcement waits for their end, when the clockwork looks again.
@NodeActor
public final class Speaker {
    nonisolated let configuration: Configuration.Speech
    nonisolated let arbiter: AudioArbiter?
    nonisolated let hub: StateHub
    nonisolated let time: NodeTime
    nonisolated let holidays: HolidayCalendar?
    nonisolated let logger: Logger
    /// The process that says an utterance (the engine of `speech.engine`; a test's own).
    nonisolated let job: @Sendable (Utterance, Configuration.Speech) -> SpeechProcess.Job
    public nonisolated let wakeUp = WakeUp()

    private var queue = SpeechQueue()
    private var current: Current?
    private var count = 0
    private var lastError: String?
    /// The latest weather (SPEC §17), for the briefing.
    private var weather: WeatherReport?
    /// The calendars' coming days (SPEC §17), for the briefing's first events.
    private var agenda = Agenda()

    struct Current {
        var utterance: Utterance
        var process: SpeechProcess
        var input: String
        var started: Date
        /// The voice's first samples were made (the chime alone does not count).
        var spoke = false
        var error: SpeechError?
    }

    public nonisolated init(
        configuration: Configuration.Speech, arbiter: AudioArbiter?, hub: StateHub, time: NodeTime, holidays: HolidayCalendar?,
        logger: Logger, job: @escaping @Sendable (Utterance, Configuration.Speech) -> SpeechProcess.Job = Speaker.engineJob
    ) {
        self.configuration = configuration
        self.arbiter = arbiter
        self.hub = hub
        self.time = time
        self.holidays = holidays
        self.logger = logger
        self.job = job
        let wakeUp = wakeUp
        // A ring above speech interrupts it; when the ring ends, the queue goes on.
        arbiter?.onTopChange { [self] top in
            if let top, top > .speech { interrupt() } else { wakeUp.wake() }
        }
        hub.signals.subscribe { [self] signal in
            switch signal {
            case .briefing(let alarmID, let label, let at): brief(alarmID: alarmID, label: label, dismissedAt: at)
            case .weather(let report): weather = report
            case .agenda(let agenda): self.agenda = agenda
            default: break
            }
        }
    }

    /// The engine's process for `utterance`: the built-in helper, or the user's command through
    /// `/bin/sh -c` with the voice, language and rate in its environment.
    public nonisolated static func engineJob(_ utterance: Utterance, _ configuration: Configuration.Speech) -> SpeechProcess.Job {
        let voice = voice(for: utterance.language, configuration)
        let environment = [
            "NOISECLOCK_VOICE": voice, "NOISECLOCK_LANGUAGE": utterance.language.rawValue, "NOISECLOCK_RATE": "\(configuration.rate)",
        ]
        let arguments = configuration.engine == .command
            ? ["/bin/sh", "-c", configuration.command]
            : [SpeechProcess.defaultHelper, "--voice", voice, "--rate", "\(configuration.rate)"]
        return SpeechProcess.Job(arguments: arguments, environment: environment, text: utterance.spoken, chime: utterance.chime)
    }

    /// `speech.voice` when it speaks `language` (or names no language of the node's), else the language.
    nonisolated static func voice(for language: Language, _ configuration: Configuration.Speech) -> String {
        let voice = configuration.voice
        guard !voice.isEmpty else { return language.rawValue }
        let prefix = voice.prefix { $0.isLetter }.lowercased()
        if let named = Language(rawValue: prefix), named != language { return language.rawValue }
        return voice
    }

    /// Whether speech can be made at all.
    public nonisolated var isAvailable: Bool { configuration.engine != .none && arbiter != nil }

    // MARK: What is asked

    /// `say`: queued (or refused: `conflict` when ten wait, `unavailable` without an engine).
    public func say(_ request: SayRequest) throws(CommandError) -> JSONValue {
        let language = request.language ?? time.settings.current.language
        let utterance = Utterance(
            id: nextID(), text: request.text, kind: .say, priority: request.priority, volume: request.volume ?? configuration.volume,
            chime: request.chime ?? configuration.chime, language: language)
        return try enqueue(utterance)
    }

    /// `say/time`, `say/next_alarm`, a briefing: a phrase of the clock's, spoken even in quiet hours, no chime.
    public func sayPhrase(_ phrase: Phrase, kind: Utterance.Kind) throws(CommandError) -> JSONValue {
        let utterance = Utterance(
            id: nextID(), text: phrase.text, spoken: phrase.spoken, kind: kind, priority: .urgent, volume: configuration.volume,
            chime: false, language: time.settings.current.language)
        var answer = try enqueue(utterance).objectValue ?? [:]
        answer["text"] = .string(phrase.text)
        return .object(answer)
    }

    /// `say/stop`: what is said and what waits are dropped.
    public func stop() -> JSONValue {
        let speaking = current, waiting = queue.removeAll()
        if let speaking { end(speaking, reason: "stopped") }
        for utterance in waiting { emitDropped(utterance, reason: "stopped") }
        publish()
        return ["stopped": .number(Double(waiting.count + (speaking == nil ? 0 : 1)))]
    }

    private func nextID() -> String {
        count += 1
        return "s\(count)"
    }

    private func enqueue(_ utterance: Utterance) throws(CommandError) -> JSONValue {
        guard isAvailable else {
            throw CommandError(.unavailable, configuration.engine == .none ? "speech.engine is none" : "the node has no audio output")
        }
        _ = try queue.add(utterance)
        let quiet = isQuiet(time.now())
        let held = quiet && !utterance.speaksInQuietHours
        advance()
        publish()
        // Its place now: 0 once it is being spoken.
        let waiting = queue.waiting.firstIndex { $0.id == utterance.id }.map { $0 + 1 } ?? 0
        return ["id": .string(utterance.id), "queued": .number(Double(waiting)), "held": .bool(held)]
    }

    /// The morning briefing after `alarmID`'s dismiss: the text in the `briefing` event, then spoken.
    func brief(alarmID: String, label: String, dismissedAt: Date) {
        // A signal from long ago (a subscriber's snapshot) is not a morning.
        guard abs(time.now().timeIntervalSince(dismissedAt)) < 300 else { return }
        let zone = time.zone(), local = LocalTime(time.now(), in: zone), language = time.settings.current.language
        let daysOff = time.settings.current.wake.daysOff(calendar: holidays, years: (local.date.year)...(local.date.year))
        let extras = [weather?.sentence(language, at: time.now()), agenda.briefing(on: local.date, zone: time.zone(), language)].compactMap { $0 }
        let phrase = TalkingClock.briefing(local, holiday: daysOff.holiday(on: local.date)?.name(language), extras: extras, language)
        hub.emit(time.event("briefing", ["alarm_id": .string(alarmID), "label": .string(label), "text": .string(phrase.text)]))
        do throws(CommandError) { _ = try sayPhrase(phrase, kind: .briefing) } catch {
            logger.warning("the briefing cannot be spoken", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Speaking

    func isQuiet(_ now: Date) -> Bool {
        guard let quiet = configuration.quietHours else { return false }
        let local = LocalTime(now, in: time.zone())
        return quiet.contains(minute: local.hour * 60 + local.minute)
    }

    /// Starts the next utterance that may be spoken now, if nothing is spoken and no ring covers speech.
    func advance() {
        guard current == nil, let arbiter, (arbiter.top.map { $0 <= .speech } ?? true) else { return }
        guard let utterance = queue.next(quiet: isQuiet(time.now())) else { return }
        let input = "speech:\(utterance.id)", id = utterance.id
        let buffer = StreamBuffer(seconds: 4, keepsNewest: false)
        let source = SpeechSource(buffer: buffer) { NodeActor.onLoop { [self] in played(id) } }
        let process = SpeechProcess(job(utterance, configuration), into: buffer) { event in
            NodeActor.onLoop { [self] in engine(id, event) }
        }
        arbiter.claim(.speech)
        arbiter.update(.speech) { $0.add(input, source: source, gain: Volume.gain(utterance.volume), fadeInFrames: 0) }
        current = Current(utterance: utterance, process: process, input: input, started: time.now())
        process.start()
        hub.emit(time.event("speech_started", ["id": .string(id), "text": .string(utterance.text), "kind": .string(utterance.kind.rawValue)]))
        logger.info("speaking", metadata: ["id": "\(id)", "kind": "\(utterance.kind.rawValue)"])
    }

    /// What the engine's process says of utterance `id`.
    private func engine(_ id: String, _ event: SpeechProcess.Event) {
        guard current?.utterance.id == id else { return }
        switch event {
        case .speaking:
            current?.spoke = true
            if lastError != nil {
                lastError = nil
                publish()
            }
        case .ended(let error):
            guard let error else { return }
            current?.error = error
            lastError = error.reason
            logger.error("speech failed", metadata: ["id": "\(id)", "error": "\(error)"])
            publish()
        }
    }

    /// Utterance `id` has been heard to its end (or its engine failed and the chime has played out).
    private func played(_ id: String) {
        guard let current, current.utterance.id == id else { return }
        if let error = current.error, !current.spoke {
            end(current, reason: "failed", error: error.reason)
        } else {
            let ms = Int(time.now().timeIntervalSince(current.started) * 1000)
            self.current = nil
            release(current.input)
            hub.emit(time.event("speech_finished", [
                "id": .string(id), "text": .string(current.utterance.text), "kind": .string(current.utterance.kind.rawValue),
                "ms": .number(Double(ms)),
            ]))
        }
        advance()
        publish()
    }

    /// An alarm or a ringing timer: what is said stops, the queue waits.
    private func interrupt() {
        guard let current else { return }
        end(current, reason: "interrupted")
        publish()
    }

    /// Stops `current` and drops it with `reason`.
    private func end(_ ended: Current, reason: String, error: String? = nil) {
        current = nil
        ended.process.stop()
        release(ended.input)
        emitDropped(ended.utterance, reason: reason, error: error)
    }

    private func release(_ input: String) {
        let fade = AudioFormat.frames(milliseconds: 150)
        arbiter?.update(.speech) { $0.fadeOut(input, overFrames: fade) }
        arbiter?.claim(.speech, false)
    }

    private func emitDropped(_ utterance: Utterance, reason: String, error: String? = nil) {
        var details: [String: JSONValue] = ["id": .string(utterance.id), "text": .string(utterance.text), "reason": .string(reason)]
        if let error { details["error"] = .string(error) }
        hub.emit(time.event("speech_dropped", details))
    }

    func publish() {
        let now = time.now(), quiet = isQuiet(now)
        let state = SpeechState(
            engine: configuration.engine.rawValue, speaking: current.map { ($0.utterance, time.iso($0.started)) }, queued: queue.count,
            held: queue.held(quiet: quiet), quiet: quiet, error: lastError)
        hub.publish(StateTopic.speech, state.json)
    }

    /// When held messages may go: the end of the quiet hours (nil: nothing is held).
    var nextLook: Date? {
        guard let quiet = configuration.quietHours, queue.held(quiet: isQuiet(time.now())) > 0 else { return nil }
        let now = time.now(), local = LocalTime(now, in: time.zone())
        let left = quiet.minutesLeft(at: local.hour * 60 + local.minute)
        return now.addingTimeInterval(Double(left * 60 - local.second))
    }
}

/// The quiet hours' end: held messages are spoken then.
extension Speaker: Clockwork {
    public func start() async { publish() }

    public func look() async -> Date? {
        advance()
        publish()
        return nextLook
    }

    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }
}

import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem

/// Bedtime (SPEC §13): the reminder before it, the wind-down (a sunset on the screen, the sleep
/// sounds with their sleep timer), `bedtime/start` and `bedtime/stop`, `B/bedtime`, and the
/// bedtime signal the screen follows. The clockwork is `BedtimeClockwork` in Core; this carries
/// out what it says.
///
/// What was handled is one document, `bedtime.json`: a restart resumes a wind-down at the level
/// of that instant and reminds nothing twice. The clock's changes are stored without waiting; a
/// verb's change is answered once it is durable, and when it cannot be stored it is answered
/// `unavailable` and changes nothing.
@NodeActor
public final class BedtimeScheduler {
    public nonisolated static let documentName = "bedtime.json"

    /// Loads `bedtime.json`; an unreadable file is moved aside and reported, and bedtime starts afresh.
    public nonisolated static func load(from store: any Store, logger: Logger) -> (state: BedtimeState, problem: String?) {
        let (state, problem) = store.load(documentName) { try BedtimeState(stored: $0) }
        if let problem { logger.error("the stored bedtime was unreadable; starting afresh", metadata: ["problem": "\(problem)"]) }
        return (state ?? BedtimeState(), problem)
    }

    let hub: StateHub
    let time: NodeTime
    let noise: NoisePlayer?
    let logger: Logger
    private var ledger: Ledger<BedtimeState, [BedtimeClockwork.Event]>
    var state: BedtimeState { ledger.current }
    private var looks = Looks()
    nonisolated let wakeUp = WakeUp()

    public nonisolated init(state: BedtimeState, writer: StoreWriter, hub: StateHub, time: NodeTime, noise: NoisePlayer?, logger: Logger) {
        ledger = Ledger(Self.documentName, state, writer: writer) { $0.stored }
        self.hub = hub
        self.time = time
        self.noise = noise
        self.logger = logger
    }

    /// A change of the settings (the bedtime, its reminder, the wind-down's length) is looked at
    /// at once.
    nonisolated func watchSignals() {
        hub.signals.subscribe { [wakeUp] signal in
            if case .settings = signal { wakeUp.wake() }
        }
    }

    // MARK: Verbs

    /// `bedtime/start`: a wind-down now, unless one runs already.
    public func windDown() async throws(CommandError) -> JSONValue {
        try await change { state, settings, now, zone in BedtimeClockwork.start(state, settings: settings, now: now, zone: zone) }
    }

    /// `bedtime/stop`: ends the wind-down under way (and its sounds); during a bedtime's reminder
    /// or wind-down window, keeps that bedtime quiet.
    public func stopWindDown() async throws(CommandError) -> JSONValue {
        try await change { state, settings, now, zone in BedtimeClockwork.stop(state, settings: settings, now: now, zone: zone) }
    }

    // MARK: Time

    /// Publishes `B/bedtime` and goes on with what was stored.
    public func begin() {
        guard looks.start() else { return }
        advance()
    }

    /// Does what has come due and returns the next instant to look.
    @discardableResult
    public func advance() -> Date? {
        let now = time.now()
        let step = BedtimeClockwork.step(state, settings: time.settings.current.bedtime, now: now, zone: time.zone())
        looks.record(now)
        // Stored without waiting: the reminder and the sunset are timed by the clock, and a
        // crash before the write only means the restart finds the same step due again.
        if step.state != state { ledger.adopt(step.state) }
        carryOut(step.events)
        publish(step.view)
        return step.nextLook
    }

    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }

    // MARK: Helpers

    private func change(
        _ body: @escaping @Sendable (BedtimeState, BedtimeSettings, Date, Zone) -> BedtimeClockwork.Step
    ) async throws(CommandError) -> JSONValue {
        advance()
        let now = time.now(), settings = time.settings.current.bedtime, zone = time.zone()
        let change: Ledger<BedtimeState, [BedtimeClockwork.Event]>.Change = { state in
            let step = body(state, settings, now, zone)
            state = step.state
            return step.events
        }
        // Every event is recorded in the state (what was reminded, wound down, ended), so a change
        // that changes nothing has none: the events are those of the changes made current.
        _ = try await Ledger.commit(change, what: "bedtime", in: { $0(&ledger) }) { made in
            carryOut(made.effects.flatMap { $0 })
        }
        let view = BedtimeClockwork.step(state, settings: settings, now: time.now(), zone: zone).view
        publish(view)
        wakeUp.wake()
        return json(view)
    }

    /// The events: each one out on `B/event`, the sounds started with a wind-down and stopped
    /// with `bedtime/stop`.
    private func carryOut(_ events: [BedtimeClockwork.Event]) {
        let zone = time.zone()
        for event in events {
            switch event {
            case .reminder(let bedtime):
                logger.info("bedtime reminder", metadata: ["bedtime": "\(ISOTime.string(bedtime, in: zone))"])
                hub.emit(time.event("bedtime_reminder", ["bedtime_at": .string(ISOTime.string(bedtime, in: zone))]))
            case .windDownBegan(let run):
                logger.info("wind-down began", metadata: ["ends": "\(ISOTime.string(run.endsAt, in: zone))", "by_hand": "\(run.byHand)"])
                hub.emit(
                    time.event(
                        "bedtime_started",
                        ["ends_at": .string(ISOTime.string(run.endsAt, in: zone)), "by_hand": .bool(run.byHand),
                         "bedtime_at": run.bedtimeAt.map { .string(ISOTime.string($0, in: zone)) } ?? .null]))
                startSounds()
            case .windDownEnded(let run, let stopped):
                hub.emit(
                    time.event(
                        "bedtime_ended", ["reason": .string(stopped ? "stopped" : (time.now() >= run.endsAt ? "end" : "clock_set_back"))]))
                if stopped { stopSounds() }
            }
        }
    }

    /// The wind-down's sounds with its volume and sleep timer (none: silence).
    private func startSounds() {
        let settings = time.settings.current.bedtime
        guard let noise, !settings.sounds.isEmpty else { return }
        let logger = logger
        NodeActor.task {
            do {
                _ = try await noise.play(
                    settings.sounds.map { (sound: $0, volume: nil) }, volume: settings.volume,
                    sleepMinutes: settings.sleepMinutes > 0 ? settings.sleepMinutes : nil)
            } catch {
                logger.warning("the wind-down's sounds did not start", metadata: ["error": "\(error)"])
            }
        }
    }

    private func stopSounds() {
        guard let noise else { return }
        NodeActor.task { _ = try? await noise.stop(reason: "bedtime") }
    }

    private func publish(_ view: BedtimeView) {
        hub.publish(StateTopic.bedtime, json(view))
        hub.signals.send(.bedtime(BedtimeLight(state)))
    }

    private func json(_ view: BedtimeView) -> JSONValue {
        let zone = time.zone()
        return view.json { ISOTime.string($0, in: zone) }
    }
}

/// Bedtime: the next reminder, the wind-down's start and end, or a bedtime; a change of the
/// settings or a verb wakes it.
extension BedtimeScheduler: Clockwork {
    public func start() async { begin() }
    public func look() async -> Date? { advance() }
}

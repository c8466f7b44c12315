import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem

/// The kids' OK-to-wake clock (SPEC §13): `B/kids`, `kids_ok` once per morning, and the kids
/// signal the screen follows (it stays at the night level while the clock shows). The clockwork is
/// `KidsClock` in Core; this looks at each instant it names.
///
/// The morning last announced is one document, `kids.json`, so a restart or a clock set back
/// announces no morning twice. It changes only with the clock, and is stored without waiting.
@NodeActor
public final class KidsClockScheduler {
    public nonisolated static let documentName = "kids.json"

    /// Loads `kids.json`; an unreadable file is moved aside and reported.
    public nonisolated static func load(from store: any Store, logger: Logger) -> (announced: Date?, problem: String?) {
        let (announced, problem) = store.load(documentName) { value throws(CommandError) -> Date? in
            guard case .number(let seconds)? = value.objectValue?["announced"] else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        if let problem { logger.error("the stored kids' clock was unreadable; starting afresh", metadata: ["problem": "\(problem)"]) }
        return (announced ?? nil, problem)
    }

    let hub: StateHub
    let time: NodeTime
    let logger: Logger
    private var ledger: Ledger<Announced, Void>
    private var looks = Looks()
    nonisolated let wakeUp = WakeUp()

    /// The wake time last announced with `kids_ok`.
    struct Announced: Equatable, Sendable {
        var wake: Date?
        var stored: JSONValue { ["version": 1, "announced": wake.map { .number($0.timeIntervalSince1970) } ?? .null] }
    }

    public nonisolated init(announced: Date?, writer: StoreWriter, hub: StateHub, time: NodeTime, logger: Logger) {
        ledger = Ledger(Self.documentName, Announced(wake: announced), writer: writer) { $0.stored }
        self.hub = hub
        self.time = time
        self.logger = logger
    }

    /// A change of `settings.kids` (or the zone) is looked at at once.
    nonisolated func watchSignals() {
        hub.signals.subscribe { [wakeUp] signal in
            if case .settings = signal { wakeUp.wake() }
        }
    }

    /// The state now and `kids_ok` when a morning's "you can get up" has begun; returns when the
    /// state changes next.
    @discardableResult
    public func advance() -> Date? {
        let now = time.now(), settings = time.settings.current.kids, zone = time.zone()
        looks.record(now)
        if let morning = KidsClock.okDue(at: now, settings: settings, zone: zone, announced: ledger.current.wake) {
            ledger.adopt(Announced(wake: morning.wake))
            logger.info("kids' clock: you can get up")
            hub.emit(time.event("kids_ok", ["wake_at": .string(ISOTime.string(morning.wake, in: zone))]))
        }
        let view = KidsClock.view(at: now, settings: settings, zone: zone)
        hub.publish(StateTopic.kids, view.json { ISOTime.string($0, in: zone) })
        hub.signals.send(.kids(view.state))
        return view.nextChangeAt
    }

    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }
}

/// The kids' clock: each change of its state; a change of the settings wakes it.
extension KidsClockScheduler: Clockwork {
    public func start() async {
        guard looks.start() else { return }
        advance()
    }

    public func look() async -> Date? { advance() }
}

import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem

/// The night light (SPEC §13): the `nightlight` verb (the face's long press, Home Assistant's
/// "Night light", a smart button), `B/nightlight`, its end after its minutes, and the signal the
/// screen follows. The rules are `NightLight` in Core.
///
/// The light is one document, `nightlight.json`: its colour, brightness and minutes are kept for
/// the next time, and a restart goes on with a light that was on until its end. A verb's change is
/// answered once it is durable (`unavailable`, changing nothing, when it cannot be stored); its
/// end by the clock is stored without waiting.
@NodeActor
public final class NightLightController {
    public nonisolated static let documentName = "nightlight.json"

    /// Loads `nightlight.json`; an unreadable file is moved aside and reported, and the light starts off.
    public nonisolated static func load(from store: any Store, logger: Logger) -> (light: NightLight, problem: String?) {
        let (light, problem) = store.load(documentName) { try NightLight(stored: $0) }
        if let problem { logger.error("the stored night light was unreadable; starting afresh", metadata: ["problem": "\(problem)"]) }
        return (light ?? NightLight(), problem)
    }

    let hub: StateHub
    let time: NodeTime
    let logger: Logger
    private var ledger: Ledger<NightLight, Void>
    var light: NightLight { ledger.current }
    private var looks = Looks()
    nonisolated let wakeUp = WakeUp()

    public nonisolated init(light: NightLight, writer: StoreWriter, hub: StateHub, time: NodeTime, logger: Logger) {
        ledger = Ledger(Self.documentName, light, writer: writer) { $0.stored }
        self.hub = hub
        self.time = time
        self.logger = logger
    }

    /// `nightlight`: on or off, a colour, a brightness, minutes; answered with `B/nightlight` as it
    /// is once the change is stored.
    public func set(_ arguments: CommandArguments) async throws(CommandError) -> JSONValue {
        // Checked first: a bad field is answered without publishing, queueing or storing anything.
        _ = try light.applying(arguments, now: time.now())
        advance()
        let now = time.now()
        let change: Ledger<NightLight, Void>.Change = { light throws(CommandError) in light = try light.applying(arguments, now: now) }
        try await Ledger.commit(change, what: "the night light", in: { $0(&ledger) }) { _ in
            logger.info("night light", metadata: ["on": "\(light.on)", "color": "\(light.color.hex)", "brightness": "\(light.brightness)"])
        }
        publish()
        wakeUp.wake()
        return json
    }

    /// Ends the light when its minutes are over; returns its end.
    @discardableResult
    public func advance() -> Date? {
        let now = time.now()
        let next = light.expired(at: now, lastLook: looks.last)
        looks.record(now)
        if next != light {
            if light.on, !next.on { logger.info("night light off after its minutes") }
            ledger.adopt(next)
        }
        publish()
        return light.offAt
    }

    public nonisolated func sleep(until deadline: Date?) async {
        await wakeUp.sleep(until: deadline, on: time.clock)
    }

    private var json: JSONValue {
        let zone = time.zone()
        return light.json { ISOTime.string($0, in: zone) }
    }

    private func publish() {
        hub.publish(StateTopic.nightLight, json)
        hub.signals.send(.nightLight(light.shining))
    }
}

/// The night light: its end after its minutes; a verb wakes it.
extension NightLightController: Clockwork {
    public func start() async {
        guard looks.start() else { return }
        advance()
    }

    public func look() async -> Date? { advance() }
}

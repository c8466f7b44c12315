import FoundationEssentials
import Synchronization
import NoiseClockCore
import NoiseClockSystem

/// What one feature tells the others, typed: the screen lights for a ringing alarm or timer, the
/// clock, the screen and the sessions follow the settings, Home Assistant's discovery follows the
/// language, the alarms and the radio's stations. Nothing reads another feature's JSON to learn it.
public enum NodeSignal: Sendable, Hashable {
    /// Whether an alarm rings now (sent as the alarm's state changes).
    case alarmRinging(Bool)
    /// Whether any timer rings now (sent as the timers change).
    case timerRinging(Bool)
    /// The settings in force, after a change and at the start.
    case settings(ClockSettings)
    /// The alarms, as `B/alarms` lists them (Home Assistant's entity per alarm follows them).
    case alarms([Alarm])
    /// The light of a waking up, for the screen: sent as the wake phase changes (SPEC §12).
    case wake(WakeLight)
    /// The light of bedtime, for the screen: a wind-down's sunset, the night after it (SPEC §13).
    case bedtime(BedtimeLight)
    /// What the kids' clock shows: the screen stays at the night level while it shows (SPEC §13).
    case kids(KidsState)
    /// The night light's brightness while it shines, nil while off (SPEC §13).
    case nightLight(Int?)
    /// Why the audio output fails, nil while it works or has not been tried (an alarm that rings
    /// then cannot sound: `alarm_failed`, SPEC §15).
    case audioFailed(String?)
    /// The radio's stations, as `B/radio` lists them (Home Assistant's Radio select offers them).
    case radioStations([RadioStation])
    /// An alarm with `briefing: true` was dismissed at `at`: the briefing is due (SPEC §16).
    case briefing(alarmID: String, label: String, at: Date)
    /// The weather's latest report (SPEC §17), for the briefing.
    case weather(WeatherReport)
    /// The calendars' coming days (SPEC §17), for calendar alarms.
    case agenda(Agenda)

    /// Signals of one kind replace each other: a new subscriber gets the latest of each kind.
    var kind: Int {
        switch self {
        case .alarmRinging: 0
        case .timerRinging: 1
        case .settings: 2
        case .alarms: 3
        case .wake: 4
        case .bedtime: 5
        case .kids: 6
        case .nightLight: 7
        case .audioFailed: 8
        case .radioStations: 9
        case .briefing: 10
        case .weather: 11
        case .agenda: 12
        }
    }
}

/// The node's signals (`StateHub.signals`): sent by the feature that owns the fact, delivered to
/// every subscriber in the order sent, and only when it changed. A new subscriber first gets the
/// latest signal of each kind. Handlers are isolated to `NodeActor`, as the features are: a handler
/// changes its feature's state directly (no lock) and is called on the loop, never under a lock
/// (`InOrder`), so it may send a signal itself (delivered after the one being delivered). A handler
/// should be quick: note the fact, wake a `WakeUp`.
public final class Signals: Sendable {
    public typealias Handler = @NodeActor @Sendable (NodeSignal) -> Void

    private enum Delivery {
        case signal(NodeSignal, to: [Handler])
        case snapshot([NodeSignal], to: Handler)
    }

    private struct State {
        var latest: [Int: NodeSignal] = [:]
        var handlers: [Handler] = []
        var deliveries = InOrder<Delivery>()
    }

    /// Held only to note a signal or a subscriber (which a feature's nonisolated initializer may
    /// add before the loop runs), never while a handler runs.
    private let state = Mutex(State())

    public init() {}

    /// Tells every subscriber `signal`, unless it is the latest of its kind already.
    @NodeActor
    public func send(_ signal: NodeSignal) {
        let deliver = state.withLock { state -> Bool in
            guard state.latest.updateValue(signal, forKey: signal.kind) != signal else { return false }
            return state.deliveries.add(.signal(signal, to: state.handlers))
        }
        if deliver { drain() }
    }

    /// Adds a subscriber for the life of the node: the latest signal of each kind, then each new
    /// one, all on the loop. From any thread: on the loop the latest are delivered at once, from
    /// elsewhere on the loop soon (before any signal sent after).
    public func subscribe(_ handler: @escaping Handler) {
        let deliver = state.withLock { state -> Bool in
            state.handlers.append(handler)
            return state.deliveries.add(.snapshot(state.latest.sorted { $0.key < $1.key }.map(\.value), to: handler))
        }
        if deliver { NodeActor.onLoop { self.drain() } }
    }

    /// The latest signal of each kind, in kind order.
    public var latest: [NodeSignal] { state.withLock { $0.latest.sorted { $0.key < $1.key }.map(\.value) } }

    @NodeActor
    private func drain() {
        InOrder.drain(take: { batch in state.withLock { $0.deliveries.take(into: &batch) } }) { delivery in
            switch delivery {
            case .signal(let signal, let handlers):
                for handler in handlers { handler(signal) }
            case .snapshot(let signals, let handler):
                for signal in signals { handler(signal) }
            }
        }
    }
}

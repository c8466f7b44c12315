import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem
import Synchronization

/// The clock settings in force: the configuration file's `clock.*`, with the changes made over MQTT
/// laid over them. Those changes are stored (`settings.json`) and win over the file until changed
/// again. It emits `B/settings` into the hub on every change.
public final class SettingsModel: Sendable {
    public static let documentName = "settings.json"

    /// What any thread may read, under `state`'s lock (the face's and the MQTT client's threads
    /// stamp times with the zone): nothing else is done under it.
    private struct State {
        /// `configured` with the overrides in force laid over it, kept as they change: read far more
        /// often (every ping, every state with a time) than changed.
        var effective: ClockSettings {
            didSet { zone = Self.zone(of: effective) }
        }
        /// `effective`'s zone, nil for the system's (as `ClockSettings.zone(system:)` decides):
        /// every ping and every stamped event reads it.
        private(set) var zone: Zone?

        init(effective: ClockSettings) {
            self.effective = effective
            zone = Self.zone(of: effective)
        }

        private static func zone(of settings: ClockSettings) -> Zone? {
            settings.timezone.isEmpty ? nil : Zone(identifier: settings.timezone)
        }
    }

    /// The overrides' ledger, changed on the loop only: staging a change queues its write on the
    /// store's writer, which must not happen under `state`'s lock (no lock is held across a call
    /// into another component).
    @NodeActor private final class Overrides {
        var ledger: Ledger<SettingsPatch, ClockSettings?>
        nonisolated init(_ ledger: Ledger<SettingsPatch, ClockSettings?>) { self.ledger = ledger }
    }

    /// The configuration file's `clock.*`, under the overrides.
    private let configured: ClockSettings
    private let overrides: Overrides
    private let state: Mutex<State>
    private let hub: StateHub
    /// What went wrong reading the stored settings, for `B/status`.
    public let loadProblem: String?

    public convenience init(configured: ClockSettings, store: any Store, hub: StateHub = StateHub(), logger: Logger) {
        self.init(configured: configured, writer: StoreWriter(store: store), hub: hub, logger: logger)
    }

    public init(configured: ClockSettings, writer: StoreWriter, hub: StateHub = StateHub(), logger: Logger) {
        self.hub = hub
        let (stored, problem) = writer.store.load(Self.documentName) { value in
            guard let members = value.objectValue else { throw CommandError(.invalidJSON, "settings must be a JSON object") }
            return try SettingsPatch(CommandArguments(members))
        }
        let overrides = stored ?? SettingsPatch()
        if let problem {
            logger.error("stored settings were unreadable; using the configuration", metadata: ["problem": "\(problem)"])
        }
        loadProblem = problem
        self.configured = configured
        self.overrides = Overrides(Ledger(Self.documentName, overrides, writer: writer) { $0.json })
        state = Mutex(State(effective: configured.applying(overrides)))
    }

    public var current: ClockSettings {
        state.withLock { $0.effective }
    }

    /// The zone in force, as `current.zone(system:)` gives it, without copying the settings.
    public func zone(system: @autoclosure () -> Zone) -> Zone {
        state.withLock { $0.zone } ?? system()
    }

    /// Emits `B/settings` and the settings signal as they are now (at start).
    @NodeActor
    public func publish() {
        let settings = current
        hub.publish(StateTopic.settings, settings.json)
        hub.signals.send(.settings(settings))
    }

    /// Stores `patch` and then applies it (SPEC §8): the settings change only once they are
    /// durable, and emit `B/settings` when they changed. When they cannot be stored, nothing
    /// changes and the error says why. The write runs on the store's writer thread: this waits
    /// for it without holding the node's thread, and changes that wait together share one write.
    @NodeActor
    public func change(_ patch: SettingsPatch) async throws(CommandError) -> ClockSettings {
        try await change { _ in patch }
    }

    /// Like `change(_:)`, with the patch made from the settings as they will be once the changes
    /// staged before it are stored (`wake/days_off` adds to the days off of a change still on its
    /// way to the disk, so two quick adds both count). When `make` throws, nothing changes.
    @NodeActor
    public func change(
        _ make: @escaping @Sendable (ClockSettings) throws(CommandError) -> SettingsPatch
    ) async throws(CommandError) -> ClockSettings {
        let configured = configured
        // Its effect: the settings it brings about (with the changes staged before it), which it
        // answers once it is stored; nil when it changes nothing (answered with those in force).
        let change: Ledger<SettingsPatch, ClockSettings?>.Change = { overrides throws(CommandError) in
            let before = overrides
            overrides = overrides.merging(try make(configured.applying(overrides)))
            return overrides == before ? nil : configured.applying(overrides)
        }
        let onLedger = { (use: (inout Ledger<SettingsPatch, ClockSettings?>) -> Void) in
            use(&self.overrides.ledger)
            // In the same step on the loop, so no other change comes between the overrides in
            // force and the settings everyone reads.
            let effective = configured.applying(self.overrides.ledger.current)
            self.state.withLock { if effective != $0.effective { $0.effective = effective } }
        }
        let answer = try await Ledger.commit(change, what: "settings", in: onLedger) { made in
            // Changes settle on the node's thread, one after the other, so they reach the hub in
            // the order they became current.
            let before = configured.applying(made.before), after = current
            if after != before {
                hub.publish(StateTopic.settings, after.json)
                hub.signals.send(.settings(after))
            }
        }
        return answer ?? current
    }
}

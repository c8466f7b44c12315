import Logging
import NoiseClockCore
import Synchronization

/// The clock settings in force: the configuration file's `clock.*`, with the changes made over MQTT
/// laid over them. Those changes are stored (`settings.json`) and win over the file until changed
/// again. It emits `B/settings` into the hub on every change.
public final class SettingsModel: Sendable {
    public static let documentName = "settings.json"

    private struct State {
        var configured: ClockSettings
        var overrides: SettingsPatch
    }

    private let state: Mutex<State>
    private let store: any Store
    private let hub: StateHub
    /// What went wrong reading the stored settings, for `B/status`.
    public let loadProblem: String?

    public init(configured: ClockSettings, store: any Store, hub: StateHub = StateHub(), logger: Logger) {
        self.store = store
        self.hub = hub
        let (stored, problem) = store.load(Self.documentName) { value in
            guard let members = value.objectValue else { throw CommandError(.invalidJSON, "settings must be a JSON object") }
            return try SettingsPatch(CommandArguments(members))
        }
        let overrides = stored ?? SettingsPatch()
        if let problem {
            logger.error("stored settings were unreadable; using the configuration", metadata: ["problem": "\(problem)"])
        }
        loadProblem = problem
        state = Mutex(State(configured: configured, overrides: overrides))
    }

    public var current: ClockSettings {
        state.withLock { $0.configured.applying($0.overrides) }
    }

    /// Emits `B/settings` as they are now (at start).
    public func publish() {
        hub.publish(StateTopic.settings, current.json)
    }

    /// Stores and applies `patch`, then emits the settings when they changed. When they cannot be
    /// stored, nothing changes and the error says why.
    public func change(_ patch: SettingsPatch) throws(CommandError) -> ClockSettings {
        // Under the lock, so that two changes reach the hub in the order they were stored.
        try state.withLock { state throws(CommandError) in
            let before = state.configured.applying(state.overrides)
            let overrides = state.overrides.merging(patch)
            if overrides != state.overrides {
                do {
                    try store.save(Self.documentName, overrides.json)
                } catch {
                    throw CommandError(.unavailable, "settings could not be stored: \(error)")
                }
                state.overrides = overrides
            }
            let after = state.configured.applying(state.overrides)
            if after != before { hub.publish(StateTopic.settings, after.json) }
            return after
        }
    }
}

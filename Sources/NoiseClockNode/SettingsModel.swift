import Logging
import NoiseClockCore
import Synchronization

/// The clock settings in force: the configuration file's `clock.*`, with the changes made over MQTT
/// laid over them. Those changes are stored (`settings.json`) and win over the file until changed again.
public final class SettingsModel: Sendable {
    public static let documentName = "settings.json"

    private struct State {
        var configured: ClockSettings
        var overrides: SettingsPatch
    }

    private let state: Mutex<State>
    private let store: any Store
    /// What went wrong reading the stored settings, for `B/status`.
    public let loadProblem: String?

    public init(configured: ClockSettings, store: any Store, logger: Logger) {
        self.store = store
        var overrides = SettingsPatch()
        var problem: String?
        switch store.load(Self.documentName) {
        case .missing:
            break
        case .value(let value):
            do {
                guard let members = value.objectValue else {
                    throw CommandError(.invalidJSON, "settings must be a JSON object")
                }
                overrides = try SettingsPatch(CommandArguments(members))
            } catch {
                if case .movedAside(let target, let reason) = store.moveAside(Self.documentName, reason: "\(error)") {
                    problem = "\(Self.documentName) moved to \(target): \(reason)"
                }
            }
        case .movedAside(let target, let reason):
            problem = "\(Self.documentName) moved to \(target): \(reason)"
        }
        if let problem {
            logger.error("stored settings were unreadable; using the configuration", metadata: ["problem": "\(problem)"])
        }
        loadProblem = problem
        state = Mutex(State(configured: configured, overrides: overrides))
    }

    public var current: ClockSettings {
        state.withLock { $0.configured.applying($0.overrides) }
    }

    /// Stores and applies `patch`. When it cannot be stored, nothing changes and the error says why.
    public func change(_ patch: SettingsPatch) throws(CommandError) -> ClockSettings {
        try state.withLock { state throws(CommandError) in
            let overrides = state.overrides.merging(patch)
            if overrides != state.overrides {
                do {
                    try store.save(Self.documentName, overrides.json)
                } catch {
                    throw CommandError(.unavailable, "settings could not be stored: \(error)")
                }
                state.overrides = overrides
            }
            return state.configured.applying(state.overrides)
        }
    }
}

import NoiseClockCore
import Synchronization

/// A screen without a backlight device (HDMI, most kiosk setups) turned on and off by the user's
/// commands, e.g. `wlr-randr --output HDMI-A-1 --on` and `... --off`, or `vcgencmd display_power 1`.
///
/// It is only on or off: any brightness above 0 runs `display.on_command`, 0 runs
/// `display.off_command`. A command is not run again for the state it already brought about, so
/// a node that sets the night's brightness each minute does not start a shell each minute; after
/// a failure the state is unknown and the next change runs its command.
public final class CommandScreen: ScreenControl {
    public let onCommand: String
    public let offCommand: String
    /// How long a command may run before it (and what it started) is killed.
    public let timeout: Duration
    public let name = "commands"
    public let canDim = false
    /// On or off as the last command that succeeded left it, nil before any; held while a
    /// command runs, so changes run their commands one at a time and in order.
    private let state = Mutex<Bool?>(nil)

    public init(onCommand: String, offCommand: String, timeout: Duration = .seconds(5)) {
        self.onCommand = onCommand
        self.offCommand = offCommand
        self.timeout = timeout
    }

    /// 100 while on, 0 while off, nil before the first change (the screen's state is not known).
    public var brightness: Int? {
        state.withLock { on in on.map { $0 ? 100 : 0 } }
    }

    /// Runs the command for `percent` (on above 0, off at 0), blocking for up to `timeout`.
    public func set(brightness percent: Int) throws(ScreenError) {
        let on = percent > 0
        try state.withLock { (current: inout Bool?) throws(ScreenError) in
            guard current != on else { return }
            current = nil
            let key = on ? "display.on_command" : "display.off_command"
            let result = ShellCommand.run(on ? onCommand : offCommand, timeout: timeout)
            switch result {
            case .exited(0, _):
                current = on
            case .exited(let status, let errorOutput):
                throw ScreenError(key: key, reason: "exited with status \(status)\(Self.tail(errorOutput))")
            case .killed(let signal, let errorOutput):
                throw ScreenError(key: key, reason: "was killed by signal \(signal)\(Self.tail(errorOutput))")
            case .timedOut(let errorOutput):
                throw ScreenError(key: key, reason: "did not finish within \(timeout) and was killed\(Self.tail(errorOutput))")
            case .notStarted(let reason):
                throw ScreenError(key: key, reason: "could not be started: \(reason)")
            }
        }
    }

    /// The end of a command's error output as it reads in a log line: ": <last lines>".
    private static func tail(_ output: String) -> String {
        let lines = output.split(whereSeparator: \.isNewline).map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { return "" }
        return ": " + lines.suffix(3).joined(separator: " / ")
    }
}

import FoundationEssentials
import NoiseClockCore

/// The node's own screen, as far as brightness goes: the night's dimming, off at brightness 0,
/// full brightness for a ringing alarm (SPEC §9).
///
/// `set` blocks its caller: a backlight write takes microseconds, but a command screen waits for
/// its command (up to a timeout of seconds). The node calls it from a thread of its own, never
/// from its executor, as it does with every other blocking C call.
public protocol ScreenControl: Sendable {
    /// What drives the screen, for logs and `B/status`: `backlight intel_backlight`, `commands`.
    var name: String { get }
    /// Sets the brightness, 0-100 % (clamped); 0 turns the screen off, anything above turns it on.
    func set(brightness percent: Int) throws(ScreenError)
    /// The brightness in percent as the screen reports it (0 when off), or nil when it cannot say.
    var brightness: Int? { get }
    /// False for a screen that is only on or off: every brightness above 0 is full brightness.
    var canDim: Bool { get }
}

/// A screen that cannot be set, named by the configuration key that chose it, so the user reads
/// which line of the configuration (or which permission) to fix.
public struct ScreenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `display.backlight`, `display.on_command` or `display.off_command`.
    public var key: String
    public var reason: String

    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    public var description: String { "\(key): \(reason)" }
}

/// The screen the `display.*` keys choose.
public enum ScreenControls {
    /// The screen for `display.backlight` (`auto`, `none`, or a folder: a path, or a name under
    /// `root`), `display.on_command` and `display.off_command`; nil when there is none to drive.
    ///
    /// - `auto`: the commands when they are set (someone wrote them on purpose, and a board may
    ///   have a backlight device that does not light the screen in use), else the first backlight
    ///   under `root` by name with a readable `max_brightness` above 0, else nothing.
    /// - `none`: the commands when they are set, else nothing.
    /// - a folder: that backlight, which must exist and have a readable `max_brightness`; the
    ///   commands are not used.
    ///
    /// The two commands go together: an off command alone could leave the screen dark for good.
    public static func make(
        backlight: String, onCommand: String, offCommand: String, root: String = "/sys/class/backlight",
        commandTimeout: Duration = .seconds(5)
    ) throws(ScreenError) -> (any ScreenControl)? {
        let choice = backlight.trimmingWhitespace()
        switch choice {
        case "auto", "none":
            if let commands = try commandScreen(onCommand: onCommand, offCommand: offCommand, timeout: commandTimeout) {
                return commands
            }
            guard choice == "auto", let found = SysfsBacklight.find(in: root) else { return nil }
            return try SysfsBacklight(directory: found)
        case "":
            throw ScreenError(key: "display.backlight", reason: "must be auto, none or a backlight folder, not empty")
        default:
            let directory = choice.contains("/") ? choice : "\(root)/\(choice)"
            return try SysfsBacklight(directory: directory)
        }
    }

    private static func commandScreen(onCommand: String, offCommand: String, timeout: Duration) throws(ScreenError)
        -> CommandScreen?
    {
        let on = onCommand.trimmingWhitespace()
        let off = offCommand.trimmingWhitespace()
        switch (on.isEmpty, off.isEmpty) {
        case (true, true):
            return nil
        case (false, false):
            return CommandScreen(onCommand: on, offCommand: off, timeout: timeout)
        case (true, false):
            throw ScreenError(key: "display.on_command", reason: "must be set too when display.off_command is (else the screen could not be turned back on)")
        case (false, true):
            throw ScreenError(key: "display.off_command", reason: "must be set too when display.on_command is")
        }
    }
}

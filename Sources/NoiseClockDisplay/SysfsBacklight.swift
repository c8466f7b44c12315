import FoundationEssentials
import NoiseClockCore
import NoiseClockSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A backlight device of the kernel: a folder under `/sys/class/backlight` with `max_brightness`,
/// `brightness` (0…max) and, on most drivers, `bl_power` (0 on, 4 off: FB_BLANK_POWERDOWN).
///
/// Off is `bl_power` = 4 rather than `brightness` = 0: some panels still glow at 0, and the
/// brightness stays as it was, so the screen comes back at its level when a touch wakes it. A
/// driver without `bl_power` is turned off with `brightness` = 0 instead.
public final class SysfsBacklight: ScreenControl {
    public let directory: String
    public let maxBrightness: Int
    public let name: String
    /// Held while a change writes its files, so two changes never interleave their writes.
    private let writing = Mutex(())

    /// The backlight in `directory`, which must have a readable `max_brightness` above 0.
    public init(directory: String) throws(ScreenError) {
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw ScreenError(key: "display.backlight", reason: "\(directory) does not exist (the folders there are the screens: ls /sys/class/backlight)")
        }
        guard let max = Self.number(directory, "max_brightness"), max > 0 else {
            throw ScreenError(key: "display.backlight", reason: "\(directory) has no readable max_brightness above 0: not a backlight folder")
        }
        self.directory = directory
        maxBrightness = max
        name = "backlight \(directory.split(separator: "/").last.map(String.init) ?? directory)"
    }

    /// The first folder under `root`, by name, with a readable `max_brightness` above 0.
    public static func find(in root: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root))?.sorted() ?? []
        return names.map { "\(root)/\($0)" }.first { (number($0, "max_brightness") ?? 0) > 0 }
    }

    public var canDim: Bool { maxBrightness > 1 }

    public var brightness: Int? {
        if Self.number(directory, "bl_power").map({ $0 != 0 }) == true { return 0 }
        return Self.number(directory, "brightness").map { Self.percent(raw: $0, max: maxBrightness) }
    }

    public func set(brightness percent: Int) throws(ScreenError) {
        let percent = min(max(percent, 0), 100)
        let hasPower = FileManager.default.fileExists(atPath: "\(directory)/bl_power")
        try writing.withLock { _ throws(ScreenError) in
            guard percent > 0 else {
                // Off by bl_power leaves `brightness` as it is, so the screen comes back at its level.
                try write(hasPower ? "bl_power" : "brightness", hasPower ? 4 : 0)
                return
            }
            // The level first, then power: the panel lights up at the new level, not the old one.
            try write("brightness", Self.raw(percent: percent, max: maxBrightness))
            if hasPower { try write("bl_power", 0) }
        }
    }

    /// Percent to the driver's steps, rounding up so that 1 % is never 0 (off, on some panels).
    static func raw(percent: Int, max: Int) -> Int {
        Swift.max(1, (percent * max + 99) / 100)
    }

    /// The driver's steps as percent, rounding down so that `raw(percent:)` reads back as the
    /// same percent when there are 100 steps or more; never 0 for a lit screen.
    static func percent(raw: Int, max: Int) -> Int {
        guard raw > 0 else { return 0 }
        return Swift.min(100, Swift.max(1, raw * 100 / max))
    }

    private func write(_ file: String, _ value: Int) throws(ScreenError) {
        let path = "\(directory)/\(file)"
        // O_TRUNC as a shell's `>` does: sysfs ignores it, a plain file (tests) needs it.
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw Self.writeError(path, errno) }
        defer { close(fd) }
        let bytes = Array("\(value)\n".utf8)
        var written = -1
        repeat {
            written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        } while written < 0 && errno == EINTR
        guard written == bytes.count else { throw Self.writeError(path, written < 0 ? errno : EIO) }
    }

    static func writeError(_ path: String, _ code: Int32) -> ScreenError {
        let text = String(cString: strerror(code))
        let reason: String
        switch code {
        case EACCES, EPERM:
            reason = "cannot write \(path): \(text); install deploy/99-noiseclock-backlight.rules in /etc/udev/rules.d (it makes brightness and bl_power writable by group video) and run the node as a member of video"
        case EROFS:
            reason = "cannot write \(path): \(text); /sys is read-only to the node (a systemd unit with ProtectKernelTunables=yes mounts it so)"
        default:
            reason = "cannot write \(path): \(text)"
        }
        return ScreenError(key: "display.backlight", reason: reason)
    }

    static func number(_ directory: String, _ file: String) -> Int? {
        FileBytes.read("\(directory)/\(file)", limit: 64).flatMap { Int(String(decoding: $0, as: UTF8.self).trimmingWhitespace()) }
    }
}

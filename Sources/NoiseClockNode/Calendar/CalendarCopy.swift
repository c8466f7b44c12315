import FoundationEssentials
import NoiseClockCore
import NoiseClockSystem

#if canImport(Glibc)
import Glibc
#endif

/// A feed's stored copy and its expansion (SPEC §17), on a worker thread (files and the
/// `noiseclock-calendar` helper never run on the node's loop): a new body is checked by the helper
/// before it replaces the copy (written beside it, synced, renamed), so a feed that turns into an
/// error page or garbage keeps its last good copy and the alarms ring by it.
struct CalendarCopy: Sendable {
    /// A feed is at most 20 MB (SPEC §17).
    static let maximumBytes = 20 << 20
    /// The helper's output for the days looked at (yesterday to a week ahead) stays far below this.
    static let maximumOutput = 8 << 20
    static let helperTimeout: Duration = .seconds(60)

    var folder: String
    var feedID: String
    var helper: String

    var path: String { "\(folder)/\(feedID).ics" }

    /// The helper: beside the node's executable (a build), else where the package installs it.
    static var defaultHelper: String {
        let executable = Executable.path
        let folder = executable.lastIndex(of: "/").map { String(executable[...$0]) } ?? "./"
        let beside = folder + "noiseclock-calendar"
        return access(beside, X_OK) == 0 ? beside : "/usr/libexec/noiseclock/noiseclock-calendar"
    }

    struct Outcome: Sendable {
        /// The events of the window, from the new body or the stored copy; nil: no copy at all.
        var events: [CalendarEvent]?
        /// When the copy the events come from was written.
        var fetchedAt: Date?
        /// Why the new body (or the stored copy) could not be used.
        var error: String?
    }

    /// Takes `body` (nil: none new) or the file at `source` as the new copy when the helper reads
    /// it, then expands the copy for `days` days from `from`, in `zone`.
    func update(body: [UInt8]?, source: String?, from: CivilDate, days: Int, zone: String) -> Outcome {
        var error: String?
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            return Outcome(events: nil, error: "cannot make \(folder): \(String(cString: strerror(errno)))")
        }
        var candidate = body
        if candidate == nil, let source {
            switch Self.read(source) {
            case .success(let bytes): candidate = bytes
            case .failure(let failure): error = failure.reason
            }
        }
        if let candidate {
            let fresh = path + ".new"
            if let failure = Self.write(candidate, to: fresh) {
                error = failure.reason
            } else {
                switch expand(fresh, from: from, days: days, zone: zone) {
                case .success(let events):
                    if rename(fresh, path) == 0 {
                        Self.syncFolder(folder)
                        return Outcome(events: events, fetchedAt: Self.modified(path), error: nil)
                    }
                    error = "cannot keep the feed's copy: \(String(cString: strerror(errno)))"
                case .failure(let failure):
                    error = failure.reason
                }
                unlink(fresh)
            }
        }
        guard access(path, R_OK) == 0 else { return Outcome(events: nil, error: error) }
        switch expand(path, from: from, days: days, zone: zone) {
        case .success(let events): return Outcome(events: events, fetchedAt: Self.modified(path), error: error)
        case .failure(let failure): return Outcome(events: nil, error: error ?? failure.reason)
        }
    }

    struct Failure: Error {
        var reason: String
    }

    /// The helper's occurrences in the window, or why it refused the file.
    func expand(_ file: String, from: CivilDate, days: Int, zone: String) -> Result<[CalendarEvent], Failure> {
        let arguments = [helper, "--from", from.iso, "--days", "\(days)", "--zone", zone, file]
        switch Spawning.run(arguments, maxOutput: Self.maximumOutput, timeout: Self.helperTimeout) {
        case .failure(let failure):
            return .failure(Failure(reason: "cannot run \(helper): \(failure)"))
        case .success(let output):
            if output.timedOut { return .failure(Failure(reason: "the calendar helper ran past \(Self.helperTimeout)")) }
            if output.truncated { return .failure(Failure(reason: "the feed has too many events in the coming days")) }
            guard output.status == 0 else {
                let said = String(decoding: output.stderr, as: UTF8.self).split(separator: "\n").first.map(String.init)
                return .failure(Failure(reason: said?.replacingPrefix("noiseclock-calendar: ") ?? "the calendar helper failed (status \(output.status))"))
            }
            return .success(CalendarEvent.lines(output.stdout))
        }
    }

    static func read(_ path: String) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Failure(reason: "cannot open \(path): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(reason: "cannot read \(path): \(String(cString: strerror(errno)))"))
            }
            if count == 0 { return .success(bytes) }
            bytes += buffer[..<count]
            if bytes.count > maximumBytes { return .failure(Failure(reason: "\(path) is larger than 20 MB")) }
        }
    }

    static func write(_ bytes: [UInt8], to path: String) -> Failure? {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return Failure(reason: "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return Failure(reason: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += count
        }
        guard fsync(fd) == 0 else { return Failure(reason: "cannot sync \(path): \(String(cString: strerror(errno)))") }
        return nil
    }

    static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    static func modified(_ path: String) -> Date? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec))
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}

import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An IANA time zone, read from the system's TZif files (`/usr/share/zoneinfo`, or `$TZDIR`).
///
/// The node needs one thing of a zone: its UTC offset at an instant. Reading the files the C
/// library reads keeps the node free of ICU (which, with Foundation, made up a third of an
/// idle node's memory) and always agrees with `date` on the same machine. A time after the
/// file's last transition follows the file's POSIX `TZ` footer (RFC 8536 §3.3), so rules reach
/// past 2037 whether the files are built "fat" or "slim".
public struct Zone: Sendable, Hashable, CustomStringConvertible {
    public let identifier: String
    private let rules: ZoneRules

    public var description: String { identifier }

    public static func == (a: Zone, b: Zone) -> Bool { a.identifier == b.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    /// Coordinated Universal Time.
    public static let utc = Zone(identifier: "UTC", rules: ZoneRules(fixed: 0))

    /// The seconds east of Greenwich at `instant` (+3600 for CET, +7200 for CEST).
    public func secondsFromGMT(for instant: Date) -> Int {
        rules.offset(at: Int64(instant.timeIntervalSince1970.rounded(.down)))
    }

    /// A zone by its IANA name (`Europe/Berlin`); nil when the system has no such zone. `UTC`,
    /// `GMT` and `Etc/UTC` always exist. Zones are read once and kept.
    public init?(identifier: String) {
        if let cached = Self.cache.withLock({ $0[identifier] }) {
            self = cached
            return
        }
        guard let loaded = Self.load(identifier) else { return nil }
        Self.cache.withLock { $0[identifier] = loaded }
        self = loaded
    }

    /// A zone from the bytes of a TZif file; nil when they are not one.
    public init?(identifier: String, tzif bytes: [UInt8]) {
        guard let rules = ZoneRules(tzif: bytes) else { return nil }
        self.init(identifier: identifier, rules: rules)
    }

    private init(identifier: String, rules: ZoneRules) {
        self.identifier = identifier
        self.rules = rules
    }

    private static let cache = Mutex<[String: Zone]>([:])

    static var directory: String {
        if let dir = getenv("TZDIR").map({ String(cString: $0) }), !dir.isEmpty { return dir }
        return "/usr/share/zoneinfo"
    }

    private static func load(_ identifier: String) -> Zone? {
        if ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Zulu", "Etc/Zulu", "UCT", "Etc/UCT", "Universal"].contains(identifier) {
            return Zone(identifier: identifier, rules: ZoneRules(fixed: 0))
        }
        // A name, never a path: no leading '/', no '..', only the characters IANA names use.
        let allowed = identifier.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "/_-+".utf8.contains(byte)
        }
        guard !identifier.isEmpty, identifier.utf8.count < 128, allowed, !identifier.hasPrefix("/"),
              !identifier.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == ".." || $0 == "." })
        else { return nil }
        guard let bytes = FileBytes.read("\(directory)/\(identifier)") else { return nil }
        return Zone(identifier: identifier, tzif: bytes)
    }

    /// The machine's zone: `$TZ` (an IANA name, `:` first or not, or a POSIX rule such as
    /// `CET-1CEST,M3.5.0,M10.5.0/3`), else `/etc/timezone`, else the name `/etc/localtime` links
    /// to, else `/etc/localtime` itself (named `localtime`), else UTC. Read once.
    public static let system: Zone = system(tz: getenv("TZ").map { String(cString: $0) }, etc: "/etc")

    /// `system` for a given `$TZ` and configuration folder.
    public static func system(tz: String?, etc: String) -> Zone {
        if let tz {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if name.isEmpty { return .utc }
            if let zone = Zone(identifier: name) { return zone }
            if let rules = ZoneRules(posix: name) { return Zone(identifier: name, rules: rules) }
        }
        if let bytes = FileBytes.read("\(etc)/timezone"),
           let name = String(validating: bytes, as: UTF8.self)?.split(whereSeparator: \.isWhitespace).first,
           let zone = Zone(identifier: String(name)) {
            return zone
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("\(etc)/localtime", &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let range = target.firstRange(of: "zoneinfo/"), let zone = Zone(identifier: String(target[range.upperBound...])) {
                return zone
            }
        }
        if let bytes = FileBytes.read("\(etc)/localtime"), let zone = Zone(identifier: "localtime", tzif: bytes) { return zone }
        return .utc
    }
}

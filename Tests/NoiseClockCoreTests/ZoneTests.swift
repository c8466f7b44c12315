import Foundation
import NoiseClockTestSupport
import NoiseClockCore
import Testing

/// Zones on several continents with daylight saving time, half- and quarter-hour offsets, a
/// southern-hemisphere rule, a date-line change and rule changes over the years.
private let sampleZones = [
    "Europe/Berlin", "Europe/London", "Europe/Dublin", "Europe/Moscow", "America/New_York", "America/Los_Angeles",
    "America/St_Johns", "America/Sao_Paulo", "America/Santiago", "America/Havana", "Asia/Kolkata", "Asia/Kathmandu",
    "Asia/Tehran", "Asia/Tokyo", "Asia/Shanghai", "Australia/Sydney", "Australia/Lord_Howe", "Australia/Adelaide",
    "Pacific/Chatham", "Pacific/Auckland", "Pacific/Apia", "Africa/Cairo", "Africa/Johannesburg", "America/Godthab", "UTC",
]

/// Instants from 1972 to 2100, spread so that every year and hour of day is reached.
private let sampleInstants: [Int64] = (0..<2000).map { Int64(63_072_000) + Int64($0) * 2_019_977 }

@Suite("Time zones from the system's TZif files")
struct ZoneTests {
    @Test("offsets agree with glibc's localtime, which reads the same files, for every zone the system has")
    func agreesWithGlibc() async throws {
        // A Python child asks glibc (time.localtime after tzset) so this process's TZ is never touched.
        let zones = allZoneNames()
        #expect(zones.count > 300)
        let script = """
        import os, sys, time
        for line in open(sys.argv[1]):
            name, *instants = line.split()
            os.environ['TZ'] = ':' + name
            time.tzset()
            print(name, *[time.localtime(int(t)).tm_gmtoff for t in instants])
        """
        let instants = stride(from: 0, to: sampleInstants.count, by: 10).map { sampleInstants[$0] }
            + [2_145_916_800, 4_102_444_800, 4_133_980_800]  // 2038, 2100, 2101: past fat files' tables
        let input = zones.map { "\($0) " + instants.map(String.init).joined(separator: " ") }.joined(separator: "\n") + "\n"
        let output = try await run("/usr/bin/python3", ["-c", script], input: input)
        var checked = 0
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            let name = String(fields[0])
            let zone = try #require(Zone(identifier: name), "\(name)")
            for (instant, expected) in zip(instants, fields.dropFirst()) {
                let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant)))
                #expect(offset == Int(expected), "\(name) at \(instant)")
                checked += 1
            }
        }
        #expect(checked == zones.count * instants.count)
    }

    @Test("offsets agree with Foundation's ICU zones from 1990 to 2037", arguments: sampleZones)
    func agreesWithICU(name: String) throws {
        let zone = try #require(Zone(identifier: name))
        let icu = try #require(TimeZone(identifier: name))
        for seconds in sampleInstants where seconds >= 631_152_000 && seconds < 2_145_916_800 {
            let instant = Date(timeIntervalSince1970: Double(seconds))
            #expect(zone.secondsFromGMT(for: instant) == icu.secondsFromGMT(for: instant), "\(name) at \(instant)")
        }
    }

    @Test("the switch happens at the exact second: Berlin's spring-forward and fall-back in 2026")
    func exactTransitions() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        let spring = Date(timeIntervalSince1970: 1_774_746_000)  // 2026-03-29 01:00 UTC
        let autumn = Date(timeIntervalSince1970: 1_792_890_000)  // 2026-10-25 01:00 UTC
        #expect(berlin.secondsFromGMT(for: spring.addingTimeInterval(-1)) == 3600)
        #expect(berlin.secondsFromGMT(for: spring) == 7200)
        #expect(berlin.secondsFromGMT(for: autumn.addingTimeInterval(-1)) == 7200)
        #expect(berlin.secondsFromGMT(for: autumn) == 3600)
    }

    @Test("only names are accepted, never paths out of the zone folder", arguments: [
        "../../etc/passwd", "/etc/localtime", "Europe/../../../etc/passwd", "Europe//Berlin", "", "Europe/Nowhere", "Europe/Berlin ",
        "./UTC",
    ])
    func rejectsPaths(name: String) {
        #expect(Zone(identifier: name) == nil)
    }

    @Test("UTC and its aliases exist even without zone files")
    func utcAlways() throws {
        for name in ["UTC", "GMT", "Etc/UTC"] {
            #expect(try #require(Zone(identifier: name)).secondsFromGMT(for: Date()) == 0)
        }
        #expect(Zone.utc.identifier == "UTC")
    }

    @Test("bytes that are not a TZif file are no zone", arguments: [[UInt8](), Array("TZif".utf8), Array("not a zone file at all, no".utf8)])
    func rejectsGarbage(bytes: [UInt8]) {
        #expect(Zone(identifier: "x", tzif: bytes) == nil)
    }

    @Test("a truncated TZif file is no zone")
    func rejectsTruncated() throws {
        let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin"))
        #expect(Zone(identifier: "x", tzif: Array(bytes)) != nil)
        for length in [20, 44, 100, bytes.count / 2] {
            #expect(Zone(identifier: "x", tzif: Array(bytes.prefix(length))) == nil, "\(length) bytes")
        }
    }

    @Test("the system zone: $TZ (a name or a POSIX rule), else /etc/timezone, else the /etc/localtime link, else UTC")
    func systemZone() throws {
        let etc = FileManager.default.temporaryDirectory.appendingPathComponent("zone-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: etc) }
        #expect(Zone.system(tz: nil, etc: etc) == .utc)
        try FileManager.default.createSymbolicLink(atPath: "\(etc)/localtime", withDestinationPath: "/usr/share/zoneinfo/Asia/Kolkata")
        #expect(Zone.system(tz: nil, etc: etc).identifier == "Asia/Kolkata")
        try "Europe/Berlin\n".write(toFile: "\(etc)/timezone", atomically: true, encoding: .utf8)
        #expect(Zone.system(tz: nil, etc: etc).identifier == "Europe/Berlin")
        #expect(Zone.system(tz: ":America/New_York", etc: etc).identifier == "America/New_York")
        #expect(Zone.system(tz: "Asia/Tokyo", etc: etc).identifier == "Asia/Tokyo")
        #expect(Zone.system(tz: "", etc: etc) == .utc)
        let posix = Zone.system(tz: "CET-1CEST,M3.5.0,M10.5.0/3", etc: etc)
        #expect(posix.secondsFromGMT(for: Date(timeIntervalSince1970: 1_784_000_000)) == 7200)  // July 2026
        #expect(posix.secondsFromGMT(for: Date(timeIntervalSince1970: 1_798_000_000)) == 3600)  // December 2026
    }

    @Test("POSIX rules: northern and southern daylight time, Julian days, explicit offsets, negative times")
    func posixRules() {
        // An unreadable rule would fall back to UTC, which every expectation below tells apart.
        func offset(_ rule: String, _ seconds: Int64) -> Int {
            Zone.system(tz: rule, etc: "/nonexistent").secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
        }
        // US Eastern: daylight time from the 2nd Sunday of March 02:00 to the 1st Sunday of November 02:00.
        let eastern = "EST5EDT,M3.2.0,M11.1.0"
        #expect(offset(eastern, 1_772_953_199) == -18000)  // 2026-03-08 01:59:59 EST
        #expect(offset(eastern, 1_772_953_200) == -14400)  // 03:00 EDT
        #expect(offset(eastern, 1_793_512_799) == -14400)  // 2026-11-01 01:59:59 EDT
        #expect(offset(eastern, 1_793_512_800) == -18000)
        // New Zealand: daylight time from the last Sunday of September to the 1st Sunday of April.
        let nz = "NZST-12NZDT,M9.5.0,M4.1.0/3"
        #expect(offset(nz, 1_768_000_000) == 46800)  // January 2026: summer
        #expect(offset(nz, 1_784_000_000) == 43200)  // July 2026: winter
        // Julian day 60 is March 1 in every year; a fixed offset with minutes.
        #expect(offset("<+0530>-5:30", 1_784_000_000) == 19800)
        #expect(offset("XST3XDT,J60/0,J300/0", 1_772_333_999) == -10800)  // 2026-02-28 23:59:59 local
        #expect(offset("XST3XDT,J60/0,J300/0", 1_772_334_000) == -7200)  // 2026-03-01 00:00 local, daylight
        // Greenland's rule: transitions at -01:00 and 00:00 local.
        #expect(offset("<-02>2<-01>,M3.5.0/-1,M10.5.0/0", 1_784_000_000) == -3600)
        #expect(offset("<-02>2<-01>,M3.5.0/-1,M10.5.0/0", 1_798_000_000) == -7200)
        // All year daylight time (RFC 8536's example).
        #expect(offset("EST5EDT,0/0,J365/25", 1_798_000_000) == -14400)
    }
}

private func allZoneNames() -> [String] {
    let root = "/usr/share/zoneinfo"
    var names: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let path = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        guard !path.hasPrefix("posix/"), !path.hasPrefix("right/"), !path.hasPrefix("Etc/"), path.first?.isUppercase == true,
              !path.contains("."), FileManager.default.fileExists(atPath: "\(root)/\(path)", isDirectory: &isDirectory),
              !isDirectory.boolValue, let bytes = FileManager.default.contents(atPath: "\(root)/\(path)")
        else { continue }
        if bytes.prefix(4) == Data("TZif".utf8) { names.append(path) }
    }
    return names.sorted()
}

/// Runs `executable` with `input` in a file named by its last argument, without holding a thread
/// of the test pool while it runs; returns what it printed.
private func run(_ executable: String, _ arguments: [String], input: String) async throws -> String {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("zones-\(UUID().uuidString.prefix(8)).txt").path
    try input.write(toFile: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: file) }
    let (code, output) = try await runTool(executable, arguments + [file])
    #expect(code == 0, "\(executable): \(output)")
    return output
}

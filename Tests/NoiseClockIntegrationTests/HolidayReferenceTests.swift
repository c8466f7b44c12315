import Foundation
import Testing
import NoiseClockCore
import NoiseClockTestSupport

/// The node's holiday rules against the reference, the Python `holidays` package from PyPI (SPEC
/// §12), installed into a cached venv by scripts/holidays-reference.sh: every supported country and
/// region, every year 2000-2050, date by date.
@Suite struct HolidayReferenceTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func everyRegionMatchesTheReferenceFrom2000To2050() async throws {
        let names = HolidayCalendar.supported.flatMap { entry in [entry.country] + entry.regions.map { "\(entry.country)-\($0)" } }
        #expect(names.count >= 7 + 16 + 26 + 4, "the countries and regions SPEC §12 names: \(names)")
        let directory = try makeTemporaryDirectory("holidays")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = try ChildProcess("/bin/bash", ["\(Self.root)/scripts/holidays-reference.sh"] + names, logPath: "\(directory)/out")
        let code = await script.waitForExit(timeout: .seconds(600))
        try #require(code == 0, "holidays-reference.sh: \(code.map(String.init) ?? "still running")\n\(script.log.suffix(2000))")

        var compared = 0
        var seen = Set<String>()
        for line in script.log.split(separator: "\n") where !line.hasPrefix("holidays-reference.sh:") {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 2, let year = Int(fields[1]) else { continue }
            let name = fields[0]
            let (country, region) = name.firstIndex(of: "-").map { (String(name[..<$0]), String(name[name.index(after: $0)...])) } ?? (name, "")
            let calendar = try #require(HolidayCalendar(country: country, region: region), "\(name)")
            let ours = calendar.holidays(in: year)
            #expect(ours.map(\.date.iso) == Array(fields.dropFirst(2)), "\(name) \(year)")
            #expect(ours.allSatisfy { !$0.name(.en).isEmpty && !$0.name(.de).isEmpty }, "\(name) \(year): a holiday without a name")
            compared += 1
            seen.insert(name)
        }
        #expect(seen == Set(names), "the reference answered for \(seen.count) of \(names.count) regions")
        #expect(compared == names.count * 51)
    }
}

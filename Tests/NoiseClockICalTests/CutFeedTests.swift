import Foundation
import Testing

/// A feed's answer cut short (a connection that drops without a length) must never replace the
/// node's good copy: the helper refuses a calendar without its end, wherever it was cut.
@Suite struct CutFeedTests {
    static let feed = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//NoiseClock tests//EN\r
        BEGIN:VEVENT\r
        UID:dentist@noiseclock.test\r
        DTSTART:20261207T073000Z\r
        DTEND:20261207T080000Z\r
        SUMMARY:Dentist\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:team@noiseclock.test\r
        DTSTART:20261208T090000Z\r
        SUMMARY:Team\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test("cut after any line, or inside one, the feed is refused (exit 1); whole, it gives both events")
    func cutAnywhere() async throws {
        let whole = try await runHelper(Self.feed, from: "2026-12-06", days: 7, zone: "UTC")
        #expect(whole.code == 0 && whole.lines.count == 2, "\(whole)")
        let bytes = Array(Self.feed.utf8)
        let ends = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }.map { $0 + 1 }
        // Every line boundary before the last line, and the middle of each line.
        let cuts = ends.dropLast() + ends.dropLast().map { $0 - 5 }
        for cut in cuts.sorted() {
            let run = try await runHelper(String(decoding: bytes[..<cut], as: UTF8.self), from: "2026-12-06", days: 7, zone: "UTC")
            #expect(run.code == 1 && run.lines.isEmpty, "cut at byte \(cut) of \(bytes.count): \(run)")
        }
    }
}

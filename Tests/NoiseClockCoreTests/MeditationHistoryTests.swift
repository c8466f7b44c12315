import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

@Suite("Meditation history and stats: local days, across daylight saving")
struct MeditationHistoryTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"]

    static func zone(_ name: String) -> Zone {
        guard let zone = Zone(identifier: name) else { fatalError("no zone \(name)") }
        return zone
    }

    /// The days of 2026 whose length is not 24 hours in `name` (by Foundation's calendar).
    static func changeDays(_ name: String) -> [Date] {
        let calendar = calendar(in: name)
        var days: [Date] = []
        var day = calendar.startOfDay(for: UTC.date(2026, 1, 1, 12))
        for _ in 0..<366 {
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            if next.timeIntervalSince(day) != 86_400 { days.append(day) }
            day = next
        }
        return days
    }

    /// The stats by brute force, with Foundation's calendar: local days by `startOfDay`, stepping
    /// back a calendar day at a time.
    static func bruteForce(_ records: [MeditationRecord], now: Date, zone name: String) -> MeditationStats {
        let calendar = calendar(in: name)
        let today = calendar.startOfDay(for: now)
        let days = records.map { calendar.startOfDay(for: $0.startedAt) }
        let weekStart = calendar.date(byAdding: .day, value: -6, to: today) ?? today
        let minutes7d = zip(records, days).filter { $0.1 >= weekStart && $0.1 <= today }.reduce(0) { $0 + $1.0.minutes }
        var streak = 0
        var day = Set(days).contains(today) ? today : (calendar.date(byAdding: .day, value: -1, to: today) ?? today)
        while Set(days).contains(day) {
            streak += 1
            day = calendar.date(byAdding: .day, value: -1, to: day) ?? day
        }
        return MeditationStats(
            sessions: records.count, minutesTotal: records.reduce(0) { $0 + $1.minutes }, minutes7d: minutes7d, streakDays: streak)
    }

    @Test("the 23 and 25 hour days of 2026 are found in each zone (the test's own premise)", arguments: zones)
    func premise(name: String) {
        let days = Self.changeDays(name)
        #expect(days.count == 2)
        let calendar = calendar(in: name)
        let lengths = days.compactMap { day in calendar.date(byAdding: .day, value: 1, to: day).map { $0.timeIntervalSince(day) } }
        #expect(Set(lengths) == (name == "Australia/Lord_Howe" ? [84_600, 88_200] : [82_800, 90_000]))
    }

    @Test("a streak through the spring-forward and the fall-back day counts each as one day", arguments: zones)
    func streakThroughChanges(name: String) throws {
        let zone = Self.zone(name)
        let calendar = calendar(in: name)
        for change in Self.changeDays(name) {
            // A session at 23:59 local on each of the 5 days up to and including the change day.
            var history = MeditationHistory()
            for back in (0..<5).reversed() {
                let day = try #require(calendar.date(byAdding: .day, value: -back, to: change))
                let late = try #require(calendar.date(bySettingHour: 23, minute: 59, second: 0, of: day))
                history.append(MeditationRecord(startedAt: late, minutes: 10, kind: .timed, completed: true))
            }
            let nextMorning = try #require(calendar.date(byAdding: .hour, value: 10, to: calendar.date(byAdding: .day, value: 1, to: change)!))
            let stats = MeditationStats(history, now: nextMorning, zone: zone)
            #expect(stats.streakDays == 5, "\(name) \(change): yesterday ends the streak")
            #expect(stats.minutes7d == 50 && stats.sessions == 5 && stats.minutesTotal == 50)
            let twoDaysLater = try #require(calendar.date(byAdding: .day, value: 2, to: nextMorning))
            #expect(MeditationStats(history, now: twoDaysLater, zone: zone).streakDays == 0, "neither today nor yesterday")
        }
    }

    @Test(
        "stats against a brute-force count with Foundation's calendar: sessions near midnight around the daylight-saving days, any now",
        arguments: zones)
    func bruteForce(name: String) async {
        let zone = Self.zone(name)
        let calendar = calendar(in: name)
        let changes = Self.changeDays(name)
        await propertyCheck(count: 200, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            await computeInTurn {
                var random = seed
                func roll(_ range: ClosedRange<Int>) -> Int {
                    random = (random &* 1_103_515_245 &+ 12345) & 0x7FFF_FFFF
                    return range.lowerBound + random % range.count
                }
                let change = changes[roll(0...(changes.count - 1))]
                var records: [MeditationRecord] = []
                for _ in 0..<roll(0...30) {
                    let day = calendar.date(byAdding: .day, value: roll(-12...3), to: change) ?? change
                    // Near midnight (either side) or anywhere in the day.
                    let offset = roll(0...2) == 0 ? roll(0...86_399) : roll(-5400...5400)
                    records.append(MeditationRecord(startedAt: day.addingTimeInterval(Double(offset)), minutes: roll(0...60), kind: .timed, completed: true))
                }
                records.sort { $0.startedAt < $1.startedAt }
                var history = MeditationHistory()
                for record in records { history.append(record) }
                let now = (calendar.date(byAdding: .day, value: roll(-3...8), to: change) ?? change)
                    .addingTimeInterval(Double(roll(0...2) == 0 ? roll(-120...120) : roll(0...86_399)))
                let stats = MeditationStats(history, now: now, zone: zone)
                #expect(stats == Self.bruteForce(records, now: now, zone: name), "seed \(seed), now \(now)")
                if let change = MeditationStats.nextChange(history, now: now, zone: zone) {
                    #expect(change > now)
                    #expect(calendar.startOfDay(for: change) == change, "seed \(seed): changes at a local midnight")
                    #expect(MeditationStats(history, now: change.addingTimeInterval(-0.001), zone: zone) == stats)
                    #expect(Self.bruteForce(records, now: change, zone: name) != stats)
                } else {
                    for ahead in 1...10 {
                        let later = calendar.date(byAdding: .day, value: ahead, to: now) ?? now
                        #expect(Self.bruteForce(records, now: later, zone: name) == stats, "seed \(seed): nothing changes, yet day +\(ahead) differs")
                    }
                }
            }
        }
    }

    @Test("the history keeps the last 5000 sessions; the totals still count the ones dropped")
    func cap() throws {
        var history = MeditationHistory()
        let start = UTC.date(2026, 1, 1)
        for index in 0..<5003 {
            history.append(MeditationRecord(startedAt: start.addingTimeInterval(Double(index) * 3600), minutes: 2, kind: .guided, completed: false))
        }
        #expect(history.records.count == 5000)
        #expect(history.records.first?.startedAt == start.addingTimeInterval(3 * 3600))
        let stats = MeditationStats(history, now: start, zone: .utc)
        #expect(stats.sessions == 5003 && stats.minutesTotal == 10_006)
        let reread = try MeditationHistory(stored: history.stored)
        #expect(reread == history)
    }

    @Test("the stored history reads back exactly, and a broken one is refused naming the member")
    func stored() throws {
        var history = MeditationHistory()
        history.append(MeditationRecord(startedAt: UTC.date(2026, 5, 1, 6, 30, 15), minutes: 12, kind: .timed, completed: true))
        history.append(MeditationRecord(startedAt: UTC.date(2026, 5, 2, 21, 0), minutes: 3, kind: .guided, completed: false))
        #expect(try MeditationHistory(stored: history.stored) == history)
        let broken: JSONValue = ["version": 1, "sessions": [["started_at": 1, "minutes": 3, "kind": "nap", "completed": true]]]
        #expect(throws: CommandError.invalidField("kind", "must be timed or guided")) { try MeditationHistory(stored: broken) }
        #expect(MeditationRecord.minutes(meditated: 89) == 1 && MeditationRecord.minutes(meditated: 91) == 2)
        #expect(MeditationRecord.minutes(meditated: 29) == 0)
    }

    @Test("nothing in the last week and no streak: no wake-up is needed for the stats")
    func noWake() {
        var history = MeditationHistory()
        history.append(MeditationRecord(startedAt: UTC.date(2026, 1, 1, 12), minutes: 10, kind: .timed, completed: true))
        #expect(MeditationStats.nextChange(history, now: UTC.date(2026, 2, 1), zone: .utc) == nil)
        #expect(MeditationStats.nextChange(history, now: UTC.date(2026, 1, 1, 13), zone: .utc) == UTC.date(2026, 1, 3))
        #expect(MeditationStats.nextChange(MeditationHistory(), now: UTC.date(2026, 2, 1), zone: .utc) == nil)
    }
}

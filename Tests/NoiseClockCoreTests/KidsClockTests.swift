import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

@Suite("The kids' clock (SPEC §13): stay in bed, almost, you can get up, per weekday, across daylight saving and a clock set back")
struct KidsClockTests {
    static func settings(_ random: inout SplitMix64) -> KidsSettings {
        var settings = KidsSettings()
        settings.enabled = true
        for day in Weekday.allCases {
            // Mornings mostly; some inside the spring-forward gap hours, some just after midnight.
            let minute = [random.int(330...540), random.int(120...200), random.int(0...60)][random.int(0...2)]
            settings.wake[day] = AlarmTime(hour: minute / 60, minute: minute % 60)
        }
        settings.warnMinutes = [0, 15, random.int(0...120)][random.int(0...2)]
        settings.okMinutes = [60, 1, random.int(1...240)][random.int(0...2)]
        let evening = [random.int(1020...1320), random.int(0...1439)][random.int(0...1)]
        settings.sleepFrom = AlarmTime(hour: evening / 60, minute: evening % 60) ?? .midnight
        return settings
    }

    @Test(
        "minute by minute over four days: the states go off → stay in bed → almost → you can get up → off; you can get up begins at the weekday's wake time (a gap's time the gap later) and lasts ok_min; almost is warn_min before it; next_change_at is where the state changes",
        arguments: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC"])
    func walks(zoneName: String) async {
        guard let zone = Zone(identifier: zoneName) else {
            Issue.record("unknown zone \(zoneName)")
            return
        }
        await propertyCheck(count: 12, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            await computeInTurn {
                walk(seed: UInt64(seed), zone: zone)
            }
        }
    }

    private func walk(seed: UInt64, zone: Zone) {
        var random = SplitMix64(state: seed)
        let settings = Self.settings(&random)
        let day = [79, 87, 95, 276, 298, 305, random.int(0...364)][random.int(0...6)]
        let start = Date(timeIntervalSince1970: Double(1_767_225_600 + (day - 2) * 86_400))
        let context = "seed \(seed), zone \(zone), wake \(settings.wake.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }), warn \(settings.warnMinutes), ok \(settings.okMinutes), sleep from \(settings.sleepFrom)"
        let allowed: [KidsState: Set<KidsState>] = [.off: [.sleep, .almost, .ok], .sleep: [.almost, .ok], .almost: [.ok], .ok: [.off, .sleep, .almost]]
        var previous = KidsClock.view(at: start, settings: settings, zone: zone)
        var okSince: Date?
        for minute in 1...(4 * 1440) {
            let now = start.addingTimeInterval(Double(minute) * 60)
            let view = KidsClock.view(at: now, settings: settings, zone: zone)
            // Written only for a failure (formatting each of the 5 760 minutes was a quarter of the walk).
            func at() -> String { "at \(now) (\(LocalTime(now, in: zone).hour):\(LocalTime(now, in: zone).minute)); \(context)" }
            if view.state != previous.state {
                #expect(allowed[previous.state]?.contains(view.state) == true, "\(previous.state) → \(view.state); \(at())")
                // The change was announced: the previous view's next change is within this minute.
                if let change = previous.nextChangeAt {
                    #expect(change > now.addingTimeInterval(-60) && change <= now, "changed by \(now), announced for \(change); \(at())")
                } else {
                    Issue.record("\(previous.state) → \(view.state) unannounced; \(at())")
                }
            } else if let change = previous.nextChangeAt {
                #expect(change > now, "announced a change at \(change) that did not come; \(at())")
            }
            if view.state == .ok, previous.state != .ok {
                let wake = view.morning?.wake
                okSince = wake
                let local = LocalTime(now, in: zone)
                if let wake, let weekday = Weekday(calendarWeekday: LocalTime(wake, in: zone).date.weekday + 1), let time = settings.wake[weekday] {
                    let w = LocalTime(wake, in: zone)
                    let late = (w.hour * 60 + w.minute) - time.minutesOfDay
                    #expect(late == 0 || (late > 0 && late <= 60 && zone.secondsFromGMT(for: wake) != zone.secondsFromGMT(for: wake.addingTimeInterval(-3 * 3600))),
                            "you can get up at \(w.hour):\(w.minute), wake time \(time); \(at())")
                    if let almost = view.morning?.almost, settings.warnMinutes > 0, previous.state == .almost {
                        #expect(wake.timeIntervalSince(almost) <= Double(settings.warnMinutes) * 60, "\(at())")
                    }
                } else {
                    Issue.record("ok without its morning at \(local); \(at())")
                }
            }
            if view.state != .ok, previous.state == .ok, let since = okSince {
                #expect(abs(now.timeIntervalSince(since) - Double(settings.okMinutes) * 60) < 60, "ok lasted \(now.timeIntervalSince(since)) s; \(at())")
            }
            previous = view
        }
    }

    @Test("kids_ok is due once per morning, not for a morning that is over, and not again after the clock is set back")
    func okOnce() throws {
        var settings = KidsSettings()
        settings.enabled = true
        let zone = try #require(Zone(identifier: "Europe/Berlin"))
        // Sunday 2026-03-29: 07:30 (the weekend's), on the day clocks spring forward.
        let wake = try #require(ISO8601DateFormatter().date(from: "2026-03-29T05:30:00Z"))
        #expect(KidsClock.view(at: wake.addingTimeInterval(-60), settings: settings, zone: zone).state == .almost)
        #expect(KidsClock.view(at: wake.addingTimeInterval(-16 * 60), settings: settings, zone: zone).state == .sleep)
        let morning = try #require(KidsClock.okDue(at: wake, settings: settings, zone: zone, announced: nil))
        #expect(morning.wake == wake && morning.end == wake.addingTimeInterval(3600))
        #expect(KidsClock.okDue(at: wake.addingTimeInterval(-600), settings: settings, zone: zone, announced: wake) == nil, "set back")
        #expect(KidsClock.okDue(at: wake.addingTimeInterval(1200), settings: settings, zone: zone, announced: wake) == nil)
        #expect(KidsClock.okDue(at: wake.addingTimeInterval(3600), settings: settings, zone: zone, announced: nil) == nil, "over")
        let view = KidsClock.view(at: wake.addingTimeInterval(3600), settings: settings, zone: zone)
        #expect(view.state == .off)
        // Monday's 07:00 CEST, 19:00 CEST the evening before.
        #expect(view.nextChangeAt == ISO8601DateFormatter().date(from: "2026-03-29T17:00:00Z"))
        #expect(view.morning?.wake == ISO8601DateFormatter().date(from: "2026-03-30T05:00:00Z"))
        settings.enabled = false
        #expect(KidsClock.view(at: wake, settings: settings, zone: zone) == KidsClock.View(state: .off, nextChangeAt: nil, morning: nil))
    }

    @Test("settings.kids: wake as one time or per day, each field checked and named; on error nothing applies")
    func settingsPatch() throws {
        let base = KidsSettings()
        #expect(base.wake[.mon] == AlarmTime(hour: 7, minute: 0) && base.wake[.sun] == AlarmTime(hour: 7, minute: 30))
        let one = try base.applying(["enabled": true, "wake": "06:45", "ok_min": 30])
        #expect(one.enabled && Set(one.wake.values) == [AlarmTime(hour: 6, minute: 45)!] && one.okMinutes == 30)
        let days = try one.applying(["wake": ["sat": "08:00"], "sleep_from": "18:30", "show_time": false])
        #expect(days.wake[.sat] == AlarmTime(hour: 8, minute: 0) && days.wake[.fri] == AlarmTime(hour: 6, minute: 45))
        #expect(days.json["sleep_from"] == "18:30" && days.json["show_time"] == false && days.json["wake"]?["sat"] == "08:00")
        let failures: [([String: JSONValue], String)] = [
            (["wake": "7"], "kids.wake"), (["wake": ["mon": "7am"]], "kids.wake.mon"), (["wake": ["monday": "07:00"]], "kids.wake.monday"),
            (["warn_min": 121], "kids.warn_min"), (["ok_min": 0], "kids.ok_min"), (["enabled": 1], "kids.enabled"),
            (["sleep_from": "late"], "kids.sleep_from"), (["show": true], "kids.show"),
        ]
        for (patch, field) in failures {
            do {
                _ = try one.applying(patch.merging(["ok_min": 90]) { a, _ in a })
                Issue.record("\(patch) was taken")
            } catch {
                #expect(error.field == field, "\(patch): \(error)")
            }
        }
    }
}

extension AlarmTime {
    fileprivate var minutesOfDay: Int { hour * 60 + minute }
}

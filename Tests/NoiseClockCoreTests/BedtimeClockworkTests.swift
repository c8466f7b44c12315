import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

@Suite("The bedtime clockwork (SPEC §13): reminders and wind-downs per weekday across daylight saving, clock jumps and restarts")
struct BedtimeClockworkTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC"]

    static func settings(_ random: inout SplitMix64) -> BedtimeSettings {
        var settings = BedtimeSettings()
        for day in Weekday.allCases where random.chance(80) {
            // Around the evening mostly; now and then just after midnight or inside a gap hour.
            let minute = [random.int(1200...1439), random.int(0...90), random.int(120...180)][random.int(0...2)]
            settings.times[day] = AlarmTime(hour: minute / 60, minute: minute % 60)
        }
        settings.sameEveryDay = false
        settings.reminderMinutes = [0, 15, 45, random.int(0...120)][random.int(0...3)]
        settings.windDownMinutes = [0, 30, 10, random.int(0...120)][random.int(0...3)]
        return settings
    }

    @Test(
        "walking the wall clock: each bedtime is reminded once, inside [time − reminder_min, time), on the dot when the looks are followed; its wind-down runs from time − wind_down_min to the time and begins once; a clock set back repeats nothing; a restart resumes the wind-down where it was",
        arguments: zones)
    func walks(zoneName: String) async {
        guard let zone = Zone(identifier: zoneName) else {
            Issue.record("unknown zone \(zoneName)")
            return
        }
        await propertyCheck(count: 60, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            await computeInTurn {
                walk(seed: UInt64(seed), zone: zone)
            }
        }
    }

    private func walk(seed: UInt64, zone: Zone) {
        var random = SplitMix64(state: seed)
        let settings = Self.settings(&random)
        // In 2026, around the spring and autumn changes of the three zones, or any day.
        let day = [79, 87, 95, 276, 298, 305, random.int(0...364)][random.int(0...6)]
        var now = Date(timeIntervalSince1970: Double(1_767_225_600 + day * 86_400 - random.int(0...86_400)))
        var state = BedtimeState()
        var reminded: [Date] = []
        var begun: [Date] = []
        var followed = false
        var previousLook: Date?
        let context = "seed \(seed), times \(settings.times.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }), reminder \(settings.reminderMinutes), wind-down \(settings.windDownMinutes)"

        for round in 0...250 {
            let step = BedtimeClockwork.step(state, settings: settings, now: now, zone: zone)
            let at = "round \(round) at \(now); \(context)"
            for event in step.events {
                switch event {
                case .reminder(let bedtime):
                    #expect(!reminded.contains(bedtime), "reminded twice for \(bedtime); \(at)")
                    reminded.append(bedtime)
                    let window = bedtime.addingTimeInterval(-Double(settings.reminderMinutes) * 60)..<bedtime
                    #expect(window.contains(now), "reminder for \(bedtime) outside \(window); \(at)")
                    if followed, let previousLook, previousLook < window.lowerBound {
                        #expect(now == window.lowerBound, "a followed reminder came at \(now), not on the dot \(window.lowerBound); \(at)")
                    }
                case .windDownBegan(let run):
                    guard let bedtime = run.bedtimeAt else {
                        Issue.record("a scheduled wind-down without its bedtime; \(at)")
                        continue
                    }
                    #expect(!begun.contains(bedtime), "wound down twice for \(bedtime); \(at)")
                    begun.append(bedtime)
                    #expect(run.endsAt == bedtime && !run.byHand, "\(run); \(at)")
                    #expect(run.startedAt == bedtime.addingTimeInterval(-Double(settings.windDownMinutes) * 60), "\(run); \(at)")
                    #expect(run.startedAt <= now && now < run.endsAt, "began \(run) at \(now); \(at)")
                case .windDownEnded(let run, let stopped):
                    #expect(!stopped, "the clock alone never stops a wind-down; \(at)")
                    #expect(now >= run.endsAt || now < run.startedAt, "ended \(run) at \(now); \(at)")
                }
            }
            state = step.state
            // The phase and what B/bedtime says follow the state.
            if let run = state.windDown {
                #expect(step.view.phase == .windingDown && step.view.endsAt == run.endsAt, "\(step.view); \(at)")
                #expect(run.startedAt.addingTimeInterval(-BedtimeClockwork.setBackTolerance) <= now && now < run.endsAt, "\(run); \(at)")
            } else {
                #expect(step.view.phase != .windingDown && step.view.endsAt == nil, "\(step.view); \(at)")
            }
            // The next bedtime is a real occurrence of that weekday's time (or that time moved by a
            // spring-forward gap) and none of the same weekday's time lies between now and it.
            if let next = step.view.nextAt {
                #expect(next > now || state.windDown?.bedtimeAt == next, "\(next); \(at)")
                let local = LocalTime(next, in: zone)
                if let weekday = Weekday(calendarWeekday: local.date.weekday + 1), let time = settings.time(on: weekday) {
                    let minutes = local.hour * 60 + local.minute - (time.hour * 60 + time.minute)
                    #expect(minutes >= 0 && minutes <= 60, "next bedtime \(next) is \(local.hour):\(local.minute), not \(time); \(at)")
                } else {
                    // Pushed past midnight by a gap: the previous day's time.
                    #expect(local.hour <= 2, "next bedtime \(next) on a day without one; \(at)")
                }
            } else {
                #expect(settings.times.isEmpty, "no next bedtime with \(settings.times.count) days set; \(at)")
            }
            if let look = step.nextLook { #expect(look > now, "\(look); \(at)") }

            // Time moves: to the next look, a few minutes, a jump either way, or a restart.
            previousLook = now
            followed = false
            switch random.int(0...99) {
            case 0..<55:
                if let look = step.nextLook {
                    now = look
                    followed = true
                } else {
                    now.addTimeInterval(3600)
                }
            case 55..<80: now.addTimeInterval(random.seconds(1...900))
            case 80..<88: now.addTimeInterval(-random.seconds(1...7200))
            case 88..<95: now.addTimeInterval(random.seconds(3600...30_000))
            default:
                // A restart: the state read back from its stored form.
                do { state = try BedtimeState(stored: JSONValue.parse(Array(state.stored.serialized.utf8))) } catch {
                    Issue.record("the stored state did not read back: \(error); \(at)")
                }
            }
        }
    }

    @Test("a wind-down's sunset starts at time − wind_down_min, and a restart in the middle lands on the same progress")
    func restartMidWindDown() throws {
        var settings = BedtimeSettings()
        settings.times = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, AlarmTime(hour: 22, minute: 30)!) })
        let zone = try #require(Zone(identifier: "Europe/Berlin"))
        let bedtime = try #require(ISO8601DateFormatter().date(from: "2026-10-24T20:30:00Z"))  // 22:30 CEST
        let before = BedtimeClockwork.step(BedtimeState(), settings: settings, now: bedtime.addingTimeInterval(-3600), zone: zone)
        #expect(before.view.phase == .idle && before.view.nextAt == bedtime)
        #expect(before.nextLook == bedtime.addingTimeInterval(-1800), "the wind-down is the first thing due")
        let begun = BedtimeClockwork.step(before.state, settings: settings, now: bedtime.addingTimeInterval(-1800), zone: zone)
        #expect(begun.events == [.windDownBegan(WindDown(startedAt: bedtime.addingTimeInterval(-1800), endsAt: bedtime, bedtimeAt: bedtime, byHand: false))])
        #expect(begun.nextLook == bedtime.addingTimeInterval(-900), "then the reminder")
        let restored = try BedtimeState(stored: JSONValue.parse(Array(begun.state.stored.serialized.utf8)))
        #expect(restored == begun.state)
        let later = BedtimeClockwork.step(restored, settings: settings, now: bedtime.addingTimeInterval(-600), zone: zone)
        #expect(later.events == [.reminder(bedtimeAt: bedtime)], "the reminder missed by the restart comes, the wind-down does not begin again")
        #expect(later.view.windDown?.progress(at: bedtime.addingTimeInterval(-600)) == 1200.0 / 1800.0)
        let over = BedtimeClockwork.step(later.state, settings: settings, now: bedtime, zone: zone)
        #expect(over.view.phase == .idle && over.state.windDown == nil)
        #expect(over.view.nextAt == bedtime.addingTimeInterval(86_400 + 3600), "the next evening's 22:30 is CET, an hour later in UTC")
    }

    @Test("bedtime/start winds down at once for wind_down_min and stands in for a bedtime under six hours away; bedtime/stop ends it and keeps that bedtime quiet")
    func startAndStop() throws {
        var settings = BedtimeSettings()
        settings.times[.sat] = AlarmTime(hour: 23, minute: 0)
        let zone = Zone.utc
        let bedtime = try #require(ISO8601DateFormatter().date(from: "2026-10-24T23:00:00Z"))  // a Saturday
        let early = bedtime.addingTimeInterval(-2 * 3600)
        let started = BedtimeClockwork.start(BedtimeState(), settings: settings, now: early, zone: zone)
        let run = WindDown(startedAt: early, endsAt: early.addingTimeInterval(1800), bedtimeAt: bedtime, byHand: true)
        #expect(started.events == [.windDownBegan(run)])
        #expect(started.view == BedtimeView(phase: .windingDown, nextAt: bedtime, endsAt: run.endsAt, windDown: run))
        // A second start changes nothing.
        #expect(BedtimeClockwork.start(started.state, settings: settings, now: early.addingTimeInterval(60), zone: zone).events.isEmpty)
        // After it, the bedtime's own reminder and wind-down do not come.
        var state = started.state
        var now = early
        var events: [BedtimeClockwork.Event] = []
        while let look = BedtimeClockwork.step(state, settings: settings, now: now, zone: zone).nextLook, look <= bedtime {
            now = look
            let step = BedtimeClockwork.step(state, settings: settings, now: now, zone: zone)
            state = step.state
            events += step.events
            #expect(step.view.phase != .reminder, "a reminder after going to bed early at \(now)")
        }
        #expect(events == [.windDownEnded(run, stopped: false)])

        // Stopped during the reminder: that bedtime stays quiet, the next one does not.
        let reminding = BedtimeClockwork.step(BedtimeState(), settings: settings, now: bedtime.addingTimeInterval(-600), zone: zone)
        #expect(reminding.view.phase == .windingDown, "10 minutes before, the 30-minute wind-down has begun")
        let stopped = BedtimeClockwork.stop(reminding.state, settings: settings, now: bedtime.addingTimeInterval(-590), zone: zone)
        #expect(stopped.events.count == 1 && stopped.view.phase == .idle)
        if case .windDownEnded(_, let byStop) = stopped.events.first { #expect(byStop) } else { Issue.record("\(stopped.events)") }
        let after = BedtimeClockwork.step(stopped.state, settings: settings, now: bedtime.addingTimeInterval(-300), zone: zone)
        #expect(after.events.isEmpty && after.view.phase == .idle)
        let nextWeek = bedtime.addingTimeInterval(7 * 86_400)
        let next = BedtimeClockwork.step(after.state, settings: settings, now: nextWeek.addingTimeInterval(-1800), zone: zone)
        #expect(next.view.phase == .windingDown && next.view.nextAt == nextWeek)
    }

    @Test("settings.bedtime: one time or one per weekday, each field checked and named; on error nothing applies")
    func settingsPatch() throws {
        let base = BedtimeSettings()
        #expect(!base.isOn && base.json["time"] == .null)
        let every = try base.applying(["time": "22:30", "reminder_min": 10, "sounds": ["rain", "rain", "fan"], "breathe": true])
        #expect(every.times.count == 7 && every.time(on: .wed) == AlarmTime(hour: 22, minute: 30))
        #expect(every.json["time"] == "22:30" && every.json["sounds"] == ["rain", "fan"] && every.json["breathe"] == true)
        let days = try every.applying(["time": ["fri": "23:30", "sat": "00:15", "sun": .null]])
        #expect(days.times == [.fri: AlarmTime(hour: 23, minute: 30)!, .sat: AlarmTime(hour: 0, minute: 15)!])
        #expect(days.json["time"] == ["fri": "23:30", "sat": "00:15"])
        let off = try days.applying(["time": .null])
        #expect(!off.isOn)
        let failures: [([String: JSONValue], String)] = [
            (["time": "25:00"], "bedtime.time"), (["time": ["fry": "22:00"]], "bedtime.time.fry"),
            (["time": ["mon": "9pm"]], "bedtime.time.mon"), (["time": 2230], "bedtime.time"),
            (["reminder_min": 121], "bedtime.reminder_min"), (["wind_down_min": -1], "bedtime.wind_down_min"),
            (["sleep_min": 481], "bedtime.sleep_min"), (["volume": 101], "bedtime.volume"), (["breathe": "yes"], "bedtime.breathe"),
            (["sounds": "rain"], "bedtime.sounds"), (["sounds": ["a", "b", "c", "d", "e"]], "bedtime.sounds"), (["sounds": [1]], "bedtime.sounds"),
            (["colour": 1], "bedtime.colour"),
        ]
        for (patch, field) in failures {
            #expect(throws: CommandError.self, "\(patch)") { try every.applying(patch) }
            do {
                _ = try every.applying(patch.merging(["volume": 80]) { a, _ in a })
            } catch {
                #expect(error.field == field, "\(patch): \(error)")
            }
        }
    }
}

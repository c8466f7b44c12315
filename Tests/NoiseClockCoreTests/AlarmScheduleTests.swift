import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

private func zone(_ name: String) -> Zone {
    guard let zone = Zone(identifier: name) else { fatalError("unknown zone \(name)") }
    return zone
}

/// Foundation's ICU zone of the same name: the oracle the assertions read wall-clock fields with.
private func icu(_ zone: Zone) -> TimeZone {
    guard let icu = TimeZone(identifier: zone.identifier) else { fatalError("ICU has no zone \(zone)") }
    return icu
}

/// An instant given as UTC wall time, built with a fixed UTC calendar.
private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: 0)!
    return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
        ?? Date(timeIntervalSince1970: 0)
}

private func alarm(_ time: String, days: Set<Weekday> = [], enabled: Bool = true, skipNext: String? = nil) -> Alarm {
    Alarm(id: "a", time: AlarmTime(time) ?? AlarmTime(hour: 0, minute: 0)!, days: days, enabled: enabled, sound: "digital-alarm", skipNext: skipNext)
}

@Suite("Alarm times and validation")
struct AlarmModelTests {
    @Test("HH:MM parses; anything else does not", arguments: [
        ("07:30", "07:30"), ("7:05", "07:05"), ("00:00", "00:00"), ("23:59", "23:59"),
    ])
    func validTimes(text: String, expected: String) {
        #expect(AlarmTime(text)?.description == expected)
    }

    @Test("invalid times are rejected", arguments: ["24:00", "12:60", "7:5", "0730", "", "ab:cd", "-1:30", "07:30:00", "٠٧:٣٠"])
    func invalidTimes(text: String) {
        #expect(AlarmTime(text) == nil)
    }

    @Test("every invalid field is named, and nothing changes", arguments: [
        (#"{"time":"25:00"}"#, "time"), (#"{"label":""}"#, "label"), (#"{"days":["mon","funday"]}"#, "days"),
        (#"{"days":"mon"}"#, "days"), (#"{"volume":101}"#, "volume"), (#"{"snooze_min":6}"#, "snooze_min"),
        (#"{"fade_in_s":-1}"#, "fade_in_s"), (#"{"ring_timeout_min":0}"#, "ring_timeout_min"), (#"{"enabled":"yes"}"#, "enabled"),
    ])
    func invalidFields(payload: String, field: String) throws {
        guard case .success(.object(let members)) = CommandPayload.decode(Array(payload.utf8)).payload else {
            Issue.record("payload did not decode")
            return
        }
        let original = alarm("07:30")
        do {
            _ = try AlarmFields(CommandArguments(members)).applied(to: original)
            Issue.record("expected an error naming \(field)")
        } catch {
            #expect(error.field == field)
            #expect(error.code == .invalidField)
        }
    }

    @Test("a label over 64 characters is rejected; 64 is fine")
    func labelLength() throws {
        let ok = try AlarmFields(CommandArguments(["label": .string(String(repeating: "x", count: 64))])).applied(to: alarm("07:30"))
        #expect(ok.label.count == 64)
        #expect(throws: CommandError.self) {
            _ = try AlarmFields(CommandArguments(["label": .string(String(repeating: "x", count: 65))])).applied(to: alarm("07:30"))
        }
    }

    @Test("the alarm object carries SPEC §3's fields, days in week order")
    func json() {
        var a = alarm("06:45", days: [.fri, .mon])
        a.label = "Work"
        let json = a.json(nextFire: "2026-11-23T06:45:00+01:00")
        #expect(json.objectValue.map { Set($0.keys) } == [
            "id", "time", "days", "label", "enabled", "sound", "volume", "snooze_min", "fade_in_s", "ring_timeout_min", "skip_next", "skip_holidays", "next_fire",
            "escalate_after_s", "escalate_sound", "sunrise_min", "lights", "briefing", "earlier_if", "calendar",
        ])
        #expect(json.objectValue?["days"] == ["mon", "fri"])
        #expect(json.objectValue?["volume"] == 80)
        #expect(json.objectValue?["snooze_min"] == 9)
        #expect(json.objectValue?["fade_in_s"] == 30)
        #expect(json.objectValue?["ring_timeout_min"] == 10)
    }
}

@Suite("Next fire: exact cases")
struct AlarmScheduleTests {
    let berlin = zone("Europe/Berlin"), newYork = zone("America/New_York")

    @Test("a one-shot alarm fires today when its time is still ahead, else tomorrow")
    func oneShot() {
        // 2026-11-22 is a Sunday; 06:00 UTC is 07:00 in Berlin (CET, +01:00).
        let now = utc(2026, 11, 22, 6, 0)
        #expect(AlarmSchedule.nextFire(of: alarm("07:30"), after: now, in: berlin) == utc(2026, 11, 22, 6, 30))
        #expect(AlarmSchedule.nextFire(of: alarm("06:30"), after: now, in: berlin) == utc(2026, 11, 23, 5, 30))
        // Exactly at the fire time, the next one is tomorrow: "after" is strict.
        #expect(AlarmSchedule.nextFire(of: alarm("07:00"), after: now, in: berlin) == utc(2026, 11, 23, 6, 0))
    }

    @Test("a repeating alarm fires on its next allowed day")
    func repeating() {
        // Sunday 2026-11-22 07:00 Berlin: a weekday alarm at 06:30 fires Monday.
        let now = utc(2026, 11, 22, 6, 0)
        let weekdays: Set<Weekday> = [.mon, .tue, .wed, .thu, .fri]
        #expect(AlarmSchedule.nextFire(of: alarm("06:30", days: weekdays), after: now, in: berlin) == utc(2026, 11, 23, 5, 30))
        #expect(AlarmSchedule.nextFire(of: alarm("06:30", days: [.sat]), after: now, in: berlin) == utc(2026, 11, 28, 5, 30))
        // Only today's day, time already past: a week later.
        #expect(AlarmSchedule.nextFire(of: alarm("06:30", days: [.sun]), after: now, in: berlin) == utc(2026, 11, 29, 5, 30))
    }

    @Test("a disabled alarm has no next fire")
    func disabled() {
        #expect(AlarmSchedule.nextFire(of: alarm("06:30", enabled: false), after: utc(2026, 11, 22, 0, 0), in: berlin) == nil)
    }

    @Test("skip_next passes over that date only")
    func skipNext() {
        let now = utc(2026, 11, 22, 6, 0)
        let daily = Set(Weekday.allCases)
        let skipped = alarm("06:30", days: daily, skipNext: "2026-11-23")
        #expect(AlarmSchedule.nextFire(of: skipped, after: now, in: berlin) == utc(2026, 11, 24, 5, 30))
    }

    @Test("a 02:30 alarm on Berlin's spring-forward day rings at 03:30 CEST")
    func berlinSpringForward() {
        // 2026-03-29: clocks go 02:00 CET → 03:00 CEST; 02:30 does not exist, 03:30 CEST is 01:30 UTC.
        let fire = AlarmSchedule.nextFire(of: alarm("02:30"), after: utc(2026, 3, 28, 23, 0), in: berlin)
        #expect(fire == utc(2026, 3, 29, 1, 30))
    }

    @Test("a 02:30 alarm on Berlin's fall-back day rings once, at the first 02:30 (CEST)")
    func berlinFallBack() {
        // 2026-10-25: 03:00 CEST → 02:00 CET; 02:30 happens at 00:30 UTC and again at 01:30 UTC.
        let daily = alarm("02:30", days: Set(Weekday.allCases))
        let first = AlarmSchedule.nextFire(of: daily, after: utc(2026, 10, 24, 23, 0), in: berlin)
        #expect(first == utc(2026, 10, 25, 0, 30))
        // After the first, the next is the following day's, not the repeated hour.
        let next = first.flatMap { AlarmSchedule.nextFire(of: daily, after: $0, in: berlin) }
        #expect(next == utc(2026, 10, 26, 1, 30))
    }

    @Test("New York: 02:30 on spring-forward day rings at 03:30 EDT; 01:30 on fall-back day rings at the first 01:30 (EDT)")
    func newYorkChanges() {
        // 2026-03-08: 02:00 EST → 03:00 EDT; 03:30 EDT is 07:30 UTC.
        #expect(AlarmSchedule.nextFire(of: alarm("02:30"), after: utc(2026, 3, 8, 5, 0), in: newYork) == utc(2026, 3, 8, 7, 30))
        // 2026-11-01: 02:00 EDT → 01:00 EST; the first 01:30 is EDT, 05:30 UTC.
        #expect(AlarmSchedule.nextFire(of: alarm("01:30"), after: utc(2026, 11, 1, 4, 0), in: newYork) == utc(2026, 11, 1, 5, 30))
    }
}

extension AlarmScheduleTests {
    @Test("Pacific/Chatham: 02:45 on the spring-forward day, the first minute of the gap, rings at 03:45 (+13:45)")
    func chathamGapStart() {
        // 2026-09-27 02:45 +12:45 → 03:45 +13:45, both 2026-09-26 14:00 UTC. Found by the property test.
        let chatham = zone("Pacific/Chatham")
        #expect(AlarmSchedule.nextFire(of: alarm("02:45"), after: utc(2026, 9, 26, 12, 0), in: chatham) == utc(2026, 9, 26, 14, 0))
        #expect(AlarmSchedule.nextFire(of: alarm("03:15"), after: utc(2026, 9, 26, 12, 0), in: chatham) == utc(2026, 9, 26, 14, 30))
    }
}

@Suite("Next fire: properties over random alarms and instants")
struct AlarmSchedulePropertyTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "Pacific/Chatham", "UTC"]

    @Test("the next fire is in the future, on an allowed day, at HH:MM local (or shifted by a DST gap), at most 8 days ahead",
          arguments: zones)
    func properties(zoneName: String) async {
        let zone = zone(zoneName)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = icu(zone)
        // Instants across 2026-2027 (both DST changes of every zone), alarms of every shape.
        let instants = Gen.int(in: 1_767_225_600...1_830_297_600)
        let times = Gen.int(in: 0...1439)
        let dayMasks = Gen.int(in: 0...127)
        await propertyCheck(count: 400, input: instants, times, dayMasks) { seconds, minuteOfDay, mask in
            await computeInTurn {
                let days = Set(Weekday.allCases.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element))
                let time = AlarmTime(hour: minuteOfDay / 60, minute: minuteOfDay % 60) ?? AlarmTime(hour: 0, minute: 0)!
                let subject = Alarm(id: "p", time: time, days: days, sound: "digital-alarm")
                let now = Date(timeIntervalSince1970: Double(seconds))
                guard let fire = AlarmSchedule.nextFire(of: subject, after: now, in: zone) else {
                    Issue.record("an enabled alarm always has a next fire")
                    return
                }
                #expect(fire > now)
                #expect(fire.timeIntervalSince(now) <= 8 * 86_400)
                let local = calendar.dateComponents([.weekday, .hour, .minute, .second], from: fire)
                if !days.isEmpty {
                    #expect(local.weekday.flatMap(Weekday.init(calendarWeekday:)).map(days.contains) == true)
                }
                #expect(local.second == 0)
                if local.hour != time.hour || local.minute != time.minute {
                    // Only inside a spring-forward gap: HH:MM that day does not exist, and the fire is
                    // HH:MM shifted forward by the gap (the offset after minus the offset before).
                    let before = zone.secondsFromGMT(for: fire.addingTimeInterval(-6 * 3600))
                    let after = zone.secondsFromGMT(for: fire)
                    let gap = after - before
                    #expect(gap > 0, "fired at \(local.hour ?? -1):\(local.minute ?? -1) for \(time) with no gap")
                    let shifted = (time.hour * 60 + time.minute) + gap / 60
                    #expect((local.hour ?? 0) * 60 + (local.minute ?? 0) == shifted % 1440)
                }
                // No earlier occurrence was skipped: one minute before the fire, the next fire is this one.
                #expect(AlarmSchedule.nextFire(of: subject, after: fire.addingTimeInterval(-60), in: zone) == fire)
            }
        }
    }
}

@Suite("Due occurrences: restarts, clock jumps, the missed-alarm policy")
struct AlarmDueTests {
    let berlin = zone("Europe/Berlin")
    let grace: TimeInterval = 10 * 60
    // A daily 07:00 alarm; on 2026-11-23 07:00 Berlin is 06:00 UTC.
    var daily: Alarm { alarm("07:00", days: Set(Weekday.allCases)) }

    @Test("an occurrence that just came rings once; asked again later, nothing is due")
    func ringsOnce() {
        let fire = utc(2026, 11, 23, 6, 0)
        let first = AlarmSchedule.due(daily, lastHandled: utc(2026, 11, 22, 6, 0), now: fire.addingTimeInterval(0.4), grace: grace, in: berlin)
        #expect(first == [.ring(fire)])
        let again = AlarmSchedule.due(daily, lastHandled: fire, now: fire.addingTimeInterval(30), grace: grace, in: berlin)
        #expect(again.isEmpty)
    }

    @Test("the wall clock jumps forward past the fire time: inside the grace it rings, beyond it it is missed")
    func jumpForward() {
        let fire = utc(2026, 11, 23, 6, 0)
        let before = utc(2026, 11, 23, 5, 50)
        #expect(AlarmSchedule.due(daily, lastHandled: before, now: fire.addingTimeInterval(9 * 60), grace: grace, in: berlin) == [.ring(fire)])
        #expect(AlarmSchedule.due(daily, lastHandled: before, now: fire.addingTimeInterval(11 * 60), grace: grace, in: berlin) == [.missed(fire)])
    }

    @Test("the wall clock jumps back over a rung occurrence: it does not ring a second time")
    func jumpBack() {
        let fire = utc(2026, 11, 23, 6, 0)
        // Rung at 07:00; the clock is set back to 06:55 and runs past 07:00 again.
        #expect(AlarmSchedule.due(daily, lastHandled: fire, now: fire.addingTimeInterval(-300), grace: grace, in: berlin).isEmpty)
        #expect(AlarmSchedule.due(daily, lastHandled: fire, now: fire.addingTimeInterval(60), grace: grace, in: berlin).isEmpty)
    }

    @Test("a restart across fire times: older occurrences are missed, the newest rings if within the grace")
    func restartAcross() {
        // Handled Saturday 07:00; the node comes back Monday 07:05: Sunday's is missed, Monday's rings.
        let saturday = utc(2026, 11, 21, 6, 0), sunday = utc(2026, 11, 22, 6, 0), monday = utc(2026, 11, 23, 6, 0)
        let due = AlarmSchedule.due(daily, lastHandled: saturday, now: monday.addingTimeInterval(5 * 60), grace: grace, in: berlin)
        #expect(due == [.missed(sunday), .ring(monday)])
    }

    @Test("with nothing handled yet, it looks back at most 8 days")
    func horizon() {
        let now = utc(2026, 11, 23, 12, 0)
        let due = AlarmSchedule.due(daily, lastHandled: nil, now: now, grace: grace, in: berlin)
        #expect(due.count == 8)
        #expect(due.allSatisfy { if case .missed = $0 { true } else { false } })
        #expect(due.last == .missed(utc(2026, 11, 23, 6, 0)))
    }
}

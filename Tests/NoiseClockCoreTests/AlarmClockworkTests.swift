import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

/// An occurrence: which alarm, at which instant.
private struct Key: Hashable, CustomStringConvertible {
    var id: String
    var at: Date
    var description: String { "\(id)@\(Int(at.timeIntervalSince1970))" }
}

@Suite("The alarm clockwork: pure, across daylight saving, clock jumps and restarts")
struct AlarmClockworkTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe", "Pacific/Chatham", "UTC"]
    static let grace: TimeInterval = 10 * 60

    /// The instants in 2026-2027 at which `zone`'s offset changes (to the hour), to start walks near.
    static func transitions(_ zone: Zone) -> [Date] {
        let start = 1_767_225_600  // 2026-01-01
        return stride(from: start, to: start + 2 * 365 * 86_400, by: 3600).compactMap { seconds in
            let before = Date(timeIntervalSince1970: Double(seconds)), after = before.addingTimeInterval(3600)
            return zone.secondsFromGMT(for: before) != zone.secondsFromGMT(for: after) ? after : nil
        }
    }

    /// Every occurrence of `alarm` in (start, end], by chaining the next fire (itself checked against
    /// ICU by the schedule's property test).
    static func occurrences(of alarm: Alarm, from start: Date, to end: Date, in zone: Zone) -> [Date] {
        var found: [Date] = []
        var cursor = start
        while let next = AlarmSchedule.nextFire(of: alarm, after: cursor, in: zone), next <= end {
            found.append(next)
            cursor = next
        }
        return found
    }

    @Test(
        "walking the wall clock (following the wake-ups, small steps, jumps both ways, restarts) across a daylight-saving change: every occurrence rings once or is missed once, never early, never twice, rung on time when the wake-ups are followed",
        arguments: zones)
    func walks(zoneName: String) async {
        guard let zone = Zone(identifier: zoneName) else {
            Issue.record("unknown zone \(zoneName)")
            return
        }
        let transitions = Self.transitions(zone)
        await propertyCheck(count: 60, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            await computeInTurn {
                walk(seed: UInt64(seed), zone: zone, transitions: transitions)
            }
        }
    }

    private func walk(seed: UInt64, zone: Zone, transitions: [Date]) {
        var random = SplitMix64(state: seed)
        // Start up to three days before a change of offset (or anywhere in 2026 in a zone without one).
        let anchor = transitions.isEmpty
            ? Date(timeIntervalSince1970: Double(1_767_225_600 + random.int(0...364) * 86_400))
            : transitions[random.int(0...(transitions.count - 1))]
        let start = anchor.addingTimeInterval(-Double(random.int(0...(3 * 86_400))))
        // Repeating alarms, often in the small hours where the changes are; sometimes a one-shot.
        var alarms: [Alarm] = []
        for index in 0..<random.int(1...4) {
            let minuteOfDay = random.chance(60) ? random.int(60...239) : random.int(0...1439)
            let mask = random.int(1...127)
            let days = random.chance(20) ? [] : Set(Weekday.allCases.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element))
            guard let time = AlarmTime(hour: minuteOfDay / 60, minute: minuteOfDay % 60) else { continue }
            alarms.append(
                Alarm(id: "a\(index)", time: time, days: days, sound: "tone", snoozeMinutes: 5, ringTimeoutMinutes: random.int(1...10)))
        }
        let clockwork = AlarmClockwork(grace: Self.grace, upcoming: random.chance(50) ? 15 * 60 : 0)
        var state = AlarmState(book: AlarmBook(alarms: alarms, lastHandled: Dictionary(uniqueKeysWithValues: alarms.map { ($0.id, start) })))
        var now = start
        var previous: Date?
        var step = clockwork.step(state, now: now, previous: previous, zone: zone)

        var rung: [Key: Date] = [:]   // first ring (or queueing behind another ring), and when
        var missed: Set<Key> = []
        var snoozed: Set<Key> = []
        var queued: Set<Key> = []
        var announced: Set<Key> = []
        let context = "seed \(seed), start \(start), alarms \(alarms.map { "\($0.id) \($0.time) \($0.days.sorted())" })"

        for round in 0...400 {
            // The look itself.
            #expect(step.wake > now, "wake \(step.wake) not after now \(now); \(context)")
            #expect(step.wake <= now.addingTimeInterval(60), "wake more than a minute away; \(context)")
            for fire in step.nextFires.values { #expect(step.wake <= fire, "would wake after a fire at \(fire); \(context)") }
            if let change = step.state.ringing.nextChange, change > now {
                #expect(step.wake <= change, "would wake after the ring or snooze changes at \(change); \(context)")
            }
            for item in step.missed {
                let key = Key(id: item.alarmID, at: item.firesAt)
                #expect(item.firesAt <= now, "missed before it came: \(key); \(context)")
                #expect(rung[key] == nil && !missed.contains(key), "\(key) missed after it was handled; \(context)")
                missed.insert(key)
            }
            for outcome in step.outcomes {
                switch outcome {
                case .ring(let due), .waiting(let due):
                    let key = Key(id: due.alarmID, at: due.firesAt)
                    if snoozed.remove(key) != nil || queued.remove(key) != nil { continue }  // a snooze over, or its turn came
                    #expect(rung[key] == nil && !missed.contains(key), "\(key) rang twice; \(context)")
                    #expect(due.firesAt <= now, "\(key) rang early, at \(now); \(context)")
                    #expect(now.timeIntervalSince(due.firesAt) <= Self.grace, "\(key) rang \(now.timeIntervalSince(due.firesAt)) s late; \(context)")
                    rung[key] = now
                    if case .waiting = outcome { queued.insert(key) }
                case .missed(let due, _):
                    snoozed.remove(Key(id: due.alarmID, at: due.firesAt))
                case .snoozed, .dismissed, .autoSilenced, .escalated:
                    break
                }
            }
            for item in step.announcements {
                let key = Key(id: item.alarmID, at: item.firesAt)
                #expect(!announced.contains(key), "\(key) announced twice; \(context)")
                #expect(item.firesAt > now && item.firesAt.timeIntervalSince(now) <= clockwork.upcoming, "\(key) announced at \(now); \(context)")
                announced.insert(key)
            }
            state = step.state
            previous = now
            if round == 400 { break }  // the last look is recorded; the walk ends here

            // Whoever is at the bedside: snooze, dismiss, or let it ring.
            if state.ringing.phase == .ringing, let current = state.ringing.current {
                let key = Key(id: current.due.alarmID, at: current.due.firesAt)
                if random.chance(30), let outcomes = state.ringing.snooze(minutes: random.int(1...20), at: now) {
                    AlarmClockwork.settle(outcomes, in: &state)
                    snoozed.insert(key)
                } else if random.chance(70), let outcomes = state.ringing.dismiss(at: now) {
                    AlarmClockwork.settle(outcomes, in: &state)
                    // The next one waiting (if any) rings now.
                    for case .ring(let due) in outcomes { queued.remove(Key(id: due.alarmID, at: due.firesAt)) }
                }
            }

            // The next look.
            let move = random.int(0...99)
            switch move {
            case 0..<60: now = step.wake  // a node that sleeps until its wake-up
            case 60..<85: now = now.addingTimeInterval(Double(random.int(1...600)))
            case 85..<93: now = now.addingTimeInterval(Double(random.int(1800...21_600)))  // suspend, NTP step forward
            case 93..<98:
                now = now.addingTimeInterval(-Double(random.int(60...7200)))  // the clock set back
            default:
                // A restart: the store read back, the gap the node was down, then what it stored goes on.
                guard let reread = try? AlarmState(stored: JSONValue.parse(state.stored.serializedBytes)) else {
                    Issue.record("the stored state does not read back; \(context)")
                    return
                }
                #expect(reread == state, "the stored state reads back different; \(context)")
                now = now.addingTimeInterval(Double(random.int(0...10_800)))
                let resumed = clockwork.resume(reread, now: now)
                state = resumed.state
                previous = nil
                for case .missed(let due, _) in resumed.outcomes { snoozed.remove(Key(id: due.alarmID, at: due.firesAt)) }
                for case .ring(let due) in resumed.outcomes { snoozed.remove(Key(id: due.alarmID, at: due.firesAt)) }
            }
            let followed = move < 60
            step = clockwork.step(state, now: now, previous: previous, zone: zone)
            if followed {
                // Followed wake-ups ring on the dot: nothing that came due is late.
                for case .ring(let due) in step.outcomes where rung[Key(id: due.alarmID, at: due.firesAt)] == nil && due.firesAt > previous ?? .distantPast {
                    #expect(due.firesAt == now, "\(due.alarmID) due at \(due.firesAt) rang at \(now) after a followed wake-up; \(context)")
                }
            }
        }

        // Every occurrence of a repeating alarm up to where the walk ended was handled: rung or missed.
        for alarm in alarms where !alarm.isOneShot {
            for instant in Self.occurrences(of: alarm, from: start, to: now, in: zone) {
                let key = Key(id: alarm.id, at: instant)
                #expect(rung[key] != nil || missed.contains(key), "\(key) was neither rung nor missed; \(context)")
            }
        }
    }

    @Test("the wake-up is the earliest of the next fire, the ring timeout, the snooze end and the announcement, and at most a minute away")
    func wakeUp() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        // 2026-11-23 06:58:30 UTC is 07:58:30 in Berlin; a daily 08:00 alarm fires at 07:00 UTC.
        let now = UTC.date(2026, 11, 23, 6, 58, 30)
        let alarm = Alarm(id: "a", time: try #require(AlarmTime("08:00")), days: Set(Weekday.allCases), sound: "tone")
        let state = AlarmState(book: AlarmBook(alarms: [alarm], lastHandled: ["a": now]))
        #expect(AlarmClockwork(grace: 600).step(state, now: now, previous: nil, zone: berlin).wake == UTC.date(2026, 11, 23, 6, 59))
        let nearer = UTC.date(2026, 11, 23, 6, 59, 30)
        #expect(AlarmClockwork(grace: 600).step(state, now: nearer, previous: nil, zone: berlin).wake == UTC.date(2026, 11, 23, 7, 0))
        // Announcing 15 minutes ahead: at 07:44:10 the announcement at 07:45 comes before the minute.
        let early = UTC.date(2026, 11, 23, 6, 44, 10)
        let announcing = AlarmClockwork(grace: 600, upcoming: 15 * 60).step(state, now: early, previous: nil, zone: berlin)
        #expect(announcing.wake == UTC.date(2026, 11, 23, 6, 45))
        #expect(announcing.announcements.isEmpty)
        let announced = AlarmClockwork(grace: 600, upcoming: 15 * 60).step(state, now: announcing.wake, previous: early, zone: berlin)
        #expect(announced.announcements.map(\.firesAt) == [UTC.date(2026, 11, 23, 7, 0)])
        #expect(announced.state.announced["a"] == UTC.date(2026, 11, 23, 7, 0))
        // Ringing (a 10-minute timeout): the next minute comes first.
        let ringing = AlarmClockwork(grace: 600).step(state, now: UTC.date(2026, 11, 23, 7, 0).addingTimeInterval(0.5), previous: nil, zone: berlin)
        #expect(ringing.outcomes.count == 1)
        #expect(ringing.state.ringing.nextChange == UTC.date(2026, 11, 23, 7, 10).addingTimeInterval(0.5))
        #expect(ringing.wake == UTC.date(2026, 11, 23, 7, 1))
    }
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

@Suite("The sunrise over the alarm clockwork: pure, across daylight saving, clock jumps, snoozes, a switch-off and restarts")
struct SunriseWalkTests {
    @Test(
        "walking the wall clock as the scheduler does: a sunrise is shown exactly from ring − sunrise_min to the ring, begins on the dot when the wake-ups are followed, its level is the curve's at the instant (so a jump or a restart lands on the right level) and never falls while time goes on; ringing, snoozed and awake follow the ring",
        arguments: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC"])
    func walks(zoneName: String) async {
        guard let zone = Zone(identifier: zoneName) else {
            Issue.record("unknown zone \(zoneName)")
            return
        }
        await propertyCheck(count: 40, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            await computeInTurn {
                walk(seed: UInt64(seed), zone: zone)
            }
        }
    }

    private func walk(seed: UInt64, zone: Zone) {
        var random = SplitMix64(state: seed)
        // Somewhere in 2026, a day or two before the alarms; around the spring and autumn changes too.
        let day = [79, 87, 298, 305, random.int(0...364)][random.int(0...4)]
        let start = Date(timeIntervalSince1970: Double(1_767_225_600 + day * 86_400 - random.int(0...86_400)))
        var alarms: [Alarm] = []
        for index in 0..<random.int(1...3) {
            let minute = random.int(0...1439)
            guard let time = AlarmTime(hour: minute / 60, minute: minute % 60) else { continue }
            alarms.append(
                Alarm(
                    id: "a\(index)", time: time, days: Set(Weekday.allCases), sound: "tone", snoozeMinutes: 5,
                    ringTimeoutMinutes: random.int(1...10), sunriseMinutes: random.int(1...60)))
        }
        let minutes = Dictionary(uniqueKeysWithValues: alarms.map { ($0.id, $0.sunriseMinutes) })
        let clockwork = AlarmClockwork(grace: 600)
        var state = AlarmState(book: AlarmBook(alarms: alarms, lastHandled: Dictionary(uniqueKeysWithValues: alarms.map { ($0.id, start) })))
        var now = start
        var previous: Date?
        var dismissal: WakeClockwork.Dismissal?
        var last: (view: WakeView, at: Date)?
        var followed = false
        let context = "seed \(seed), start \(start), alarms \(alarms.map { "\($0.id) \($0.time) sunrise \($0.sunriseMinutes)" })"

        for round in 0...300 {
            let step = clockwork.step(state, now: now, previous: previous, zone: zone)
            state = step.state
            let upcoming = step.nextFires.compactMap { id, fire -> WakeClockwork.Upcoming? in
                guard let alarm = try? state.book.alarm(id), alarm.enabled else { return nil }
                return WakeClockwork.Upcoming(alarmID: id, label: alarm.label, ringAt: fire, sunriseMinutes: alarm.sunriseMinutes)
            }
            let view = WakeClockwork.view(at: now, upcoming: upcoming, session: state.ringing.current, dismissal: dismissal) { minutes[$0] ?? 0 }
            let at = "round \(round) at \(now); \(context)"

            // A sunrise is exactly the window before an enabled alarm's next ring, and its level is the curve's now.
            let windows = upcoming.filter { $0.sunriseStart <= now && now < $0.ringAt }
            if state.ringing.current == nil {
                #expect((view.phase == .sunrise) == !windows.isEmpty, "phase \(view.phase), windows \(windows.map(\.alarmID)); \(at)")
            } else {
                #expect(view.phase.rawValue == state.ringing.phase.rawValue, "\(view.phase) while \(state.ringing.phase); \(at)")
                #expect(view.level == 1, "a sunrise alarm rings or snoozes with its light full; \(at)")
            }
            if view.phase == .sunrise, let id = view.alarmID, let ring = view.ringAt, let begun = view.sunriseStartedAt,
               let progress = view.progress, let level = view.level {
                #expect(step.nextFires[id] == ring, "\(id) rises for \(ring), its next fire is \(String(describing: step.nextFires[id])); \(at)")
                #expect(begun == ring.addingTimeInterval(-Double((minutes[id] ?? 0) * 60)), "\(at)")
                #expect(abs(progress - now.timeIntervalSince(begun) / ring.timeIntervalSince(begun)) < 1e-9, "\(at)")
                #expect(level == SunriseCurve.level(progress), "\(at)")
                #expect((0...1).contains(progress) && (0...1).contains(level), "\(at)")
                if let last, last.view.phase == .sunrise, last.view.alarmID == id, last.view.ringAt == ring, now >= last.at {
                    #expect(level >= (last.view.level ?? 0), "the light fell from \(last.view.level ?? 0) to \(level); \(at)")
                }
            }
            if let dismissal, state.ringing.current == nil, windows.isEmpty, now >= dismissal.at {
                let expected: WakePhase = now.timeIntervalSince(dismissal.at) < WakeClockwork.awakeSeconds ? .awake : .idle
                #expect(view.phase == expected, "\(view.phase), dismissed at \(dismissal.at); \(at)")
            }
            // Following the wake-ups from before a sunrise, the first look in it is at its first instant.
            if followed, let last, last.view.phase != .sunrise, state.ringing.current == nil,
               let first = upcoming.filter({ $0.sunriseStart > last.at && $0.sunriseStart <= now }).min(by: { $0.sunriseStart < $1.sunriseStart }) {
                #expect(now == first.sunriseStart, "the sunrise of \(first.alarmID) began at \(first.sunriseStart), first seen at \(now); \(at)")
            }
            last = (view, now)
            previous = now
            if round == 300 { break }

            // At the bedside: snooze, dismiss, switch a rising alarm off, or sleep on.
            if state.ringing.phase == .ringing, let current = state.ringing.current {
                if random.chance(30), let outcomes = state.ringing.snooze(minutes: random.int(1...9), at: now) {
                    AlarmClockwork.settle(outcomes, in: &state)
                } else if random.chance(60), let outcomes = state.ringing.dismiss(at: now) {
                    AlarmClockwork.settle(outcomes, in: &state)
                    dismissal = WakeClockwork.Dismissal(
                        alarmID: current.due.alarmID, label: current.due.label, ringAt: current.due.firesAt, at: now,
                        sunriseMinutes: minutes[current.due.alarmID] ?? 0)
                }
            } else if view.phase == .sunrise, let id = view.alarmID, random.chance(5) {
                _ = try? state.book.setEnabled(id, false)
            }

            // The next look.
            let move = random.int(0...99)
            followed = move < 65
            switch move {
            case 0..<65:
                now = nextLook(step: step, after: now, upcoming: upcoming, dismissal: dismissal, fallback: now.addingTimeInterval(60))
            case 65..<85: now = now.addingTimeInterval(Double(random.int(1...900)))
            case 85..<92: now = now.addingTimeInterval(Double(random.int(1800...14_400)))
            case 92..<97: now = now.addingTimeInterval(-Double(random.int(60...5400)))
            default:
                // A restart: what was stored, read back, goes on after a gap.
                guard let reread = try? AlarmState(stored: JSONValue.parse(state.stored.serializedBytes)) else {
                    Issue.record("the stored state does not read back; \(context)")
                    return
                }
                now = now.addingTimeInterval(Double(random.int(0...3600)))
                state = clockwork.resume(reread, now: now).state
                previous = nil
                dismissal = nil  // awake is not stored: after a restart the node is idle or rising
            }
        }
    }

    /// When the scheduler looks next: the clockwork's wake-up or the wake phases' next change.
    private func nextLook(step: AlarmClockwork.Step, after now: Date, upcoming: [WakeClockwork.Upcoming], dismissal: WakeClockwork.Dismissal?, fallback: Date) -> Date {
        let change = WakeClockwork.nextPhaseChange(after: now, upcoming: upcoming, dismissal: dismissal)
        return change.map { min($0, step.wake) } ?? step.wake
    }
}

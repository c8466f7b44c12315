import Foundation
import NoiseClockCore
import Testing

@Suite("The sunrise curve (SPEC §12): luminance whose CIE 1976 lightness is p · 100")
struct SunriseCurveTests {
    @Test("known points of CIE 1976 L*: 0 → 0, 8 → 8/κ, 50 → 18.4 %, 100 → 1; lightness is its inverse")
    func knownPoints() {
        #expect(SunriseCurve.luminance(lightness: 0) == 0)
        #expect(abs(SunriseCurve.luminance(lightness: 8) - 8 / (24389.0 / 27.0)) < 1e-12)
        // L* 50 is mid grey: Y = ((50 + 16) / 116)³ = 0.1842.
        #expect(abs(SunriseCurve.luminance(lightness: 50) - 0.184_186) < 1e-6)
        #expect(SunriseCurve.luminance(lightness: 100) == 1)
        for l in stride(from: 0.0, through: 100, by: 0.5) {
            #expect(abs(SunriseCurve.lightness(luminance: SunriseCurve.luminance(lightness: l)) - l) < 1e-9, "\(l)")
        }
    }

    @Test("a light's level starts as a faint glow, rises without a jump, and is full at the end")
    func level() {
        #expect(SunriseCurve.level(0) == 0)
        #expect(SunriseCurve.level(0.1) < 0.02, "a tenth of the way: about 1 % of full")
        #expect(abs(SunriseCurve.level(0.5) - 0.184_186) < 1e-6)
        #expect(SunriseCurve.level(1) == 1)
        var last = 0.0
        for step in 1...1000 {
            let level = SunriseCurve.level(Double(step) / 1000)
            #expect(level > last)
            #expect(level - last < 0.004, "no step over 0.4 % of full at 1/1000 of the way (\(step))")
            last = level
        }
    }

    @Test("the backlight goes from the night level to 100 % in even steps of lightness, never below the night level")
    func backlight() {
        for night in [0, 1, 5, 20, 60, 100] {
            #expect(SunriseCurve.backlight(0, from: night) == night)
            #expect(SunriseCurve.backlight(1, from: night) == 100)
            var last = night
            for step in 0...600 {
                let value = SunriseCurve.backlight(Double(step) / 600, from: night)
                #expect(value >= last, "never down (night \(night), step \(step))")
                last = value
            }
        }
        // Halfway from 5 % the lightness is halfway between 5 %'s (26.7) and 100: L* 63.4, 32 %.
        #expect(SunriseCurve.backlight(0.5, from: 5) == 32)
    }

    @Test("the next step of the backlight is where its value first goes up")
    func nextStep() throws {
        for night in [0, 5, 30] {
            var progress = 0.0, steps = 0
            while let next = SunriseCurve.nextBacklightStep(after: progress, from: night) {
                #expect(next > progress)
                let before = SunriseCurve.backlight(next - 1e-7, from: night), after = SunriseCurve.backlight(next, from: night)
                #expect(after > SunriseCurve.backlight(progress, from: night), "night \(night): no step at \(next)")
                #expect(before <= SunriseCurve.backlight(progress, from: night) || next - 1e-7 <= progress, "night \(night): stepped before \(next)")
                progress = next
                steps += 1
                try #require(steps <= 100, "more steps than percents")
            }
            #expect(SunriseCurve.backlight(progress, from: night) == 100)
            #expect(steps == 100 - night, "one step per percent from \(night)")
        }
    }
}

@Suite("The sunset of a wind-down (SPEC §13): the §12 curve run down from the face's level to the night level")
struct SunsetCurveTests {
    @Test("down from any level to any lower night level: the ends exact, never up, every value within 2 % of the perceptual curve at that instant")
    func falls() {
        for (from, to) in [(100, 5), (80, 1), (60, 0), (30, 20), (7, 5)] {
            #expect(SunriseCurve.brightness(0, from: from, to: to) == from)
            #expect(SunriseCurve.brightness(1, from: from, to: to) == to)
            let start = SunriseCurve.lightness(luminance: Double(from) / 100), end = SunriseCurve.lightness(luminance: Double(to) / 100)
            var last = from
            for step in 0...1000 {
                let p = Double(step) / 1000
                let value = SunriseCurve.brightness(p, from: from, to: to)
                #expect(value <= last, "never up (\(from) → \(to), step \(step))")
                // The curve: the luminance whose lightness moves evenly, in percent.
                let curve = SunriseCurve.luminance(lightness: start + (end - start) * p) * 100
                #expect(abs(Double(value) - curve) <= 0.5 + 1e-9, "\(value) % vs \(curve) % (\(from) → \(to), step \(step))")
                last = value
            }
        }
        // Halfway from 100 % to 5 % the lightness is halfway between 100 and 5 %'s 26.7: L* 63.4, 32 %.
        #expect(SunriseCurve.brightness(0.5, from: 100, to: 5) == 32)
        #expect(SunriseCurve.brightness(0.5, from: 5, to: 100) == SunriseCurve.backlight(0.5, from: 5), "up, it is the sunrise")
    }

    @Test("the next step down is where the value first changes, one step per percent")
    func nextStep() throws {
        for (from, to) in [(100, 5), (40, 0), (6, 5)] {
            var progress = 0.0, steps = 0
            while let next = SunriseCurve.nextBrightnessStep(after: progress, from: from, to: to) {
                #expect(next > progress)
                let was = SunriseCurve.brightness(progress, from: from, to: to)
                #expect(SunriseCurve.brightness(next, from: from, to: to) < was, "\(from) → \(to): no step at \(next)")
                #expect(SunriseCurve.brightness(max(progress, next - 1e-7), from: from, to: to) == was || next - 1e-7 <= progress, "stepped before \(next)")
                progress = next
                steps += 1
                try #require(steps <= 100, "more steps than percents")
            }
            #expect(SunriseCurve.brightness(progress, from: from, to: to) == to)
            #expect(steps == from - to, "one step per percent from \(from) to \(to)")
        }
        #expect(SunriseCurve.nextBrightnessStep(after: 0, from: 5, to: 5) == nil)
    }
}

@Suite("Wake phases (SPEC §12): idle, sunrise, ringing, snoozed, awake")
struct WakeClockworkTests {
    let ring = Date(timeIntervalSince1970: 1_795_000_000)

    func upcoming(_ id: String = "a", at ringAt: Date? = nil, minutes: Int = 30) -> WakeClockwork.Upcoming {
        WakeClockwork.Upcoming(alarmID: id, label: id.uppercased(), ringAt: ringAt ?? ring, sunriseMinutes: minutes)
    }

    func view(at offset: TimeInterval, _ upcoming: [WakeClockwork.Upcoming], session: Ringing.Session? = nil,
              dismissal: WakeClockwork.Dismissal? = nil) -> WakeView {
        WakeClockwork.view(at: ring.addingTimeInterval(offset), upcoming: upcoming, session: session, dismissal: dismissal) { _ in 30 }
    }

    @Test("before its sunrise: idle; from ring − sunrise_min: sunrise with progress and the curve's level")
    func sunrise() {
        #expect(view(at: -1801, [upcoming()]) == .idle)
        let start = view(at: -1800, [upcoming()])
        #expect(start.phase == .sunrise)
        #expect(start.progress == 0)
        #expect(start.level == 0)
        #expect(start.sunriseStartedAt == ring.addingTimeInterval(-1800))
        #expect(start.ringAt == ring)
        let half = view(at: -900, [upcoming()])
        #expect(half.progress == 0.5)
        #expect(half.level == SunriseCurve.level(0.5))
        #expect(half.json { _ in "t" }["level"] == 18.4)
        #expect(half.json { _ in "t" }["progress"] == 0.5)
        #expect(view(at: -900, [upcoming(minutes: 0)]) == .idle, "no sunrise: idle until it rings")
    }

    @Test("two sunrises under way: the earlier ring's")
    func overlapping() {
        let later = upcoming("b", at: ring.addingTimeInterval(600), minutes: 60)
        #expect(view(at: -1200, [later, upcoming()]).alarmID == "a")
        #expect(view(at: -2400, [later, upcoming()]).alarmID == "b", "only b's has begun")
    }

    @Test("ringing and snoozed come from the ring in progress; a sunrise alarm keeps its light at full")
    func ringing() {
        var ringing = Ringing()
        _ = ringing.due(Ringing.Due(alarmID: "a", label: "A", firesAt: ring, snoozeMinutes: 9, ringTimeoutMinutes: 10), at: ring)
        let rings = view(at: 5, [], session: ringing.current)
        #expect(rings.phase == .ringing)
        #expect(rings.level == 1)
        #expect(rings.sunriseStartedAt == ring.addingTimeInterval(-1800))
        _ = ringing.snooze(minutes: nil, at: ring.addingTimeInterval(10))
        let snoozed = view(at: 20, [upcoming("b", at: ring.addingTimeInterval(300))], session: ringing.current)
        #expect(snoozed.phase == .snoozed, "a snooze comes before another alarm's sunrise")
        #expect(snoozed.level == 1, "a snooze keeps the light")
        let plain = WakeClockwork.view(at: ring, upcoming: [], session: ringing.current, dismissal: nil) { _ in 0 }
        #expect(plain.level == nil)
    }

    @Test("awake for 30 minutes after a dismiss, light on after a sunrise; then idle")
    func awake() {
        let dismissal = WakeClockwork.Dismissal(alarmID: "a", label: "A", ringAt: ring, at: ring.addingTimeInterval(60), sunriseMinutes: 30)
        #expect(view(at: 60, [], dismissal: dismissal).phase == .awake)
        #expect(view(at: 60, [], dismissal: dismissal).level == 1)
        #expect(view(at: 60 + 1799, [], dismissal: dismissal).phase == .awake)
        #expect(view(at: 60 + 1800, [], dismissal: dismissal) == .idle)
        #expect(
            WakeClockwork.nextPhaseChange(after: ring.addingTimeInterval(60), upcoming: [], dismissal: dismissal)
                == ring.addingTimeInterval(60 + 1800))
    }

    @Test("the next phase change: a sunrise beginning, its ring, awake ending")
    func nextChange() {
        let next = upcoming(at: ring.addingTimeInterval(86_400))
        #expect(WakeClockwork.nextPhaseChange(after: ring, upcoming: [next], dismissal: nil) == next.sunriseStart)
        #expect(WakeClockwork.nextPhaseChange(after: next.sunriseStart, upcoming: [next], dismissal: nil) == next.ringAt)
        #expect(WakeClockwork.nextPhaseChange(after: ring, upcoming: [upcoming(minutes: 0)], dismissal: nil) == nil)
    }
}

import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The light of a sunrise (SPEC §12): perceptual, so the first minutes are a faint glow, not a step.
/// The level at progress p is the relative luminance whose CIE 1976 lightness L* is p · 100.
public enum SunriseCurve {
    /// CIE's constants: ε = (6/29)³ and κ = (29/3)³.
    static let epsilon = 216.0 / 24389.0
    static let kappa = 24389.0 / 27.0

    /// The relative luminance (0...1) of CIE 1976 lightness `lightness` (0...100).
    public static func luminance(lightness: Double) -> Double {
        let l = min(100, max(0, lightness))
        if l > kappa * epsilon {
            let f = (l + 16) / 116
            return f * f * f
        }
        return l / kappa
    }

    /// The CIE 1976 lightness (0...100) of relative luminance `luminance` (0...1).
    public static func lightness(luminance: Double) -> Double {
        let y = min(1, max(0, luminance))
        return y > epsilon ? 116 * cbrt(y) - 16 : y * kappa
    }

    /// A light's level (0...1 of full) at `progress` (0...1) of a sunrise, from off to full.
    public static func level(_ progress: Double) -> Double {
        luminance(lightness: 100 * min(1, max(0, progress)))
    }

    /// The screen's brightness (percent) at `progress` of a sunrise that starts at `night` percent:
    /// the lightness rises evenly from the night level's to full, so the first step above the night
    /// level is as gentle as the eye can tell.
    public static func backlight(_ progress: Double, from night: Int) -> Int {
        brightness(progress, from: night, to: 100)
    }

    /// The first progress after `progress` at which `backlight` gives more than it gives at
    /// `progress`; nil at full.
    public static func nextBacklightStep(after progress: Double, from night: Int) -> Double? {
        nextBrightnessStep(after: progress, from: night, to: 100)
    }

    /// The screen's brightness (percent) at `progress` (0...1) of a change from `from` to `to`
    /// percent with the lightness moving evenly: a sunrise up from the night level, or the sunset
    /// of a wind-down (SPEC §13) down to it.
    public static func brightness(_ progress: Double, from: Int, to: Int) -> Int {
        let from = max(0, min(100, from)), to = max(0, min(100, to))
        let start = lightness(luminance: Double(from) / 100), end = lightness(luminance: Double(to) / 100)
        let l = start + (end - start) * min(1, max(0, progress))
        return max(min(from, to), min(max(from, to), Int((luminance(lightness: l) * 100).rounded())))
    }

    /// The first progress after `progress` at which `brightness` gives another percent than it
    /// gives at `progress`; nil once it has reached `to`.
    public static func nextBrightnessStep(after progress: Double, from: Int, to: Int) -> Double? {
        let from = max(0, min(100, from)), to = max(0, min(100, to))
        let now = brightness(progress, from: from, to: to)
        guard now != to else { return nil }
        let rising = to > from
        // `brightness` rounds: it leaves `now` where the luminance passes now ± 0.5 %.
        let start = lightness(luminance: Double(from) / 100), end = lightness(luminance: Double(to) / 100)
        let target = lightness(luminance: (Double(now) + (rising ? 0.5 : -0.5)) / 100)
        var p = (target - start) / (end - start)
        // Floating point may land a hair short of the step: nudge until it is taken.
        var tries = 0
        while brightness(p, from: from, to: to) == now, tries < 8 {
            p = p.nextUp + 1e-9
            tries += 1
        }
        return min(1, max(p, progress.nextUp))
    }
}

/// Where a waking up is (SPEC §12, retained `B/wake`).
public enum WakePhase: String, Sendable, Hashable, CaseIterable {
    case idle, sunrise, ringing, snoozed, awake
}

/// `B/wake`: the phase, the alarm it is about, and during a sunrise how far it has come.
public struct WakeView: Sendable, Hashable {
    public var phase: WakePhase
    public var alarmID: String?
    public var label: String?
    public var ringAt: Date?
    public var sunriseStartedAt: Date?
    /// 0...1 through the sunrise; 1 once it is over (ringing, snoozed, awake after a sunrise).
    public var progress: Double?
    /// The light's level, 0...1 of full, by `SunriseCurve.level`; nil without a sunrise.
    public var level: Double?

    public static let idle = WakeView(phase: .idle)

    public init(
        phase: WakePhase, alarmID: String? = nil, label: String? = nil, ringAt: Date? = nil, sunriseStartedAt: Date? = nil,
        progress: Double? = nil, level: Double? = nil
    ) {
        self.phase = phase
        self.alarmID = alarmID
        self.label = label
        self.ringAt = ringAt
        self.sunriseStartedAt = sunriseStartedAt
        self.progress = progress
        self.level = level
    }

    /// `{"phase","alarm_id","label","ring_at","sunrise_started_at","progress","level"}`; progress
    /// to three places and level in percent to one, so a view published again is the same bytes.
    public func json(iso: (Date) -> String) -> JSONValue {
        [
            "phase": .string(phase.rawValue), "alarm_id": alarmID.map { .string($0) } ?? .null,
            "label": label.map { .string($0) } ?? .null, "ring_at": ringAt.map { .string(iso($0)) } ?? .null,
            "sunrise_started_at": sunriseStartedAt.map { .string(iso($0)) } ?? .null,
            "progress": progress.map { .number(($0 * 1000).rounded() / 1000) } ?? .null,
            "level": level.map { .number(($0 * 1000).rounded() / 10) } ?? .null,
        ]
    }
}

/// What the screen needs of a waking up: the phase, the sunrise's span while one rises, and
/// whether its light stays full (ringing, snoozed or awake after a sunrise). Changes only with the
/// phase; the screen works out the level at each instant itself.
public struct WakeLight: Sendable, Hashable {
    public var phase: WakePhase
    /// From `sunriseStartedAt` to `ringAt`, during a sunrise.
    public var sunrise: Range<Date>?
    /// The light stays full: a ring, a snooze or `awake` after a sunrise.
    public var full: Bool

    public static let none = WakeLight(phase: .idle, sunrise: nil, full: false)

    public init(phase: WakePhase, sunrise: Range<Date>?, full: Bool) {
        self.phase = phase
        self.sunrise = sunrise
        self.full = full
    }

    public init(_ view: WakeView) {
        phase = view.phase
        if view.phase == .sunrise, let start = view.sunriseStartedAt, let ring = view.ringAt, start < ring {
            sunrise = start..<ring
        } else {
            sunrise = nil
        }
        full = view.phase != .sunrise && view.level == 1
    }

    /// Progress through the sunrise at `now`, 0...1; nil outside one.
    public func progress(at now: Date) -> Double? {
        guard let sunrise else { return nil }
        let total = sunrise.upperBound.timeIntervalSince(sunrise.lowerBound)
        return min(1, max(0, now.timeIntervalSince(sunrise.lowerBound) / total))
    }
}

/// The wake phases, pure: what `B/wake` says at an instant, from the alarms' coming rings, the
/// ring in progress and the last dismissal.
public enum WakeClockwork {
    /// How long `awake` lasts after a dismiss.
    public static let awakeSeconds: TimeInterval = 30 * 60

    /// An alarm's next ring with the sunrise before it.
    public struct Upcoming: Sendable, Hashable {
        public var alarmID: String
        public var label: String
        public var ringAt: Date
        /// 0: no sunrise.
        public var sunriseMinutes: Int

        public init(alarmID: String, label: String, ringAt: Date, sunriseMinutes: Int) {
            self.alarmID = alarmID
            self.label = label
            self.ringAt = ringAt
            self.sunriseMinutes = sunriseMinutes
        }

        public var sunriseStart: Date { ringAt.addingTimeInterval(-Double(sunriseMinutes) * 60) }
    }

    /// A dismissed ring: `awake` for `awakeSeconds` from `at`.
    public struct Dismissal: Sendable, Hashable {
        public var alarmID: String
        public var label: String
        public var ringAt: Date
        public var at: Date
        /// The alarm's sunrise minutes when it rang (0: none): the light stays on while awake.
        public var sunriseMinutes: Int

        public init(alarmID: String, label: String, ringAt: Date, at: Date, sunriseMinutes: Int) {
            self.alarmID = alarmID
            self.label = label
            self.ringAt = ringAt
            self.at = at
            self.sunriseMinutes = sunriseMinutes
        }
    }

    /// The view at `now`. A ring or snooze comes first; then a sunrise under way (the earliest
    /// ring's, when two overlap); then `awake` after a dismissal; else idle.
    /// - Parameter sunriseMinutes: an alarm's sunrise minutes, for the one that rings.
    public static func view(
        at now: Date, upcoming: [Upcoming], session: Ringing.Session?, dismissal: Dismissal?, sunriseMinutes: (String) -> Int
    ) -> WakeView {
        if let session, session.phase != .idle {
            let minutes = sunriseMinutes(session.due.alarmID)
            return WakeView(
                phase: session.phase == .ringing ? .ringing : .snoozed, alarmID: session.due.alarmID, label: session.due.label,
                ringAt: session.due.firesAt,
                sunriseStartedAt: minutes > 0 ? session.due.firesAt.addingTimeInterval(-Double(minutes) * 60) : nil,
                progress: minutes > 0 ? 1 : nil, level: minutes > 0 ? 1 : nil)
        }
        if let rising = sunrise(at: now, upcoming) {
            let total = rising.ringAt.timeIntervalSince(rising.sunriseStart)
            let progress = total > 0 ? min(1, max(0, now.timeIntervalSince(rising.sunriseStart) / total)) : 1
            return WakeView(
                phase: .sunrise, alarmID: rising.alarmID, label: rising.label, ringAt: rising.ringAt,
                sunriseStartedAt: rising.sunriseStart, progress: progress, level: SunriseCurve.level(progress))
        }
        if let dismissal, now >= dismissal.at, now.timeIntervalSince(dismissal.at) < awakeSeconds {
            let lit = dismissal.sunriseMinutes > 0
            return WakeView(
                phase: .awake, alarmID: dismissal.alarmID, label: dismissal.label, ringAt: dismissal.ringAt,
                sunriseStartedAt: lit ? dismissal.ringAt.addingTimeInterval(-Double(dismissal.sunriseMinutes) * 60) : nil,
                progress: lit ? 1 : nil, level: lit ? 1 : nil)
        }
        return .idle
    }

    /// The sunrise under way at `now`: the earliest ring whose sunrise has begun and not ended.
    public static func sunrise(at now: Date, _ upcoming: [Upcoming]) -> Upcoming? {
        upcoming.filter { $0.sunriseMinutes > 0 && $0.sunriseStart <= now && now < $0.ringAt }
            .min { ($0.ringAt, $0.alarmID) < ($1.ringAt, $1.alarmID) }
    }

    /// The next instant after `now` at which the phase can change by time alone: a sunrise
    /// beginning, or `awake` ending (a ring's start and end come from the alarm clockwork).
    public static func nextPhaseChange(after now: Date, upcoming: [Upcoming], dismissal: Dismissal?) -> Date? {
        var instants = upcoming.filter { $0.sunriseMinutes > 0 }.flatMap { [$0.sunriseStart, $0.ringAt] }
        if let dismissal { instants.append(dismissal.at.addingTimeInterval(awakeSeconds)) }
        return instants.filter { $0 > now }.min()
    }
}

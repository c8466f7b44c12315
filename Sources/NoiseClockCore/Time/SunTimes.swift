import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the sun does during one local day at one place.
///
/// A day is a *solar* day: the one whose noon (the sun due south or north, its highest) is
/// nearest to 12:00 on the local date, from the midpoint after the previous noon to the midpoint
/// before the next one (about midnight to midnight in sun time). So a sunset is the one that ends
/// that day's daylight even when the clock already shows the next date: in Reykjavík in late June
/// the sun sets a few minutes after midnight, and that sunset belongs to the day before.
///
/// For a night that runs from `sunset` to `sunrise` (SPEC §9, `settings.face.night`), the simplest
/// rule covers every case below: it is night while `SunTimes.isUp` is false, and it changes at
/// `SunTimes.next(after:)`. A night with one fixed end and one end at the sun can use each case:
public enum SunDay: Sendable, Hashable {
    /// The sun rises, then sets. The night before ends at `sunrise`; the next one begins at
    /// `sunset`.
    case normal(sunrise: Date, sunset: Date)
    /// Midnight sun: the sun stays above the horizon all day, there is neither sunrise nor sunset,
    /// and a night bounded by either does not happen (a "sunset→sunrise" night is skipped).
    case polarDay
    /// The sun stays below the horizon all day: a "sunset→sunrise" night goes on all day, with the
    /// night brightness; a night bounded by one of them and a fixed time has no sun end that day.
    case polarNight
    /// The first day of a midnight sun: the sun rises and does not set again. The night ends at
    /// the sunrise and no night begins.
    case sunriseOnly(Date)
    /// The last day of a midnight sun: the sun sets without having risen that day. The night
    /// begins at the sunset.
    case sunsetOnly(Date)

    public var sunrise: Date? {
        switch self {
        case .normal(let sunrise, _), .sunriseOnly(let sunrise): sunrise
        case .polarDay, .polarNight, .sunsetOnly: nil
        }
    }

    public var sunset: Date? {
        switch self {
        case .normal(_, let sunset), .sunsetOnly(let sunset): sunset
        case .polarDay, .polarNight, .sunriseOnly: nil
        }
    }
}

/// A sunrise or a sunset, at an instant.
public struct SunEvent: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case sunrise, sunset
    }

    public var kind: Kind
    public var instant: Date

    public init(_ kind: Kind, at instant: Date) {
        self.kind = kind
        self.instant = instant
    }

    public var description: String { "\(kind.rawValue) at \(instant.timeIntervalSince1970)" }
}

/// Sunrise and sunset computed on the node from `display.latitude` and `display.longitude`, so a
/// night from sunset to sunrise needs no network service.
///
/// The sun's position follows NOAA's solar calculator (the Global Monitoring Laboratory's
/// spreadsheet, after Meeus, *Astronomical Algorithms*): declination and equation of time from the
/// sun's mean longitude and anomaly. NOAA gives it as good to about a minute for latitudes within
/// ±72°; nearer the poles, where the sun crosses the horizon at a grazing angle, a small error in
/// its height moves the time by more. Sunrise and sunset are the instants the sun's centre is
/// 0.833° below an ideal flat horizon: 0.567° of standard refraction plus 0.266° for the sun's
/// radius (its upper edge on the horizon), which is what almanacs and weather services publish.
///
/// Instead of the closed-form sunrise equation (the hour angle at noon's declination), each
/// crossing is found by bisection on the sun's height over the day: the declination then changes
/// along with the time, and days near the polar limits, where the sun rises without setting, come
/// out right instead of as a failed `acos`.
public enum SunTimes {
    /// The sun's centre at sunrise and sunset, in degrees of altitude.
    public static let horizon = -0.833

    // MARK: - Days

    /// The sunrise and sunset of `date` (a date on the wall clock of `zone`) at a place: latitude
    /// in degrees north (south negative), longitude in degrees east (west negative), both as
    /// `latitudeProblem`/`longitudeProblem` accept. Coordinates outside those ranges give `.polarNight`.
    public static func day(_ date: CivilDate, latitude: Double, longitude: Double, zone: Zone) -> SunDay {
        guard valid(latitude: latitude, longitude: longitude) else { return .polarNight }
        let place = Place(latitude: latitude, longitude: longitude)
        // 12:00 on the date's wall clock; the offset is taken twice in case noon is near a change.
        let noonUTC = Double(date.daysSinceEpoch) * 86_400 + 43_200
        let guess = noonUTC - Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: noonUTC)))
        let localNoon = noonUTC - Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: guess)))
        let noon = place.transit(near: localNoon)
        return place.day(
            previousNoon: place.transit(near: noon - 86_400), noon: noon, nextNoon: place.transit(near: noon + 86_400))
    }

    /// The first sunrise or sunset after `now`, looking at most `days` days ahead; nil when the
    /// sun neither rises nor sets in that time (a polar night or day longer than that) or the
    /// coordinates are out of range. A year covers the longest polar night, at the poles.
    public static func next(after now: Date, latitude: Double, longitude: Double, within days: Int = 366) -> SunEvent? {
        events(after: now, latitude: latitude, longitude: longitude, within: days).first { _ in true }
    }

    /// The first sunrise (or the first sunset) after `now`, looking at most `days` days ahead.
    public static func next(
        _ kind: SunEvent.Kind, after now: Date, latitude: Double, longitude: Double, within days: Int = 366
    ) -> Date? {
        events(after: now, latitude: latitude, longitude: longitude, within: days).first { $0.kind == kind }?.instant
    }

    /// Whether the sun is above the horizon (as sunrise and sunset count it) at `instant`.
    public static func isUp(at instant: Date, latitude: Double, longitude: Double) -> Bool {
        guard valid(latitude: latitude, longitude: longitude) else { return false }
        return Place(latitude: latitude, longitude: longitude).isUp(at: instant.timeIntervalSince1970)
    }

    /// Walks solar days from the one before `now`, yielding each event after `now` in order.
    private static func events(after now: Date, latitude: Double, longitude: Double, within days: Int) -> SunEventSequence {
        SunEventSequence(
            place: valid(latitude: latitude, longitude: longitude) ? Place(latitude: latitude, longitude: longitude) : nil,
            after: now.timeIntervalSince1970, days: max(0, days))
    }

    // MARK: - Checking the configuration

    /// Nil when `text` is a latitude the node can use (degrees north, −90 to 90, south negative),
    /// else the reason it is not, for `display.latitude`. Empty (YAML's null) means "not set".
    public static func latitudeProblem(_ text: String) -> String? {
        coordinateProblem(text, limit: 90, hint: "degrees north; south is negative")
    }

    /// Nil when `text` is a longitude the node can use (degrees east, −180 to 180, west
    /// negative), else the reason it is not, for `display.longitude`. Empty means "not set".
    public static func longitudeProblem(_ text: String) -> String? {
        coordinateProblem(text, limit: 180, hint: "degrees east; west is negative")
    }

    /// Nil when both coordinates are set or neither is: one alone cannot place the sun, and
    /// guessing the other would give times hours off without a word.
    public static func pairProblem(latitude: String, longitude: String) -> String? {
        guard latitude.isEmpty != longitude.isEmpty else { return nil }
        return "display.latitude and display.longitude must be set together (sunrise and sunset need both)"
    }

    private static func coordinateProblem(_ text: String, limit: Double, hint: String) -> String? {
        if text.isEmpty { return nil }
        guard let value = Double(text), value.isFinite else {
            return "must be a number from \(Int(-limit)) to \(Int(limit)) (\(hint)), not \"\(text)\""
        }
        return abs(value) <= limit ? nil : "must be from \(Int(-limit)) to \(Int(limit)) (\(hint)), not \(text)"
    }

    private static func valid(latitude: Double, longitude: Double) -> Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }
}

/// The events of successive solar days, after an instant.
private struct SunEventSequence: Sequence, IteratorProtocol {
    let place: Place?
    let after: Double
    var daysLeft: Int
    var noons: (previous: Double, current: Double)
    var pending: [SunEvent] = []

    init(place: Place?, after: Double, days: Int) {
        self.place = place
        self.after = after
        daysLeft = days + 2
        // Start a day early: the day whose noon is nearest may have begun after `after`'s events.
        let first = place?.transit(near: after - 86_400) ?? after
        noons = (place?.transit(near: first - 86_400) ?? after, first)
    }

    mutating func next() -> SunEvent? {
        guard let place else { return nil }
        while pending.isEmpty {
            guard daysLeft > 0 else { return nil }
            daysLeft -= 1
            let following = place.transit(near: noons.current + 86_400)
            let day = place.day(previousNoon: noons.previous, noon: noons.current, nextNoon: following)
            noons = (noons.current, following)
            if let sunrise = day.sunrise, sunrise.timeIntervalSince1970 > after { pending.append(SunEvent(.sunrise, at: sunrise)) }
            if let sunset = day.sunset, sunset.timeIntervalSince1970 > after { pending.append(SunEvent(.sunset, at: sunset)) }
        }
        return pending.removeFirst()
    }
}

/// A place on the Earth and the sun as seen from it; times are seconds since 1970 (UTC).
private struct Place {
    let latitude: Double
    let longitude: Double

    /// The sun's declination (degrees) and the equation of time (minutes) at `t`: NOAA's
    /// solar calculator, term for term.
    static func sun(at t: Double) -> (declination: Double, equationOfTime: Double) {
        let julianCentury = (t / 86_400 + 2_440_587.5 - 2_451_545) / 36_525
        let c = julianCentury
        let meanLongitude = (280.46646 + c * (36_000.76983 + c * 0.0003032)).truncatingRemainder(dividingBy: 360)
        let meanAnomaly = 357.52911 + c * (35_999.05029 - 0.0001537 * c)
        let eccentricity = 0.016708634 - c * (0.000042037 + 0.0000001267 * c)
        let m = radians(meanAnomaly)
        let center = sin(m) * (1.914602 - c * (0.004817 + 0.000014 * c)) + sin(2 * m) * (0.019993 - 0.000101 * c)
            + sin(3 * m) * 0.000289
        let omega = radians(125.04 - 1934.136 * c)
        let apparentLongitude = meanLongitude + center - 0.00569 - 0.00478 * sin(omega)
        let meanObliquity = 23 + (26 + (21.448 - c * (46.815 + c * (0.00059 - c * 0.001813))) / 60) / 60
        let obliquity = radians(meanObliquity + 0.00256 * cos(omega))
        let declination = degrees(asin(sin(obliquity) * sin(radians(apparentLongitude))))
        let y = tan(obliquity / 2) * tan(obliquity / 2)
        let l0 = radians(meanLongitude)
        let e = eccentricity
        let equationOfTime = 4 * degrees(
            y * sin(2 * l0) - 2 * e * sin(m) + 4 * e * y * sin(m) * cos(2 * l0) - 0.5 * y * y * sin(4 * l0)
                - 1.25 * e * e * sin(2 * m))
        return (declination, equationOfTime)
    }

    /// The sun's hour angle at `t` in degrees, −180 to 180 (0 at noon, negative in the morning).
    func hourAngle(at t: Double, equationOfTime: Double) -> Double {
        let minutesOfDay = (t / 60).truncatingRemainder(dividingBy: 1440)
        let angle = (minutesOfDay + equationOfTime + 4 * longitude) / 4 - 180
        return angle - 360 * (angle / 360).rounded()
    }

    /// The sun's geometric altitude above the horizon at `t`, in degrees.
    func altitude(at t: Double) -> Double {
        let sun = Self.sun(at: t)
        let phi = radians(latitude)
        let delta = radians(sun.declination)
        let h = radians(hourAngle(at: t, equationOfTime: sun.equationOfTime))
        return degrees(asin(max(-1, min(1, sin(phi) * sin(delta) + cos(phi) * cos(delta) * cos(h)))))
    }

    func isUp(at t: Double) -> Bool { altitude(at: t) > SunTimes.horizon }

    /// The sun's transit (local solar noon) nearest to `t`: the hour angle falls 360° a day.
    func transit(near t: Double) -> Double {
        var noon = t
        for _ in 0..<3 {
            noon -= hourAngle(at: noon, equationOfTime: Self.sun(at: noon).equationOfTime) / 360 * 86_400
        }
        return noon
    }

    /// The day around `noon`, from midway after the previous noon to midway before the next:
    /// consecutive days share their bounds, so no event is counted twice or lost between them.
    func day(previousNoon: Double, noon: Double, nextNoon: Double) -> SunDay {
        guard isUp(at: noon) else { return .polarNight }
        let start = (previousNoon + noon) / 2
        let end = (noon + nextNoon) / 2
        let sunrise = isUp(at: start) ? nil : crossing(from: start, to: noon)
        let sunset = isUp(at: end) ? nil : crossing(from: end, to: noon)
        switch (sunrise, sunset) {
        case (let rise?, let set?): return .normal(sunrise: date(rise), sunset: date(set))
        case (let rise?, nil): return .sunriseOnly(date(rise))
        case (nil, let set?): return .sunsetOnly(date(set))
        case (nil, nil): return .polarDay
        }
    }

    /// Where the sun crosses the horizon between `down` (below it) and `up` (above it), to
    /// half a second: bisection needs only that the two ends are on either side.
    private func crossing(from down: Double, to up: Double) -> Double {
        var (below, above) = (down, up)
        while abs(above - below) > 0.5 {
            let middle = (below + above) / 2
            if isUp(at: middle) { above = middle } else { below = middle }
        }
        return (below + above) / 2
    }

    private func date(_ t: Double) -> Date { Date(timeIntervalSince1970: t.rounded()) }
}

private func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

private func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

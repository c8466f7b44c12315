import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem

/// What the node knows of its screen, for the display controller: a name (the backlight folder, or
/// `command` for on/off commands) and a way to set its brightness (0 turns it off).
public struct ScreenHandle: Sendable {
    public var name: String
    /// A change to a brightness, 0-100: called on the controller's executor, it takes the change's
    /// place in line; the change it returns sets the screen and throws what went wrong (a
    /// permission, a command that failed). A change may take a while (an on/off command runs up to
    /// its timeout), so it must not block the executor; changes awaited together may finish in any
    /// order, and the screen must end at the one asked for last.
    public var setBrightness: @Sendable (Int) -> @Sendable () async throws -> Void

    public nonisolated init(name: String, setBrightness: @escaping @Sendable (Int) -> @Sendable () async throws -> Void) {
        self.name = name
        self.setBrightness = setBrightness
    }
}

/// The screen (SPEC §9): night or day by the face's schedule, the brightness that goes with it,
/// a touch that wakes a dark screen for 30 s, Home Assistant's light, a sunrise (SPEC §12), which
/// raises it from the night level to full along the perceptual curve, step by step, and a ringing
/// alarm, which always lights it fully. Emits `B/display`; drives the screen when there is one. `DisplayService`
/// calls `update` at each instant `update` returns, and whenever something changes.
@NodeActor
public final class DisplayController {
    /// How long a touch lights a dark screen, and how brightly.
    public nonisolated static let wakeSeconds: TimeInterval = 30
    public nonisolated static let wakeBrightness = 20

    let hub: StateHub
    let time: NodeTime
    let screen: ScreenHandle?
    let sun: NightSchedule.SunEvent
    let logger: Logger
    nonisolated let wakeUp = WakeUp()
    /// Whether an alarm, and whether a timer, rings now (from the hub's signals).
    private var rings = (alarm: false, timer: false)
    private var ringing: Bool { rings.alarm || rings.timer }
    /// The light of a waking up (SPEC §12), from the hub's signals: a sunrise raises the screen.
    private var wakeLight = WakeLight.none
    /// The light of bedtime (SPEC §13), from the hub's signals: a wind-down's sunset lowers the
    /// screen to the night level, and the night it brings lasts until the morning.
    private var bedtimeLight = BedtimeLight.none
    /// What the kids' clock shows (SPEC §13): while it shows, the screen stays at the night level.
    private var kids = KidsState.off
    /// The night light's brightness while it shines (SPEC §13): the screen as a lamp.
    private var nightLight: Int?
    /// The room's light (SPEC §13): the latest reading of `display.lux_topic` or the sensor, and
    /// night or day by `face.night.below_lux`.
    private var roomLight: (latest: Double?, night: LuxNight?) = (nil, nil)
    /// The brightness the screen had when the sunset under way began (its starting point).
    private var sunsetFrom: (span: Range<Date>, brightness: Int)?

    /// Home Assistant's (or a verb's) brightness, until the schedule next turns night or day.
    private var manual: (brightness: Int, until: Date?)?
    private var wokenUntil: Date?
    /// Night or day at the last update.
    private var lastNight: Bool?
    private var applied: Int?
    /// The last brightness above 0, for a light turned on without one.
    private var lastLit = 100
    private var lastError: String?

    public nonisolated init(hub: StateHub, time: NodeTime, screen: ScreenHandle?, sun: @escaping NightSchedule.SunEvent, logger: Logger) {
        self.hub = hub
        self.time = time
        self.screen = screen
        self.sun = sun
        self.logger = logger
    }

    /// Follows the signals: a ringing alarm or timer lights the screen at once, and a settings
    /// change (the night schedule, the brightness) is looked at at once.
    nonisolated func watchSignals() {
        hub.signals.subscribe { [self] signal in receive(signal) }
    }

    /// What a signal changes; the screen is looked at again when it changed anything it shows.
    func receive(_ signal: NodeSignal) {
        let changed: Bool
        switch signal {
        case .alarmRinging(let on): changed = Self.replace(&rings.alarm, with: on)
        case .timerRinging(let on): changed = Self.replace(&rings.timer, with: on)
        case .settings: changed = true
        case .alarms, .audioFailed, .radioStations, .briefing, .weather, .agenda: changed = false
        case .wake(let light): changed = Self.replace(&wakeLight, with: light)
        case .bedtime(let light): changed = Self.replace(&bedtimeLight, with: light)
        case .kids(let shown): changed = Self.replace(&kids, with: shown)
        case .nightLight(let level): changed = Self.replace(&nightLight, with: level)
        }
        if changed { wakeUp.wake() }
    }

    /// Sets `state` to `value`; true when that changed it.
    private static func replace<T: Equatable>(_ state: inout T, with value: T) -> Bool {
        defer { state = value }
        return state != value
    }

    /// A reading of the room's light, in lux: looked at at once.
    func observeLux(_ lux: Double) {
        let now = time.now()
        let belowLux = time.settings.current.face.night.belowLux
        roomLight.latest = lux
        if roomLight.night?.belowLux != belowLux { roomLight.night = belowLux.map { LuxNight(belowLux: $0) } }
        _ = roomLight.night?.observe(lux, at: now)
        wakeUp.wake()
    }

    /// Night or day by the room's light at `now`, and when that may change next; nil when the
    /// night does not follow the light (no `below_lux`, or no reading yet).
    private func nightByLight(at now: Date, belowLux: Double?) -> (lux: Double?, state: NightSchedule.State?) {
        if roomLight.night?.belowLux != belowLux {
            // A new threshold decides from the latest reading at once.
            roomLight.night = belowLux.map { LuxNight(belowLux: $0) }
            if let latest = roomLight.latest { _ = roomLight.night?.observe(latest, at: now) }
        }
        _ = roomLight.night?.look(at: now)
        guard let night = roomLight.night, let isNight = night.isNight else { return (roomLight.latest, nil) }
        return (roomLight.latest, NightSchedule.State(isNight: isNight, nextChange: night.nextDecision))
    }

    // MARK: Verbs

    /// `display/wake`: a touch. A dark screen lights for 30 s.
    public func wake() async -> JSONValue {
        wokenUntil = time.now().addingTimeInterval(Self.wakeSeconds)
        return await update().state
    }

    /// `display/power` (Home Assistant's light): off, or on at the brightness it had.
    public func power(on: Bool) async -> JSONValue {
        manual = (on ? lastLit : 0, schedule(at: time.now()).state.nextChange)
        return await update().state
    }

    /// `display/brightness`: 0-100 until the night next starts or ends.
    public func setBrightness(_ brightness: Int) async -> JSONValue {
        manual = (brightness, schedule(at: time.now()).state.nextChange)
        return await update().state
    }

    // MARK: Time

    /// Works out night or day and the brightness now, sets the screen when it changed, emits
    /// `B/display`, and returns when to look again.
    @discardableResult
    public func update() async -> (state: JSONValue, next: Date) {
        let now = time.now()
        let style = time.settings.current.face
        var (night, sunToday) = schedule(at: now)
        // With `below_lux` and a reading of the room's light, the light decides night or day.
        let (lux, byLight) = nightByLight(at: now, belowLux: style.night.belowLux)
        if let byLight { night = byLight }
        // Home Assistant's brightness lasts until night starts or ends (by the clock or the light).
        if let until = manual?.until, until <= now { manual = nil }
        if let wasNight = lastNight, wasNight != night.isNight { manual = nil }
        lastNight = night.isNight
        if let until = wokenUntil, until <= now { wokenUntil = nil }
        let isRinging = ringing
        // Bedtime: a wind-down's sunset falls from the level the screen had to the night level,
        // in the night's theme; the night it brings lasts until the night's end in the morning.
        let bedtime = bedtimeLight
        var sunsetStep: Date?
        var sunset: Int?
        if let progress = bedtime.progress(at: now), let span = bedtime.windDown {
            if sunsetFrom?.span != span {
                sunsetFrom = (span, manual?.brightness ?? (night.isNight ? style.night.brightness : style.dayBrightness))
            }
            let from = sunsetFrom?.brightness ?? style.dayBrightness
            sunset = SunriseCurve.brightness(progress, from: from, to: style.night.brightness)
            if let step = SunriseCurve.nextBrightnessStep(after: progress, from: from, to: style.night.brightness) {
                sunsetStep = span.lowerBound.addingTimeInterval(step * span.upperBound.timeIntervalSince(span.lowerBound))
            }
            night = NightSchedule.State(isNight: true, nextChange: span.upperBound)
            manual = nil
        } else if let from = bedtime.nightFrom, now >= from, !night.isNight,
                  let end = NightSchedule.nextEnd(after: from, night: style.night, zone: time.zone(), sun: sun), now < end
        {
            night = NightSchedule.State(isNight: true, nextChange: end)
        }
        if bedtime.windDown == nil { sunsetFrom = nil }
        var brightness = sunset ?? manual?.brightness ?? (night.isNight ? style.night.brightness : style.dayBrightness)
        // The kids' clock shows at the night level, whatever else asks for more: a child's room
        // is never lit by a change from Home Assistant.
        if kids != .off { brightness = min(brightness, style.night.brightness) }
        if brightness == 0, wokenUntil != nil { brightness = Self.wakeBrightness }
        // A sunrise climbs from the night level to full over the schedule; after it the light stays full.
        let light = wakeLight
        let sunriseProgress = light.progress(at: now)
        // The night light shines at its own level (over the kids' clock, which it covers), but
        // gives the screen to a sunrise or a ring and comes back after them if still on.
        if sunriseProgress == nil, let lamp = nightLight { brightness = lamp }
        var sunriseStep: Date?
        if let progress = sunriseProgress, let span = light.sunrise {
            brightness = max(brightness, SunriseCurve.backlight(progress, from: style.night.brightness))
            if let step = SunriseCurve.nextBacklightStep(after: progress, from: style.night.brightness) {
                sunriseStep = span.lowerBound.addingTimeInterval(step * span.upperBound.timeIntervalSince(span.lowerBound))
            }
        }
        if light.full || isRinging { brightness = 100 }
        if brightness > 0 { lastLit = brightness }
        if let screen, brightness != applied {
            do {
                // Marked applied first: a call that comes in while this one waits does not repeat it.
                applied = brightness
                // In line before the first suspension: the screen ends at the newest level.
                let change = screen.setBrightness(brightness)
                try await change()
                lastError = nil
            } catch {
                applied = nil
                if lastError != "\(error)" { logger.warning("the screen could not be set", metadata: ["error": "\(error)"]) }
                lastError = "\(error)"
            }
        }
        let zone = time.zone()
        let state: JSONValue = [
            "night": .bool(night.isNight), "theme": .string((night.isNight ? style.night.theme : style.theme).rawValue),
            "brightness": .number(Double(brightness)), "screen": brightness > 0 ? "on" : "off",
            "backlight": screen.map { .string($0.name) } ?? .null, "error": lastError.map { .string($0) } ?? .null,
            "sunrise": sunToday.sunrise.map { .string(ISOTime.string($0, in: zone)) } ?? .null,
            "sunset": sunToday.sunset.map { .string(ISOTime.string($0, in: zone)) } ?? .null,
            "lux": lux.map { .number(($0 * 100).rounded() / 100) } ?? .null,
        ]
        hub.publish(StateTopic.display, state)
        // At the latest every 6 hours: a day's sunrise and sunset are worked out again.
        let next = [night.nextChange, manual?.until, wokenUntil, sunriseStep, sunsetStep].compactMap { $0 }.filter { $0 > now }
            .reduce(now.addingTimeInterval(6 * 3600), min)
        return (state, next)
    }

    private func schedule(at now: Date) -> (state: NightSchedule.State, sun: (sunrise: Date?, sunset: Date?)) {
        let zone = time.zone()
        let today = LocalTime(now, in: zone).date
        let state = NightSchedule.state(at: now, night: time.settings.current.face.night, zone: zone, sun: sun)
        return (state, (sun(.sunrise, today), sun(.sunset, today)))
    }
}

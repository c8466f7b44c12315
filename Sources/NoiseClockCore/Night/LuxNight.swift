import FoundationEssentials

/// Night by the room's light (SPEC §13, `settings.face.night.below_lux`): night once the light
/// has stayed below `below_lux` for 30 s, day once it has stayed above twice that for 30 s; in
/// between, whatever it was. Pure: readings and the time come from the caller (an iio sensor read
/// at most once a second, or an MQTT topic that sends when the light changes).
///
/// A reading counts until the next: a topic that sends only changes says "still 2 lux" by saying
/// nothing, so a decision falls due 30 s after the reading that began it (`nextDecision`), not at
/// the next reading. The first reading decides at once (below the threshold: night; else day),
/// so a node started in a dark room does not light it for 30 s.
public struct LuxNight: Sendable, Hashable {
    /// How long the light must stay past a threshold.
    public static let hold: TimeInterval = 30

    public let belowLux: Double
    /// Nil until the first reading.
    public private(set) var isNight: Bool?
    /// The latest reading.
    public private(set) var lux: Double?
    /// Since when the readings have pointed away from `isNight`, if they do.
    public private(set) var since: Date?

    public init(belowLux: Double) {
        self.belowLux = belowLux
    }

    /// Day returns above this.
    public var aboveLux: Double { belowLux * 2 }

    /// When the light, if it stays as it is, decides next; nil while it points nowhere new.
    public var nextDecision: Date? { since.map { $0.addingTimeInterval(Self.hold) } }

    /// A reading at `now`; true when it changed night or day.
    public mutating func observe(_ reading: Double, at now: Date) -> Bool {
        guard reading.isFinite, reading >= 0 else { return false }
        lux = reading
        guard let night = isNight else {
            isNight = reading < belowLux
            since = nil
            return true
        }
        let pointsAway = night ? reading > aboveLux : reading < belowLux
        if !pointsAway {
            since = nil
        } else if since == nil {
            since = now
        }
        return look(at: now)
    }

    /// Time has passed to `now`; true when that changed night or day. A clock set back before the
    /// reading that began the wait starts the wait again from `now`.
    public mutating func look(at now: Date) -> Bool {
        guard let started = since, let night = isNight else { return false }
        if now < started {
            since = now
            return false
        }
        guard now.timeIntervalSince(started) >= Self.hold else { return false }
        isNight = !night
        since = nil
        return true
    }
}

/// A reading of the room's light from an MQTT message (`display.lux_topic`): a bare number
/// (a Home Assistant sensor's state), or JSON with a number in `illuminance` or `lux`
/// (Zigbee2MQTT). Nil for anything else (`unavailable`, a negative or missing value).
public enum LuxReading {
    public static func parse(_ payload: [UInt8]) -> Double? {
        let text = String(decoding: payload, as: UTF8.self).filter { !$0.isWhitespace }
        if let number = Double(text) { return valid(number) }
        guard let members = (try? JSONValue.parse(payload))?.objectValue else { return nil }
        for key in ["illuminance", "lux"] {
            if case .number(let number)? = members[key] { return valid(number) }
        }
        return nil
    }

    private static func valid(_ lux: Double) -> Double? { lux.isFinite && lux >= 0 ? lux : nil }
}

import FoundationEssentials

/// A colour of the night light, 0-255 per channel.
public struct RGBColor: Sendable, Hashable {
    public var red: Int
    public var green: Int
    public var blue: Int

    public init(red: Int, green: Int, blue: Int) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#RRGGBB` (or without the `#`), any case.
    public init?(hex text: String) {
        var digits = Substring(text)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let n = Int(digits, radix: 16) else { return nil }
        self.init(red: (n >> 16) & 255, green: (n >> 8) & 255, blue: n & 255)
    }

    /// `#RRGGBB`, upper case.
    public var hex: String {
        let n = red << 16 | green << 8 | blue
        let text = String(n, radix: 16, uppercase: true)
        return "#" + String(repeating: "0", count: 6 - text.count) + text
    }

    /// Home Assistant's form: `{"r","g","b"}`.
    public var json: JSONValue { ["r": .number(Double(red)), "g": .number(Double(green)), "b": .number(Double(blue))] }
}

/// The night light (SPEC §13): the screen as a lamp, in a colour and at a brightness, off by
/// itself after `offAfterMinutes` (0: on until turned off). Pure: the `nightlight` verb's rules,
/// the end of its minutes, and its stored and published forms.
///
/// - A command that turns it on, or gives `off_after_min` while it is on, starts its minutes from
///   then; a change of colour or brightness alone keeps its end. While it is off, a colour, a
///   brightness or minutes are kept for the next time it is turned on.
/// - Its end is a wall-clock instant; a clock set back moves it back as far, so the light still
///   lasts its minutes (a clock put forward ends it early, like any wall-clock time).
public struct NightLight: Sendable, Hashable {
    public var on = false
    public var color = RGBColor(red: 0xFF, green: 0x8A, blue: 0x3D)
    /// 1-100, the screen's brightness while it shines.
    public var brightness = 10
    public var offAfterMinutes = 20
    public var offAt: Date?

    public init() {}

    public static let fields: Set<String> = ["on", "state", "color", "brightness", "off_after_min", "transition"]
    public static let brightnesses = 1...100
    public static let minutes = 0...720

    /// The light after the `nightlight` verb's arguments at `now`; throws naming the first field at
    /// fault and changes nothing. Takes the node's form (`"on"`, `"color":"#RRGGBB"`) and Home
    /// Assistant's JSON light (`"state":"ON"`, `"color":{"r","g","b"}`, `"transition"`, ignored).
    public func applying(_ arguments: CommandArguments, now: Date) throws(CommandError) -> NightLight {
        try arguments.allowOnly(Self.fields)
        let on = try arguments.bool("on")
        let state = try arguments.bool("state")
        if let on, let state, on != state { throw .invalidField("state", "says \(state ? "ON" : "OFF") but on is \(on)") }
        if let value = arguments.values["transition"], value.numberValue == nil {
            throw .invalidField("transition", "must be a number of seconds, not \(value.serialized)")
        }
        var next = self.expired(at: now)
        if let value = arguments.values["color"] { next.color = try Self.color(value) }
        if let brightness = try arguments.int("brightness", in: Self.brightnesses) { next.brightness = brightness }
        let minutes = try arguments.int("off_after_min", in: Self.minutes)
        if let minutes { next.offAfterMinutes = minutes }
        let turnOn = on ?? state
        if let turnOn { next.on = turnOn }
        if !next.on {
            next.offAt = nil
        } else if turnOn == true || minutes != nil {
            next.offAt = next.offAfterMinutes > 0 ? now.addingTimeInterval(TimeInterval(next.offAfterMinutes * 60)) : nil
        }
        return next
    }

    /// The light at `now`: off once its end has come. A wall clock set back since `lastLook` (the
    /// previous look, later than `now`) moves the end back as far, so the light lasts its minutes;
    /// an end further away than its minutes (a restart after the clock was set back) is brought in
    /// to its minutes from `now`.
    public func expired(at now: Date, lastLook: Date? = nil) -> NightLight {
        guard on, var end = offAt else { return self }
        var next = self
        if let lastLook, lastLook > now { end = end.addingTimeInterval(-lastLook.timeIntervalSince(now)) }
        if end <= now {
            next.on = false
            next.offAt = nil
        } else {
            next.offAt = min(end, now.addingTimeInterval(TimeInterval(offAfterMinutes * 60)))
        }
        return next
    }

    /// The brightness the screen shines at, or nil while off.
    public var shining: Int? { on ? brightness : nil }

    private static func color(_ value: JSONValue) throws(CommandError) -> RGBColor {
        let color: RGBColor
        if let text = value.stringValue {
            guard let parsed = RGBColor(hex: text) else { throw .invalidField("color", "must be #RRGGBB, not \"\(text)\"") }
            color = parsed
        } else if let members = value.objectValue {
            var channels: [Int] = []
            for key in ["r", "g", "b"] {
                guard let n = members[key]?.intValue, (0...255).contains(n) else {
                    throw .invalidField("color.\(key)", "must be a whole number from 0 to 255, not \(members[key]?.serialized ?? "missing")")
                }
                channels.append(n)
            }
            color = RGBColor(red: channels[0], green: channels[1], blue: channels[2])
        } else {
            throw .invalidField("color", "must be #RRGGBB or {\"r\",\"g\",\"b\"}, not \(value.serialized)")
        }
        guard color.red + color.green + color.blue > 0 else { throw .invalidField("color", "black gives no light") }
        return color
    }

    /// `B/nightlight`: Home Assistant's JSON light (`state`, `brightness`, `color_mode`, `color`
    /// as `{"r","g","b"}`) with the node's own members beside (`on`, `hex`, `off_after_min`, `off_at`).
    public func json(iso: (Date) -> String) -> JSONValue {
        [
            "state": .string(on ? "ON" : "OFF"), "on": .bool(on), "brightness": .number(Double(brightness)),
            "color_mode": "rgb", "color": color.json, "hex": .string(color.hex),
            "off_after_min": .number(Double(offAfterMinutes)), "off_at": offAt.map { .string(iso($0)) } ?? .null,
        ]
    }

    /// The stored form (`nightlight.json`).
    public var stored: JSONValue {
        [
            "version": 1, "on": .bool(on), "color": .string(color.hex), "brightness": .number(Double(brightness)),
            "off_after_min": .number(Double(offAfterMinutes)), "off_at": offAt.map { .number($0.timeIntervalSince1970) } ?? .null,
        ]
    }

    /// Reads the stored form; throws naming what is wrong.
    public init(stored value: JSONValue) throws(CommandError) {
        guard let members = value.objectValue else { throw .invalidField("nightlight", "must be a JSON object") }
        let arguments = CommandArguments(members)
        guard let on = try arguments.bool("on") else { throw .invalidField("on", "is missing") }
        self.on = on
        let text = try arguments.requiredString("color", "is missing")
        guard let color = RGBColor(hex: text) else { throw .invalidField("color", "must be #RRGGBB, not \"\(text)\"") }
        self.color = color
        brightness = try arguments.requiredInt("brightness", in: Self.brightnesses, "is missing")
        offAfterMinutes = try arguments.requiredInt("off_after_min", in: Self.minutes, "is missing")
        switch members["off_at"] {
        case .number(let seconds)?: offAt = Date(timeIntervalSince1970: seconds)
        case .null?, nil: offAt = nil
        case let other?: throw .invalidField("off_at", "must be a number of seconds, not \(other.serialized)")
        }
    }
}

/// The clock face's style (SPEC §9, `settings.face`): theme, colours, glow, size, fonts, which
/// overlays show, and the night schedule. Changed live from the face, MQTT or Home Assistant with a
/// partial object that is deep-merged (`{"face":{"night":{"start":"sunset"}}}`).
public struct FaceStyle: Sendable, Hashable {
    public enum Theme: String, Sendable, Hashable, CaseIterable {
        /// White on black.
        case night
        /// Black on white.
        case day
        /// Dim red on black, for eyes adapted to the dark.
        case red
        /// `digit_color` on `background_color`.
        case custom
    }

    /// When the night starts or ends: a local time, or the sun (needs `display.latitude`/`longitude`).
    public enum NightEdge: Sendable, Hashable, CustomStringConvertible {
        case time(AlarmTime)
        case sunset
        case sunrise

        public init?(_ text: String) {
            switch text {
            case "sunset": self = .sunset
            case "sunrise": self = .sunrise
            default:
                guard let time = AlarmTime(text) else { return nil }
                self = .time(time)
            }
        }

        public var description: String {
            switch self {
            case .time(let time): time.description
            case .sunset: "sunset"
            case .sunrise: "sunrise"
            }
        }
    }

    public struct Night: Sendable, Hashable {
        public var enabled = false
        public var start = NightEdge.time(AlarmTime(hour: 22, minute: 0) ?? .midnight)
        public var end = NightEdge.time(AlarmTime(hour: 7, minute: 0) ?? .midnight)
        public var theme = Theme.red
        /// Screen brightness at night, 0-100 (0: the screen is off; a touch wakes it for 30 s).
        public var brightness = 5
        /// Night by the room's light (SPEC §13): night after 30 s below this many lux, day after
        /// 30 s above twice it; with a light source (`display.lux_topic`) it decides instead of
        /// `start` and `end`. Nil: the schedule decides.
        public var belowLux: Double?

        public init() {}

        /// `below_lux`: from a hundredth of a lux to 10 000 (a bright room is a few hundred).
        public static let luxRange = 0.01...10_000.0
    }

    public static let overlayNames = ["date", "weather", "battery", "next_alarm", "noise", "timers"]
    public static let fontFamilies = ["sans", "serif", "mono", "rounded"]

    public var theme = Theme.night
    public var digitColor = "#FFFFFF"
    public var backgroundColor = "#000000"
    public var glow = 30
    /// 0: as large as the screen allows; 1-100: that share of it.
    public var size = 0
    public var digitOpacity = 100
    public var overlayOpacity = 60
    /// A new digit colour each minute.
    public var randomColor = false
    /// `sans`, `serif`, `mono`, `rounded`, or an installed family's name.
    public var font = "sans"
    public var weight = 300
    public var overlays: [String: Bool] = Dictionary(uniqueKeysWithValues: overlayNames.map { ($0, true) })
    public var night = Night()
    /// Screen brightness outside the night, 0-100.
    public var dayBrightness = 100
    /// Burn-in care: the face moves a few pixels each minute.
    public var pixelShift = true

    public init() {}

    public var json: JSONValue {
        [
            "theme": .string(theme.rawValue), "digit_color": .string(digitColor), "background_color": .string(backgroundColor),
            "glow": .number(Double(glow)), "size": .number(Double(size)), "digit_opacity": .number(Double(digitOpacity)),
            "overlay_opacity": .number(Double(overlayOpacity)), "random_color": .bool(randomColor), "font": .string(font),
            "weight": .number(Double(weight)),
            "overlays": .object(overlays.mapValues { .bool($0) }),
            "night": [
                "enabled": .bool(night.enabled), "start": .string(night.start.description), "end": .string(night.end.description),
                "theme": .string(night.theme.rawValue), "brightness": .number(Double(night.brightness)),
                "below_lux": night.belowLux.map { .number($0) } ?? .null,
            ],
            "day_brightness": .number(Double(dayBrightness)), "pixel_shift": .bool(pixelShift),
        ]
    }

    /// This style with the members of `patch` (a partial `settings.face` object) laid over it.
    /// Every member is checked; the error names it by its path (`face.night.start`), and on error
    /// nothing applies.
    public func applying(_ patch: [String: JSONValue]) throws(CommandError) -> FaceStyle {
        var style = self
        let fields = PatchFields(patch, path: "face")
        try fields.allowOnly([
            "theme", "digit_color", "background_color", "glow", "size", "digit_opacity", "overlay_opacity", "random_color",
            "font", "weight", "overlays", "night", "day_brightness", "pixel_shift",
        ])
        if let theme = try fields.choice("theme", Theme.self) { style.theme = theme }
        if let color = try fields.color("digit_color") { style.digitColor = color }
        if let color = try fields.color("background_color") { style.backgroundColor = color }
        if let glow = try fields.int("glow", 0...100) { style.glow = glow }
        if let size = try fields.int("size", 0...100) { style.size = size }
        if let opacity = try fields.int("digit_opacity", 0...100) { style.digitOpacity = opacity }
        if let opacity = try fields.int("overlay_opacity", 0...100) { style.overlayOpacity = opacity }
        if let random = try fields.bool("random_color") { style.randomColor = random }
        if let font = try fields.string("font") {
            // A family name goes into CSS as a quoted string: plain characters only.
            guard !font.isEmpty, font.count <= 64,
                  font.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType != nil || " -_".unicodeScalars.contains($0) })
            else {
                throw .invalidField("face.font", "must be sans, serif, mono, rounded or a font family's name (letters, digits, spaces, - and _)")
            }
            style.font = font
        }
        if let weight = try fields.int("weight", 100...900) { style.weight = weight }
        if let overlays = try fields.object("overlays") {
            let inner = PatchFields(overlays, path: "face.overlays")
            try inner.allowOnly(Set(Self.overlayNames))
            for name in Self.overlayNames { if let on = try inner.bool(name) { style.overlays[name] = on } }
        }
        if let night = try fields.object("night") {
            let inner = PatchFields(night, path: "face.night")
            try inner.allowOnly(["enabled", "start", "end", "theme", "brightness", "below_lux"])
            if let enabled = try inner.bool("enabled") { style.night.enabled = enabled }
            if let start = try inner.edge("start") { style.night.start = start }
            if let end = try inner.edge("end") { style.night.end = end }
            if let theme = try inner.choice("theme", Theme.self) { style.night.theme = theme }
            if let brightness = try inner.int("brightness", 0...100) { style.night.brightness = brightness }
            if let value = night["below_lux"] {
                if value == .null {
                    style.night.belowLux = nil
                } else {
                    guard case .number(let lux) = value, Night.luxRange.contains(lux) else {
                        throw .invalidField("face.night.below_lux", "must be a number of lux from 0.01 to 10000, or null; not \(value.serialized)")
                    }
                    style.night.belowLux = lux
                }
            }
        }
        if let brightness = try fields.int("day_brightness", 0...100) { style.dayBrightness = brightness }
        if let shift = try fields.bool("pixel_shift") { style.pixelShift = shift }
        return style
    }

    /// `older` with `newer` laid over it, member by member, objects merged in depth: two partial
    /// `settings.face` objects as one.
    public static func merge(_ older: [String: JSONValue], _ newer: [String: JSONValue]) -> [String: JSONValue] {
        var merged = older
        for (key, value) in newer {
            if let inner = value.objectValue, let existing = merged[key]?.objectValue {
                merged[key] = .object(merge(existing, inner))
            } else {
                merged[key] = value
            }
        }
        return merged
    }
}

/// Typed reads of a partial settings object, naming the member at fault by its full path.
struct PatchFields {
    let values: [String: JSONValue]
    let path: String

    init(_ values: [String: JSONValue], path: String) {
        self.values = values
        self.path = path
    }

    func name(_ key: String) -> String { "\(path).\(key)" }

    func allowOnly(_ allowed: Set<String>) throws(CommandError) {
        if let unknown = values.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw .invalidField(name(unknown), "unknown field; expected one of \(allowed.sorted().joined(separator: ", "))")
        }
    }

    func string(_ key: String) throws(CommandError) -> String? {
        guard let value = values[key] else { return nil }
        guard let text = value.stringValue else { throw .invalidField(name(key), "must be a string, not \(value.serialized)") }
        return text
    }

    func bool(_ key: String) throws(CommandError) -> Bool? {
        guard let value = values[key] else { return nil }
        guard let flag = value.boolValue else { throw .invalidField(name(key), "must be true or false, not \(value.serialized)") }
        return flag
    }

    func int(_ key: String, _ range: ClosedRange<Int>) throws(CommandError) -> Int? {
        guard let value = values[key] else { return nil }
        guard let number = value.intValue, range.contains(number) else {
            throw .invalidField(name(key), "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value.serialized)")
        }
        return number
    }

    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _: T.Type) throws(CommandError) -> T? where T.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = T(rawValue: text) else {
            throw .invalidField(name(key), "must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\"")
        }
        return value
    }

    func color(_ key: String) throws(CommandError) -> String? {
        guard let text = try string(key) else { return nil }
        let digits = text.dropFirst()
        guard text.hasPrefix("#"), digits.count == 6, digits.allSatisfy(\.isHexDigit) else {
            throw .invalidField(name(key), "must be a colour #RRGGBB, not \"\(text)\"")
        }
        return text.uppercased()
    }

    func edge(_ key: String) throws(CommandError) -> FaceStyle.NightEdge? {
        guard let text = try string(key) else { return nil }
        guard let edge = FaceStyle.NightEdge(text) else {
            throw .invalidField(name(key), "must be HH:MM, sunset or sunrise, not \"\(text)\"")
        }
        return edge
    }

    func object(_ key: String) throws(CommandError) -> [String: JSONValue]? {
        guard let value = values[key] else { return nil }
        guard let members = value.objectValue else { throw .invalidField(name(key), "must be a JSON object") }
        return members
    }
}

/// What a meditation session is made of (SPEC §10): `settings.meditation` holds the defaults, and
/// `meditation/start` may change any of them for one session.
public struct MeditationSettings: Sendable, Hashable {
    public static let minutesRange = 1...180
    public static let preparationRange = 0...300
    /// 0: no interval gongs.
    public static let intervals = [0, 3, 5, 10]
    /// The background that is no sound at all.
    public static let silent = "silent"

    public var minutes = 10
    public var preparationSeconds = 15
    public var intervalMinutes = 0
    /// `silent`, or a noise sound's id.
    public var background = MeditationSettings.silent
    public var backgroundVolume = 15
    /// A gong's id (catalog kind `gong`).
    public var gong = "singing-bowl"
    public var volume = 70

    public init() {}

    public init(
        minutes: Int, preparationSeconds: Int, intervalMinutes: Int, background: String, backgroundVolume: Int, gong: String, volume: Int
    ) {
        self.minutes = minutes
        self.preparationSeconds = preparationSeconds
        self.intervalMinutes = intervalMinutes
        self.background = background
        self.backgroundVolume = backgroundVolume
        self.gong = gong
        self.volume = volume
    }

    public static let fields: Set<String> = ["minutes", "preparation_s", "interval_min", "background", "background_volume", "gong", "volume"]

    public var json: JSONValue {
        [
            "minutes": .number(Double(minutes)), "preparation_s": .number(Double(preparationSeconds)),
            "interval_min": .number(Double(intervalMinutes)), "background": .string(background),
            "background_volume": .number(Double(backgroundVolume)), "gong": .string(gong), "volume": .number(Double(volume)),
        ]
    }

    /// These settings with the members of `patch` laid over them. Every member is checked and
    /// named by its path (`meditation.minutes`); on error nothing applies. Sounds are checked for
    /// their shape only here; `resolvingSounds` checks them against the catalog.
    public func applying(_ patch: [String: JSONValue], path: String = "meditation") throws(CommandError) -> MeditationSettings {
        var next = self
        let fields = PatchFields(patch, path: path)
        try fields.allowOnly(Self.fields)
        if let minutes = try fields.int("minutes", Self.minutesRange) { next.minutes = minutes }
        if let seconds = try fields.int("preparation_s", Self.preparationRange) { next.preparationSeconds = seconds }
        if let interval = try fields.int("interval_min", 0...10) {
            guard Self.intervals.contains(interval) else {
                throw .invalidField(fields.name("interval_min"), "must be 0 (no interval gongs), 3, 5 or 10, not \(interval)")
            }
            next.intervalMinutes = interval
        }
        if let background = try fields.string("background") {
            guard SoundCatalog.isPlainName(background) else {
                throw .invalidField(fields.name("background"), "must be silent or a noise sound's id or name")
            }
            next.background = background
        }
        if let volume = try fields.int("background_volume", 0...100) { next.backgroundVolume = volume }
        if let gong = try fields.string("gong") {
            guard SoundCatalog.isPlainName(gong) else { throw .invalidField(fields.name("gong"), "must be a gong's id or name") }
            next.gong = gong
        }
        if let volume = try fields.int("volume", 0...100) { next.volume = volume }
        return next
    }

    /// `patch` with its `background` and `gong` resolved to catalog ids (a name is accepted, any
    /// case); a sound the catalog does not have, or of the wrong kind, is `not_found` naming the
    /// member (`meditation.gong`), so no unknown sound is ever stored.
    public static func resolvingSounds(
        _ patch: [String: JSONValue], in catalog: SoundCatalog, path: String = "meditation"
    ) throws(CommandError) -> [String: JSONValue] {
        var resolved = patch
        let prefix = path.isEmpty ? "" : "\(path)."
        if let background = patch["background"]?.stringValue, background.lowercased() != silent {
            guard let sound = catalog.sound(named: background), sound.kind == .noise else {
                throw CommandError(.notFound, "no noise sound \"\(background)\" (or silent)", field: prefix + "background")
            }
            resolved["background"] = .string(sound.id)
        } else if patch["background"] != nil {
            resolved["background"] = .string(silent)
        }
        if let gong = patch["gong"]?.stringValue {
            guard let sound = catalog.sound(named: gong), sound.kind == .gong else {
                throw CommandError(.notFound, "no gong \"\(gong)\"", field: prefix + "gong")
            }
            resolved["gong"] = .string(sound.id)
        }
        return resolved
    }
}

/// `meditation/start`: `{"minutes","preparation_s","interval_min","background","background_volume",
/// "gong","volume"}`, each optional (the rest from `settings.meditation`); a bare number is minutes.
public struct MeditationDraft: Sendable, Hashable {
    /// The members given, checked for range and shape.
    public var members: [String: JSONValue]

    public init(_ arguments: CommandArguments) throws(CommandError) {
        try arguments.allowOnly(MeditationSettings.fields)
        var members = arguments.values
        // A bare number arrives as text when it came from a Home Assistant number entity.
        for key in ["minutes", "preparation_s", "interval_min", "background_volume", "volume"] {
            if let text = members[key]?.stringValue, let number = Int(text) { members[key] = .number(Double(number)) }
        }
        _ = try Self.unprefixed { () throws(CommandError) in try MeditationSettings().applying(members) }
        self.members = members
    }

    /// The session these members make over `defaults`, sounds resolved against `catalog`.
    public func session(over defaults: MeditationSettings, catalog: SoundCatalog) throws(CommandError) -> MeditationSettings {
        let resolved = try MeditationSettings.resolvingSounds(members, in: catalog, path: "")
        return try Self.unprefixed { () throws(CommandError) in try defaults.applying(resolved) }
    }

    /// A verb's fields are named as sent (`minutes`), not by their settings path (`meditation.minutes`).
    private static func unprefixed<T>(_ body: () throws(CommandError) -> T) throws(CommandError) -> T {
        do {
            return try body()
        } catch {
            var error = error
            if let field = error.field, field.hasPrefix("meditation.") { error.field = String(field.dropFirst("meditation.".count)) }
            throw error
        }
    }
}

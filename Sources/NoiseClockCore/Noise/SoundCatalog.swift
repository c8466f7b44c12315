/// One entry of `Resources/sounds.json`, `Resources/alarm-sounds.json` or
/// `Resources/gong-sounds.json` (SPEC §4, §10).
public struct Sound: Sendable, Hashable {
    /// Which catalog a sound comes from: noise, alarm tones, or gongs (the meditation gongs,
    /// category `gong`, and the timer tones, category `timer`).
    public enum Kind: String, Sendable, Hashable { case noise, alarm, gong }

    public var id: String
    /// The English name: what commands have always accepted and the CLI lists.
    public var name: String
    /// The name in other languages (SPEC §11); `name(in:)` falls back to `name`.
    public var names: [Language: String]
    /// The file name inside the catalog's own folder.
    public var file: String
    public var category: String
    public var description: String
    public var descriptions: [Language: String]
    public var isDefault: Bool
    public var kind: Kind

    public init(
        id: String, name: String, names: [Language: String] = [:], file: String, category: String, description: String = "",
        descriptions: [Language: String] = [:], isDefault: Bool = false, kind: Kind
    ) {
        self.id = id
        self.name = name
        self.names = names
        self.descriptions = descriptions
        self.file = file
        self.category = category
        self.description = description
        self.isDefault = isDefault
        self.kind = kind
    }

    public func name(in language: Language) -> String { names[language] ?? name }

    public func description(in language: Language) -> String { descriptions[language] ?? description }

    public var json: JSONValue {
        ["id": .string(id), "name": .string(name), "category": .string(category), "kind": .string(kind.rawValue)]
    }

    /// A catalog field that is a text (English) or `{"en": …, "de": …}` (English required).
    static func localized(_ value: JSONValue?) -> (english: String, others: [Language: String])? {
        if let text = value?.stringValue { return (text, [:]) }
        guard let members = value?.objectValue, let english = members["en"]?.stringValue else { return nil }
        var others: [Language: String] = [:]
        for (code, text) in members {
            guard let language = Language(rawValue: code), let text = text.stringValue else { return nil }
            if language != .en { others[language] = text }
        }
        return (english, others)
    }
}

/// The sounds the node can play: noise, alarm tones and gongs, looked up by id or by name.
public struct SoundCatalog: Sendable, Hashable {
    public private(set) var sounds: [Sound]

    public init(sounds: [Sound]) {
        self.sounds = sounds
    }

    public struct LoadError: Error, Hashable, Sendable, CustomStringConvertible {
        public var catalog: String
        public var reason: String
        public var description: String { "\(catalog): \(reason)" }

        public init(catalog: String, reason: String) {
            self.catalog = catalog
            self.reason = reason
        }
    }

    /// Parses a catalog file's JSON: an array of `{"id","name","file","category","description","default"}`,
    /// where `name` and `description` are a text or one per language (`{"en": …, "de": …}`).
    /// Ids and file names must be plain names: no `/`, no `..`, nothing hidden.
    public static func entries(json bytes: [UInt8], kind: Sound.Kind, catalog: String) throws(LoadError) -> [Sound] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw LoadError(catalog: catalog, reason: "not valid JSON: \(error.reason)")
        }
        guard case .array(let items) = value else { throw LoadError(catalog: catalog, reason: "must be a JSON array") }
        var sounds: [Sound] = []
        for (index, item) in items.enumerated() {
            guard let entry = item.objectValue,
                  let id = entry["id"]?.stringValue, let name = Sound.localized(entry["name"]),
                  let file = entry["file"]?.stringValue
            else {
                throw LoadError(
                    catalog: catalog, reason: "entry \(index) needs string id and file, and a name (a text, or one per language with en)")
            }
            let description = entry["description"] == nil ? ("", [:]) : Sound.localized(entry["description"])
            guard let description else {
                throw LoadError(catalog: catalog, reason: "entry \(index): description must be a text or one per language with en")
            }
            guard isPlainName(id), isPlainName(file) else {
                throw LoadError(catalog: catalog, reason: "entry \(index): id and file must be plain names inside the sound folder")
            }
            guard !sounds.contains(where: { $0.id == id }) else {
                throw LoadError(catalog: catalog, reason: "entry \(index): the id \(id) is used twice")
            }
            sounds.append(
                Sound(
                    id: id, name: name.english, names: name.others, file: file,
                    category: entry["category"]?.stringValue ?? kind.rawValue, description: description.english,
                    descriptions: description.others, isDefault: entry["default"]?.boolValue ?? false, kind: kind))
        }
        return sounds
    }

    /// A name that stays in its folder: not empty, no `/`, not `.`/`..`, not hidden, no NUL.
    public static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\0") && !name.contains("\\")
    }

    /// The sound with this id, or else this name in any language (any case); nil when there is none.
    public func sound(named reference: String) -> Sound? {
        if let sound = sounds.first(where: { $0.id == reference }) { return sound }
        let wanted = reference.lowercased()
        return sounds.first { sound in
            sound.name.lowercased() == wanted || sound.names.values.contains { $0.lowercased() == wanted }
        }
    }

    public func defaultSound(of kind: Sound.Kind) -> Sound? {
        sounds.first { $0.kind == kind && $0.isDefault } ?? sounds.first { $0.kind == kind }
    }

    public func sounds(of kind: Sound.Kind) -> [Sound] { sounds.filter { $0.kind == kind } }
}

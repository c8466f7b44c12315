/// A language the node speaks to people (SPEC §11): the face, Home Assistant's entity names,
/// sound names, default labels. MQTT error messages, logs and codes stay English.
public enum Language: String, Sendable, Hashable, CaseIterable, Codable {
    case en, de

    /// The language of a locale such as `de_DE`, `de-AT` or `en_US`; English when the node does
    /// not speak it.
    public init(locale: String) {
        let code = locale.prefix { $0.isLetter }.lowercased()
        self = Language(rawValue: code) ?? .en
    }

    /// Its own name, as the language select shows it in every language.
    public var endonym: String {
        switch self {
        case .en: "English"
        case .de: "Deutsch"
        }
    }
}

extension CommandArguments {
    /// The language named by `field`, nil when absent; anything but a language the node speaks is
    /// `invalid_field`.
    public func language(_ field: String = "language") throws(CommandError) -> Language? {
        guard let raw = try string(field) else { return nil }
        guard let language = Language(rawValue: raw) else {
            throw .invalidField(field, "must be \(Language.allCases.map(\.rawValue).joined(separator: " or ")), not \"\(raw)\"")
        }
        return language
    }
}

/// One language's messages: `Resources/i18n/<language>.json`, a flat JSON object of key → text,
/// or key → `{"one": …, "other": …}` where a count chooses the form. Texts name their values as
/// `{name}` placeholders, filled by `text(_:_:)`; nothing a person reads is put together from
/// English fragments.
public struct Catalog: Sendable, Hashable {
    public enum Message: Sendable, Hashable {
        case text(String)
        case plural(one: String, other: String)

        /// Every form of the message (one for a text, two for a plural).
        public var forms: [String] {
            switch self {
            case .text(let text): [text]
            case .plural(let one, let other): [one, other]
            }
        }
    }

    public let language: Language
    public let messages: [String: Message]

    public init(language: Language, messages: [String: Message]) {
        self.language = language
        self.messages = messages
    }

    public struct LoadError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Parses a catalog file. Every value must be a string or an object with string `one` and `other`.
    public init(language: Language, json bytes: [UInt8]) throws(LoadError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw LoadError(description: "\(language.rawValue).json is not valid JSON: \(error.reason)")
        }
        guard let members = value.objectValue else {
            throw LoadError(description: "\(language.rawValue).json must be a JSON object")
        }
        var messages: [String: Message] = [:]
        for (key, entry) in members {
            if let text = entry.stringValue {
                messages[key] = .text(text)
            } else if let forms = entry.objectValue, forms.count == 2,
                      let one = forms["one"]?.stringValue, let other = forms["other"]?.stringValue {
                messages[key] = .plural(one: one, other: other)
            } else {
                throw LoadError(description: "\(language.rawValue).json: \"\(key)\" must be a text or {\"one\", \"other\"}")
            }
        }
        self.init(language: language, messages: messages)
    }

    /// The message for `key` with its placeholders filled from `values`; a plural's form is chosen
    /// by `values["count"]` (one for exactly 1, as in English and German). The key itself when the
    /// catalog lacks it (a test proves the shipped catalogs never do).
    public func text(_ key: String, _ values: [String: String] = [:]) -> String {
        guard let message = messages[key] else { return key }
        let template: String
        switch message {
        case .text(let text): template = text
        case .plural(let one, let other): template = values["count"] == "1" ? one : other
        }
        return Self.fill(template, values)
    }

    /// `text(key, values)` for a message counting `count`.
    public func text(_ key: String, count: Int, _ values: [String: String] = [:]) -> String {
        text(key, values.merging(["count": String(count)]) { _, new in new })
    }

    /// The messages whose keys do not start with one of `excludedPrefixes`, as JSON for the face.
    public func json(excluding excludedPrefixes: [String] = []) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for (key, message) in messages where !excludedPrefixes.contains(where: { key.hasPrefix($0) }) {
            switch message {
            case .text(let text): members[key] = .string(text)
            case .plural(let one, let other): members[key] = ["one": .string(one), "other": .string(other)]
            }
        }
        return .object(members)
    }

    /// The placeholder names in `text`: `{label}` → `label`.
    public static func placeholders(in text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            let name = after[..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) { names.insert(String(name)) }
            rest = after[after.index(after: close)...]
        }
        return names
    }

    private static func fill(_ template: String, _ values: [String: String]) -> String {
        guard template.contains("{") else { return template }
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            let name = String(after[..<close])
            if let value = values[name] { out += value } else { out += "{\(name)}" }
            rest = after[after.index(after: close)...]
        }
        out += rest
        return out
    }
}

/// The catalogs of every language, one chosen at a time.
public struct Catalogs: Sendable, Hashable {
    private let byLanguage: [Language: Catalog]

    public init(_ catalogs: [Catalog]) {
        byLanguage = Dictionary(catalogs.map { ($0.language, $0) }) { _, last in last }
    }

    /// The catalog of `language`, else English, else an empty one (which answers keys).
    public subscript(_ language: Language) -> Catalog {
        byLanguage[language] ?? byLanguage[.en] ?? Catalog(language: language, messages: [:])
    }

    public static let empty = Catalogs([])
}

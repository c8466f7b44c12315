import FoundationEssentials
import Logging
import NoiseClockCore

/// The message catalogs and the language in force (SPEC §11): what the face is sent, what Home
/// Assistant's entities are called, and the labels new alarms and timers get. The language is the
/// settings' `language` (`node.language`, changed at run time with the `settings` verb).
public struct NodeLanguage: Sendable {
    public let catalogs: Catalogs
    private let current: @Sendable () -> Language

    public init(catalogs: Catalogs, current: @escaping @Sendable () -> Language) {
        self.catalogs = catalogs
        self.current = current
    }

    public var language: Language { current() }
    public var catalog: Catalog { catalogs[current()] }

    /// What the face is sent for `language`: every message but Home Assistant's names.
    public func faceStrings(_ language: Language) -> JSONValue {
        catalogs[language].json(excluding: ["ha."])
    }

    /// The catalogs in `resources/i18n`: one `<language>.json` for each language the node speaks.
    public static func load(resources: String) throws(Catalog.LoadError) -> Catalogs {
        var catalogs: [Catalog] = []
        for language in Language.allCases {
            let path = "\(resources)/i18n/\(language.rawValue).json"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Catalog.LoadError(description: "\(path) cannot be read")
            }
            catalogs.append(try Catalog(language: language, json: Array(data)))
        }
        return Catalogs(catalogs)
    }

    /// The shipped catalogs beside the binary (found as the sound catalog is); none, logged, when
    /// they cannot be read: the node then shows message keys, and says why in its log.
    public static func shipped(logger: Logger) -> Catalogs {
        guard let resources = SoundLibrary.locateResources() else {
            logger.error("message catalogs not found (Resources/i18n)")
            return .empty
        }
        do {
            return try load(resources: resources)
        } catch {
            logger.error("message catalogs unusable", metadata: ["error": "\(error)"])
            return .empty
        }
    }
}

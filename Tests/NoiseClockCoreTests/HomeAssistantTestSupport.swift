import Foundation
import NoiseClockCore

/// What the Home Assistant discovery tests read from the checkout: the shipped message catalogs
/// (`Resources/i18n`) and noise catalog (`Resources/sounds.json`), so the names tested are the
/// names shipped.
enum Shipped {
    static let resources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Resources")

    static let catalogs = Catalogs(Language.allCases.map { language in
        let path = resources.appendingPathComponent("i18n/\(language.rawValue).json").path
        return try! Catalog(language: language, json: Array(FileManager.default.contents(atPath: path)!))
    })

    static let noiseSounds = try! SoundCatalog.entries(
        json: Array(FileManager.default.contents(atPath: resources.appendingPathComponent("sounds.json").path)!), kind: .noise,
        catalog: "sounds.json")

    /// A noise sound with an English name and, optionally, a German one.
    static func sound(_ id: String, _ name: String, german: String? = nil) -> Sound {
        Sound(id: id, name: name, names: german.map { [.de: $0] } ?? [:], file: "\(id).mp3", category: "noise", kind: .noise)
    }
}

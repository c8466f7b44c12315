import NoiseClockCore

/// The guided meditation library's verbs (SPEC §10): `meditation/edit` renames an entry or its
/// teacher (stored in the state folder, the file untouched), `meditation/rescan` reads the folder again.
struct MeditationLibraryCommands: CommandGroup {
    let library: MeditationLibrary

    func addCommands(to router: inout CommandRouter) {
        router.add("meditation/edit", shape: .object(bareValue: nil)) { arguments in
            try arguments.allowOnly(["id", "name", "teacher"])
            let id = try arguments.requiredString("id", "the id of a guided meditation is required")
            guard arguments.has("name") || arguments.has("teacher") else {
                throw CommandError.invalidField("name", "a new name or teacher (or both) is required")
            }
            return try await library.edit(id: id, name: try Self.text("name", arguments), teacher: try Self.text("teacher", arguments))
        }
        router.add("meditation/rescan") { _ in
            await library.rescan()
        }
    }

    /// A new name or teacher: nil when absent (unchanged), "" for null or an empty string (back to the tag's value).
    private static func text(_ key: String, _ arguments: CommandArguments) throws(CommandError) -> String? {
        if arguments.values[key] == .null { return "" }
        guard let text = try arguments.string(key) else { return nil }
        return try MeditationLibrary.checkedText(text, field: key)
    }
}

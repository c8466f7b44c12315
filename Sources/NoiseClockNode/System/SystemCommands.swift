import NoiseClockCore

/// The node's own verbs: `ping` (the status) and `sounds` (the catalogs, for a control panel such
/// as the clock face's noise, alarm-sound and gong pickers), their names and descriptions in the
/// language in force, or in `{"language": "de"}`'s.
struct SystemCommands: CommandGroup {
    let status: StatusBoard
    let catalog: SoundCatalog
    let language: NodeLanguage

    func addCommands(to router: inout CommandRouter) {
        router.addImmediate("ping") { _ in status.json() }
        router.add("sounds", shape: .object(bareValue: "language")) { arguments in
            try arguments.allowOnly(["language"])
            let language = try arguments.language() ?? language.language
            return [
                "noise": .array(catalog.sounds(of: .noise).map { sound in
                    ["id": .string(sound.id), "name": .string(sound.name(in: language)), "category": .string(sound.category),
                     "description": .string(sound.description(in: language))]
                }),
                "alarm": .array(catalog.sounds(of: .alarm).map { sound in
                    ["id": .string(sound.id), "name": .string(sound.name(in: language)), "description": .string(sound.description(in: language)),
                     "default": .bool(sound.isDefault)]
                }),
                // Meditation gongs (category gong) and timer tones (category timer).
                "gong": .array(catalog.sounds(of: .gong).map { sound in
                    ["id": .string(sound.id), "name": .string(sound.name(in: language)), "category": .string(sound.category),
                     "description": .string(sound.description(in: language)), "default": .bool(sound.isDefault)]
                }),
            ]
        }
    }
}

import NoiseClockCore

/// The node's own verbs: `ping` (the status) and `sounds` (the catalogs, for a control panel such
/// as the clock face's noise, alarm-sound and gong pickers).
struct SystemCommands: CommandGroup {
    let status: StatusBoard
    let catalog: SoundCatalog

    func addCommands(to router: inout CommandRouter) {
        router.add("ping") { _ in status.json() }
        router.add("sounds") { _ in
            [
                "noise": .array(catalog.sounds(of: .noise).map { sound in
                    ["id": .string(sound.id), "name": .string(sound.name), "category": .string(sound.category),
                     "description": .string(sound.description)]
                }),
                "alarm": .array(catalog.sounds(of: .alarm).map { sound in
                    ["id": .string(sound.id), "name": .string(sound.name), "description": .string(sound.description),
                     "default": .bool(sound.isDefault)]
                }),
                // Meditation gongs (category gong) and timer tones (category timer).
                "gong": .array(catalog.sounds(of: .gong).map { sound in
                    ["id": .string(sound.id), "name": .string(sound.name), "category": .string(sound.category),
                     "description": .string(sound.description), "default": .bool(sound.isDefault)]
                }),
            ]
        }
    }
}

import FoundationEssentials

/// The ids the node gives what it keeps (alarms, timers): eight hex characters, the first a letter,
/// so that an id sent as a bare payload never reads as a JSON number (`12345678`, `123e4567`).
enum NodeIDs {
    static func new(taken: (String) -> Bool) -> String {
        while true {
            let hex = UUID().uuidString.lowercased().filter(\.isHexDigit)
            let id = String("abcdef".randomElement() ?? "a") + hex.prefix(7)
            if !taken(id) { return id }
        }
    }
}

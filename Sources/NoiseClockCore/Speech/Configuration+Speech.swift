/// The keys of speech (SPEC §16): `speech.*`.
extension Configuration {
    public struct Speech: Sendable, Hashable {
        public enum Engine: String, Sendable, Hashable, CaseIterable {
            /// The built-in voice: libespeak-ng, in the `noiseclock-speak` helper.
            case espeakNG = "espeak-ng"
            /// The user's command (Piper): the text on its stdin, WAV on its stdout.
            case command
            case none
        }

        public var engine: Engine
        /// For `engine: command`: run by `/bin/sh -c`.
        public var command: String
        /// The engine's voice; empty: the node's language (or the message's).
        public var voice: String
        /// Words a minute (espeak-ng).
        public var rate: Int
        /// 0-100, apart from the noise and alarm volumes.
        public var volume: Int
        /// A short chime before an announcement.
        public var chime: Bool
        /// When normal announcements wait; nil: never.
        public var quietHours: QuietHours?

        public init(
            engine: Engine = .espeakNG, command: String = "", voice: String = "", rate: Int = 160, volume: Int = 70, chime: Bool = true,
            quietHours: QuietHours? = QuietHours(start: 22 * 60 + 30, end: 7 * 60)
        ) {
            self.engine = engine
            self.command = command
            self.voice = voice
            self.rate = rate
            self.volume = volume
            self.chime = chime
            self.quietHours = quietHours
        }
    }
}

extension ConfigurationSchema {
    static let speechKeys: [ConfigKey] = [
        ConfigKey(path: "speech.engine", kind: .choice(Configuration.Speech.Engine.allCases.map(\.rawValue)), defaultValue: "espeak-ng", secret: false),
        ConfigKey(path: "speech.command", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "speech.voice", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "speech.rate", kind: .integer(80...450), defaultValue: "160", secret: false),
        ConfigKey(path: "speech.volume", kind: .integer(0...100), defaultValue: "70", secret: false),
        ConfigKey(path: "speech.chime", kind: .boolean, defaultValue: "true", secret: false),
        ConfigKey(path: "speech.quiet_hours.start", kind: .text, defaultValue: "22:30", secret: false),
        ConfigKey(path: "speech.quiet_hours.end", kind: .text, defaultValue: "07:00", secret: false),
    ]

    /// `speech.*`, with the checks one key alone cannot make (each error names its key).
    static func speech(_ resolved: [String: ResolvedValue], fileName: String?) throws(ConfigurationError) -> Configuration.Speech {
        func value(_ path: String) -> String { resolved[path]?.value ?? "" }
        func fail(_ path: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(key: path, source: resolved[path]?.source ?? fileName ?? "file", reason: reason)
        }
        let engine = Configuration.Speech.Engine(rawValue: value("speech.engine")) ?? .espeakNG
        let command = value("speech.command")
        if engine == .command && command.allSatisfy(\.isWhitespace) { throw fail("speech.command", "speech.engine: command needs the command to run") }
        let voice = value("speech.voice")
        if voice.count > 64 || voice.contains(where: { !($0.isLetter || $0.isNumber || "-_+.".contains($0)) }) {
            throw fail("speech.voice", "must be a voice's name such as en, de or en-us+f3, not \"\(voice)\"")
        }
        let start = value("speech.quiet_hours.start"), end = value("speech.quiet_hours.end")
        var quiet: QuietHours?
        if !(start.isEmpty && end.isEmpty) {
            guard let from = QuietHours.minutes(start) else { throw fail("speech.quiet_hours.start", "must be HH:MM, or empty with end for none") }
            guard let to = QuietHours.minutes(end) else { throw fail("speech.quiet_hours.end", "must be HH:MM, or empty with start for none") }
            quiet = from == to ? nil : QuietHours(start: from, end: to)
        }
        return Configuration.Speech(
            engine: engine, command: command, voice: voice, rate: Int(value("speech.rate")) ?? 160,
            volume: Int(value("speech.volume")) ?? 70, chime: value("speech.chime") == "true", quietHours: quiet)
    }
}

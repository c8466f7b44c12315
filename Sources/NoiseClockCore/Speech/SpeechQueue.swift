/// One thing to say (SPEC §16): an announcement, the talking clock, a briefing.
public struct Utterance: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case say
        case time
        case nextAlarm = "next_alarm"
        case briefing
    }

    public enum Priority: String, Sendable, Hashable, CaseIterable {
        /// Waits through the quiet hours.
        case normal
        /// Spoken in them too.
        case urgent
    }

    public var id: String
    /// As the face and the events show it.
    public var text: String
    /// As the engine reads it (numbers in words).
    public var spoken: String
    public var kind: Kind
    public var priority: Priority
    public var volume: Int
    public var chime: Bool
    public var language: Language

    public init(
        id: String, text: String, spoken: String? = nil, kind: Kind = .say, priority: Priority = .normal, volume: Int, chime: Bool,
        language: Language
    ) {
        self.id = id
        self.text = text
        self.spoken = spoken ?? text
        self.kind = kind
        self.priority = priority
        self.volume = volume
        self.chime = chime
        self.language = language
    }

    /// Spoken in quiet hours: an urgent message, or what the user asked for just now (the
    /// talking clock, a briefing after the alarm they dismissed).
    public var speaksInQuietHours: Bool { priority == .urgent || kind != .say }
}

/// `say`'s arguments, checked (each error names its field); the defaults are the node's.
public struct SayRequest: Sendable, Hashable {
    public static let maximumCharacters = 1000

    public var text: String
    public var volume: Int?
    public var chime: Bool?
    public var priority: Utterance.Priority
    public var language: Language?

    public init(text: String, volume: Int? = nil, chime: Bool? = nil, priority: Utterance.Priority = .normal, language: Language? = nil) {
        self.text = text
        self.volume = volume
        self.chime = chime
        self.priority = priority
        self.language = language
    }

    public init(_ arguments: CommandArguments) throws(CommandError) {
        try arguments.allowOnly(["text", "volume", "chime", "priority", "language"])
        let text = try arguments.requiredString("text", "the text to say is required")
        guard !text.allSatisfy({ $0.isWhitespace }) else { throw .invalidField("text", "must not be empty") }
        guard text.count <= Self.maximumCharacters else {
            throw .invalidField("text", "is \(text.count) characters; at most \(Self.maximumCharacters)")
        }
        // Control characters other than line breaks and tabs are not speech.
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" || $0.value == 0x7f }) else {
            throw .invalidField("text", "must not contain control characters")
        }
        var priority = Utterance.Priority.normal
        if let raw = try arguments.string("priority") {
            guard let value = Utterance.Priority(rawValue: raw) else { throw .invalidField("priority", "must be normal or urgent, not \"\(raw)\"") }
            priority = value
        }
        self.init(
            text: text, volume: try arguments.int("volume", in: 0...100), chime: try arguments.bool("chime"), priority: priority,
            language: try arguments.language())
    }
}

/// What waits to be spoken, in order (SPEC §16): at most ten; in quiet hours a normal message
/// waits (is held) and the others go ahead of it.
public struct SpeechQueue: Sendable, Hashable {
    public static let capacity = 10

    public private(set) var waiting: [Utterance] = []

    public init() {}

    public var count: Int { waiting.count }

    /// Puts `utterance` at the end; `conflict` when ten wait already. Its place (1 = next).
    public mutating func add(_ utterance: Utterance) throws(CommandError) -> Int {
        guard waiting.count < Self.capacity else {
            throw CommandError(.conflict, "\(Self.capacity) messages are waiting to be spoken already")
        }
        waiting.append(utterance)
        return waiting.count
    }

    /// Takes the first message that may be spoken now (`quiet`: in quiet hours).
    public mutating func next(quiet: Bool) -> Utterance? {
        guard let index = waiting.firstIndex(where: { !quiet || $0.speaksInQuietHours }) else { return nil }
        return waiting.remove(at: index)
    }

    /// How many wait for the quiet hours to end.
    public func held(quiet: Bool) -> Int { quiet ? waiting.filter { !$0.speaksInQuietHours }.count : 0 }

    /// Empties the queue; what was in it, in order.
    public mutating func removeAll() -> [Utterance] {
        defer { waiting = [] }
        return waiting
    }
}

/// `B/speech` (SPEC §16).
public struct SpeechState: Sendable, Hashable {
    public var engine: String
    public var speaking: (utterance: Utterance, started: String)?
    public var queued: Int
    public var held: Int
    public var quiet: Bool
    public var error: String?

    public init(engine: String, speaking: (utterance: Utterance, started: String)? = nil, queued: Int = 0, held: Int = 0, quiet: Bool = false, error: String? = nil) {
        self.engine = engine
        self.speaking = speaking
        self.queued = queued
        self.held = held
        self.quiet = quiet
        self.error = error
    }

    public static func == (a: SpeechState, b: SpeechState) -> Bool { a.json == b.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }

    public var json: JSONValue {
        [
            "engine": .string(engine),
            "speaking": speaking.map { speaking -> JSONValue in
                [
                    "id": .string(speaking.utterance.id), "text": .string(speaking.utterance.text),
                    "kind": .string(speaking.utterance.kind.rawValue), "started": .string(speaking.started),
                ]
            } ?? .null,
            "queued": .number(Double(queued)), "held": .number(Double(held)), "quiet": .bool(quiet),
            "error": error.map { .string($0) } ?? .null,
        ]
    }
}

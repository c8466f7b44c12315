/// What plays as noise, as `B/noise` says it (SPEC §2).
public struct NoiseMix: Sendable, Hashable {
    public struct Layer: Sendable, Hashable {
        public var id: String
        public var volume: Int

        public init(id: String, volume: Int) {
            self.id = id
            self.volume = volume
        }
    }

    public var playing: Bool
    public var layers: [Layer]
    /// The master noise volume, 0-100.
    public var volume: Int
    public var sleepTimerEndsAt: Double?

    public init(playing: Bool = false, layers: [Layer] = [], volume: Int = 50, sleepTimerEndsAt: Double? = nil) {
        self.playing = playing
        self.layers = layers
        self.volume = volume
        self.sleepTimerEndsAt = sleepTimerEndsAt
    }

    /// `B/noise`; `isoTime` formats the sleep timer's end (seconds since 1970).
    public func json(isoTime: (Double) -> String) -> JSONValue {
        [
            "playing": .bool(playing),
            "sounds": .array(layers.map { ["id": .string($0.id), "volume": .number(Double($0.volume))] }),
            "volume": .number(Double(volume)),
            "sleep_timer_ends_at": sleepTimerEndsAt.map { .string(isoTime($0)) } ?? .null,
        ]
    }

    /// What the store keeps: the mix and the timer, so a restart plays on.
    public var stored: JSONValue {
        [
            "playing": .bool(playing),
            "sounds": .array(layers.map { ["id": .string($0.id), "volume": .number(Double($0.volume))] }),
            "volume": .number(Double(volume)),
            "sleep_timer_ends_at": sleepTimerEndsAt.map { .number($0) } ?? .null,
        ]
    }

    public init?(stored value: JSONValue) {
        guard let members = value.objectValue, let playing = members["playing"]?.boolValue,
              let volume = members["volume"]?.intValue, (0...100).contains(volume),
              case .array(let items)? = members["sounds"]
        else { return nil }
        var layers: [Layer] = []
        for item in items {
            guard let id = item.objectValue?["id"]?.stringValue, let v = item.objectValue?["volume"]?.intValue, (0...100).contains(v)
            else { return nil }
            layers.append(Layer(id: id, volume: v))
        }
        self.init(playing: playing, layers: layers, volume: volume, sleepTimerEndsAt: members["sleep_timer_ends_at"]?.numberValue)
    }
}

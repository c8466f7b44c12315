import NoiseClockCore

extension RadioPlayer {
    /// What `radio.json` holds.
    struct Document: Equatable {
        var added: [RadioStation] = []
        var volume = 50
        var playing: StreamSession.Target?
        var sleepTimerEndsAt: Double?

        var stored: JSONValue {
            [
                "stations": .array(added.map(\.json)),
                "volume": .number(Double(volume)),
                "playing": playing.map { ["station": $0.station.map { .string($0) } ?? .null, "name": .string($0.name), "url": .string($0.url)] }
                    ?? .null,
                "sleep_timer_ends_at": sleepTimerEndsAt.map { .number($0) } ?? .null,
            ]
        }

        init() {}

        /// What was stored; a station that cannot be read is left out (and logged by the caller).
        init?(stored value: JSONValue) {
            guard let members = value.objectValue else { return nil }
            guard case .array(let items)? = members["stations"] ?? .array([]) else { return nil }
            for item in items {
                guard let fields = item.objectValue, let id = fields["id"]?.stringValue, let name = fields["name"]?.stringValue,
                      let url = fields["url"]?.stringValue
                else { continue }
                added.append(RadioStation(id: id, name: name, url: url, fallback: fields["fallback"]?.stringValue))
            }
            if let volume = members["volume"]?.intValue, (0...100).contains(volume) { self.volume = volume }
            if let playing = members["playing"]?.objectValue, let name = playing["name"]?.stringValue, let url = playing["url"]?.stringValue {
                self.playing = StreamSession.Target(station: playing["station"]?.stringValue, name: name, url: url)
            }
            sleepTimerEndsAt = members["sleep_timer_ends_at"]?.numberValue
        }
    }
}

/// A radio station the node can play (SPEC §15): the user's name for it, the address of its stream
/// or playlist, and the station an alarm falls back to when this one makes no sound.
public struct RadioStation: Sendable, Hashable, Identifiable {
    public static let maximumCount = 100
    public static let maximumNameLength = 64
    public static let maximumURLLength = 2048

    public var id: String
    public var name: String
    public var url: String
    /// Another station's id, or nil.
    public var fallback: String?

    public init(id: String, name: String, url: String, fallback: String? = nil) {
        self.id = id
        self.name = name
        self.url = url
        self.fallback = fallback
    }

    /// The object of `B/radio`'s stations and of the verbs' answers.
    public var json: JSONValue {
        ["id": .string(id), "name": .string(name), "url": .string(url), "fallback": fallback.map { .string($0) } ?? .null]
    }

    /// An id made from a name, as a user would type it: lower case letters and digits, the rest
    /// `-` ("SomaFM Drone Zone" is `somafm-drone-zone`).
    public static func id(from name: String) -> String {
        var id = ""
        for character in name.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber {
                id.append(character)
            } else if !id.isEmpty, id.last != "-" {
                id.append("-")
            }
        }
        while id.hasSuffix("-") { id.removeLast() }
        return String(id.prefix(maximumNameLength))
    }

    /// Checks an address: http or https, a host, no spaces or control characters, not too long.
    /// The error names `field`.
    public static func validateURL(_ url: String, field: String = "url") throws(CommandError) {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw .invalidField(field, "must be an http:// or https:// address")
        }
        guard url.count <= maximumURLLength else { throw .invalidField(field, "is longer than \(maximumURLLength) characters") }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw .invalidField(field, "must not contain spaces or control characters")
        }
        let rest = url.drop { $0 != ":" }.dropFirst(3)
        guard let host = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first, !host.isEmpty else {
            throw .invalidField(field, "has no host")
        }
    }

    /// Checks a name: not empty, at most 64 characters, no control characters.
    public static func validateName(_ name: String, field: String = "name") throws(CommandError) {
        guard !name.isEmpty, name.contains(where: { !$0.isWhitespace }) else { throw .invalidField(field, "must not be empty") }
        guard name.count <= maximumNameLength else { throw .invalidField(field, "is longer than \(maximumNameLength) characters") }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidField(field, "must not contain control characters")
        }
    }
}

/// The node's stations: the configuration file's and those added at run time, in their order
/// (SPEC §15). Ids are unique, names unique in any case; a fallback names another station and
/// never the station itself.
public struct RadioStations: Sendable, Hashable {
    public private(set) var stations: [RadioStation]
    /// The ids of the configuration file's stations: listed first, changed only in the file.
    public let fixed: Set<String>

    public init(_ stations: [RadioStation] = []) {
        self.stations = stations
        fixed = []
    }

    /// The file's stations, then those added at run time (one whose id or name a file's station
    /// took meanwhile is left out: the file wins).
    public init(file: [RadioStation], added: [RadioStation]) {
        var stations = file
        for station in added where !stations.contains(where: { $0.id == station.id || $0.name.lowercased() == station.name.lowercased() }) {
            stations.append(station)
        }
        // A fallback that names no station any more falls back to nothing.
        for index in stations.indices where stations[index].fallback.map({ id in !stations.contains { $0.id == id } }) ?? false {
            stations[index].fallback = nil
        }
        self.stations = Array(stations.prefix(RadioStation.maximumCount))
        fixed = Set(file.map(\.id))
    }

    /// The stations added at run time (what the store keeps).
    public var added: [RadioStation] { stations.filter { !fixed.contains($0.id) } }

    /// The station with this id, or else this name (any case).
    public func station(named reference: String) -> RadioStation? {
        stations.first { $0.id == reference } ?? stations.first { $0.name.lowercased() == reference.lowercased() }
    }

    /// `radio/station/add`: `{"name","url","fallback","id"}` (the id made from the name when not given).
    public mutating func add(_ arguments: CommandArguments) throws(CommandError) -> RadioStation {
        guard stations.count < RadioStation.maximumCount else {
            throw CommandError(.conflict, "at most \(RadioStation.maximumCount) stations")
        }
        guard let name = try arguments.string("name") else { throw .invalidField("name", "is required") }
        try RadioStation.validateName(name)
        guard let url = try arguments.string("url") else { throw .invalidField("url", "is required") }
        try RadioStation.validateURL(url)
        let id = try arguments.string("id") ?? RadioStation.id(from: name)
        guard SoundCatalog.isPlainName(id), id.count <= RadioStation.maximumNameLength, !id.isEmpty else {
            throw .invalidField("id", "must be a plain name of at most \(RadioStation.maximumNameLength) characters")
        }
        guard !stations.contains(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw CommandError(.conflict, "a station named \(name) exists", field: "name")
        }
        guard station(named: id)?.id != id else { throw CommandError(.conflict, "a station with the id \(id) exists", field: "id") }
        let station = RadioStation(id: id, name: name, url: url, fallback: try fallback(arguments, of: id))
        stations.append(station)
        return station
    }

    /// `radio/station/update`: `{"id", …fields to change}`; `"fallback": null` removes it.
    public mutating func update(_ arguments: CommandArguments) throws(CommandError) -> RadioStation {
        guard let id = try arguments.string("id") else { throw .invalidField("id", "is required") }
        guard let index = stations.firstIndex(where: { $0.id == id }) else { throw CommandError(.notFound, "no station \(id)", field: "id") }
        try refuseFixed(id)
        var station = stations[index]
        if let name = try arguments.string("name") {
            try RadioStation.validateName(name)
            guard !stations.contains(where: { $0.id != id && $0.name.lowercased() == name.lowercased() }) else {
                throw CommandError(.conflict, "a station named \(name) exists", field: "name")
            }
            station.name = name
        }
        if let url = try arguments.string("url") {
            try RadioStation.validateURL(url)
            station.url = url
        }
        if arguments.values["fallback"] != nil { station.fallback = try fallback(arguments, of: id) }
        stations[index] = station
        return station
    }

    /// `radio/station/delete`: `{"id"}`; the stations that fell back to it no longer do.
    public mutating func delete(id: String) throws(CommandError) -> RadioStation {
        guard let index = stations.firstIndex(where: { $0.id == id }) else { throw CommandError(.notFound, "no station \(id)", field: "id") }
        try refuseFixed(id)
        let removed = stations.remove(at: index)
        for i in stations.indices where stations[i].fallback == id { stations[i].fallback = nil }
        return removed
    }

    private func refuseFixed(_ id: String) throws(CommandError) {
        guard !fixed.contains(id) else {
            throw CommandError(.conflict, "\(id) is set in the configuration file (radio.stations); change it there", field: "id")
        }
    }

    private func fallback(_ arguments: CommandArguments, of id: String) throws(CommandError) -> String? {
        guard let value = arguments.values["fallback"], value != .null else { return nil }
        guard let reference = value.stringValue else { throw .invalidField("fallback", "must be a station id or null") }
        if reference.isEmpty { return nil }
        guard let target = station(named: reference) else { throw .invalidField("fallback", "no station \(reference)") }
        guard target.id != id else { throw .invalidField("fallback", "a station cannot fall back to itself") }
        return target.id
    }

    /// The sources an alarm with this station tries, in order (SPEC §15): the station, then its
    /// fallback's chain, each station once (a cycle of fallbacks ends), at most `limit`.
    public func chain(from id: String, limit: Int = 3) -> [RadioStation] {
        var chain: [RadioStation] = []
        var next = stations.first { $0.id == id }
        while let station = next, chain.count < limit, !chain.contains(where: { $0.id == station.id }) {
            chain.append(station)
            next = station.fallback.flatMap { fallback in stations.first { $0.id == fallback } }
        }
        return chain
    }
}

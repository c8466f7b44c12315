/// `radio/search` (SPEC §15): a query to a radio-browser.info compatible directory
/// (`radio.directory`), and its answer read into stations that `radio/station/add` takes as they
/// are. The directory is a stranger's server: its answer is read defensively (only http and https
/// addresses, names and tags as plain bounded text, at most `limit` results, the rest ignored).
public struct RadioSearch: Sendable, Hashable {
    public static let maximumQueryLength = 100
    public static let limits = 1...50
    public static let defaultLimit = 20

    public var query: String
    /// An ISO 3166-1 alpha-2 code in upper case (`DE`), or nil for every country.
    public var country: String?
    public var limit: Int

    /// The search `arguments` ask for; each member checked and named.
    public init(query: String, country: String?, limit: Int?) throws(CommandError) {
        let trimmed = query.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .invalidField("query", "must not be empty") }
        guard trimmed.count <= Self.maximumQueryLength else {
            throw .invalidField("query", "is longer than \(Self.maximumQueryLength) characters")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .invalidField("query", "must not contain control characters")
        }
        self.query = trimmed
        if let country, !country.isEmpty {
            guard country.count == 2, country.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw .invalidField("country", "must be a two-letter country code such as DE, not \(country)")
            }
            self.country = country.uppercased()
        }
        let limit = limit ?? Self.defaultLimit
        guard Self.limits.contains(limit) else {
            throw .invalidField("limit", "must be from \(Self.limits.lowerBound) to \(Self.limits.upperBound)")
        }
        self.limit = limit
    }

    /// The address of the search at `directory` (its base, as `radio.directory` gives it): by name,
    /// working stations only, the most listened first.
    public func url(directory: String) -> String {
        var base = directory
        while base.hasSuffix("/") { base.removeLast() }
        var parameters = [("name", query)]
        if let country { parameters.append(("countrycode", country)) }
        parameters += [("hidebroken", "true"), ("order", "clickcount"), ("reverse", "true"), ("limit", String(limit))]
        return base + "/json/stations/search?" + parameters.map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// The stations of a directory's answer (a JSON array of radio-browser station objects), at most
    /// `limit`, each address once; entries without a usable name and http(s) address are left out.
    public func stations(in body: [UInt8]) throws(CommandError) -> [Found] {
        guard let value = try? JSONValue.parse(body), case .array(let items) = value else {
            throw CommandError(.unavailable, "the directory's answer is not a list of stations")
        }
        var found: [Found] = [], seen: Set<String> = []
        for item in items where found.count < limit {
            guard let station = Found(item), seen.insert(station.url).inserted else { continue }
            found.append(station)
        }
        return found
    }

    /// One station of the answer.
    public struct Found: Sendable, Hashable {
        public var name: String
        public var url: String
        public var codec: String?
        public var bitrateKbps: Int?
        public var country: String?
        public var tags: String?

        init?(_ value: JSONValue) {
            guard let item = value.objectValue else { return nil }
            guard let name = item["name"]?.stringValue.map({ Self.plain($0, limit: RadioStation.maximumNameLength) }), !name.isEmpty
            else { return nil }
            // `url_resolved` is the stream behind a playlist; `url` what the station registered.
            let candidates = [item["url_resolved"]?.stringValue, item["url"]?.stringValue].compactMap { $0 }
            guard let url = candidates.first(where: { (try? RadioStation.validateURL($0)) != nil }) else { return nil }
            self.name = name
            self.url = url
            codec = item["codec"]?.stringValue.map { Self.plain($0, limit: 16).lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
            bitrateKbps = item["bitrate"]?.numberValue.flatMap { $0 > 0 && $0 < 100_000 ? Int($0) : nil }
            country = item["countrycode"]?.stringValue.flatMap { $0.count == 2 ? $0.uppercased() : nil }
            tags = item["tags"]?.stringValue.map { Self.plain($0, limit: 120) }.flatMap { $0.isEmpty ? nil : $0 }
        }

        public var json: JSONValue {
            func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
            return [
                "name": .string(name), "url": .string(url), "codec": text(codec),
                "bitrate_kbps": bitrateKbps.map { .number(Double($0)) } ?? .null, "country": text(country), "tags": text(tags),
            ]
        }

        /// `text` without control characters or surrounding space, at most `limit` characters.
        static func plain(_ text: String, limit: Int) -> String {
            let kept = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
            return String(kept.trimmingWhitespace().prefix(limit))
        }
    }

    /// RFC 3986: unreserved characters as they are, every other byte of the UTF-8 as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF")
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}

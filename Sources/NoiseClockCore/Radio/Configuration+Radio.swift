/// The keys of the radio (SPEC §15): `radio.*`.
extension Configuration {
    public struct Radio: Sendable, Hashable {
        /// The file's stations (`radio.stations`): always listed, changed only in the file.
        public var stations: [RadioStation]
        /// A radio-browser.info compatible server for `radio/search`; empty: none.
        public var directory: String
        /// An alarm's stream that makes no sound by then gives way to its fallback.
        public var startTimeoutSeconds: Int
        /// Audio kept ahead; a stream that sends nothing for this long has stalled.
        public var bufferSeconds: Int

        public init(stations: [RadioStation] = [], directory: String = "", startTimeoutSeconds: Int = 10, bufferSeconds: Int = 4) {
            self.stations = stations
            self.directory = directory
            self.startTimeoutSeconds = startTimeoutSeconds
            self.bufferSeconds = bufferSeconds
        }
    }
}

extension ConfigurationSchema {
    static let radioKeys: [ConfigKey] = [
        ConfigKey(path: "radio.directory", kind: .text, defaultValue: "", secret: false),
        ConfigKey(path: "radio.start_timeout_s", kind: .integer(2...60), defaultValue: "10", secret: false),
        ConfigKey(path: "radio.buffer_s", kind: .integer(1...30), defaultValue: "4", secret: false),
    ]

    /// `radio.*`: the keys, and the file's stations checked as `radio/station/add` checks them
    /// (each error names the item's key).
    static func radio(
        _ resolved: [String: ResolvedValue], file: [String: String], fileName: String?
    ) throws(ConfigurationError) -> (radio: Configuration.Radio, values: [ResolvedValue], unknown: [String]) {
        let source = fileName ?? "file"
        let directory = resolved["radio.directory"]?.value ?? ""
        if !directory.isEmpty {
            do throws(CommandError) { try RadioStation.validateURL(directory, field: "radio.directory") } catch {
                throw ConfigurationError(key: "radio.directory", source: resolved["radio.directory"]?.source ?? source, reason: error.message)
            }
        }
        var stations = RadioStations(), values: [ResolvedValue] = [], unknown: [String] = []
        var fallbacks: [(key: String, id: String, fallback: JSONValue)] = []
        func fail(_ key: String, _ error: CommandError) -> ConfigurationError {
            ConfigurationError(key: error.field.map { "\(key).\($0)" } ?? key, source: source, reason: error.message)
        }
        let items = listItems(file, "radio.stations")
        for index in items.keys.sorted() {
            let item = items[index] ?? [:], key = "radio.stations[\(index)]"
            guard !(item.count == 1 && item[""] != nil) else {
                throw ConfigurationError(key: key, source: source, reason: "must be a mapping with a name and a url")
            }
            var arguments: [String: JSONValue] = [:]
            for field in ["id", "name", "url"] { if let text = item[field] { arguments[field] = .string(text) } }
            do throws(CommandError) {
                let station = try stations.add(CommandArguments(arguments))
                // A fallback may name a station further down the list: set once all are in.
                if let fallback = item["fallback"] { fallbacks.append((key, station.id, .string(fallback))) }
                values.append(ResolvedValue(
                    key: ConfigKey(path: key, kind: .text, defaultValue: nil, secret: false),
                    value: "\(station.id): \(station.name) <\(station.url)>" + (item["fallback"].map { ", fallback \($0)" } ?? ""),
                    source: source))
            } catch {
                throw fail(key, error)
            }
            unknown += item.keys.filter { !["id", "name", "url", "fallback"].contains($0) }.sorted().map { "\(key).\($0) (in \(source))" }
        }
        for (key, id, fallback) in fallbacks {
            do throws(CommandError) {
                _ = try stations.update(CommandArguments(["id": .string(id), "fallback": fallback]))
            } catch {
                throw fail(key, error)
            }
        }
        let radio = Configuration.Radio(
            stations: stations.stations, directory: directory,
            startTimeoutSeconds: Int(resolved["radio.start_timeout_s"]?.value ?? "") ?? 10,
            bufferSeconds: Int(resolved["radio.buffer_s"]?.value ?? "") ?? 4)
        return (radio, values, unknown)
    }
}

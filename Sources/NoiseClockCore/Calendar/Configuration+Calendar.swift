/// The keys of the calendar (SPEC §17): `calendar.feeds` and `calendar.refresh_min`.
extension Configuration {
    public struct CalendarFeeds: Sendable, Hashable {
        /// An ICS feed: an address (Google's secret address, Nextcloud, a school's) or a file.
        public struct Feed: Sendable, Hashable {
            public enum Location: Sendable, Hashable {
                case url(String)
                case file(String)
            }

            public var id: String
            public var location: Location

            public init(id: String, location: Location) {
                self.id = id
                self.location = location
            }
        }

        public static let maximumFeeds = 8

        public var feeds: [Feed]
        public var refreshMinutes: Int

        public init(feeds: [Feed] = [], refreshMinutes: Int = 15) {
            self.feeds = feeds
            self.refreshMinutes = refreshMinutes
        }

        /// A feed's id: 1-32 of a-z, 0-9, `_` and `-` (it names the stored copy's file).
        public static func isValidID(_ id: String) -> Bool {
            (1...32).contains(id.count) && id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
        }
    }
}

extension ConfigurationSchema {
    static let calendarKeys: [ConfigKey] = [
        ConfigKey(path: "calendar.refresh_min", kind: .integer(5...1440), defaultValue: "15", secret: false)
    ]

    /// `calendar.*`: the refresh and the file's feeds, each `{id, url}` or `{id, file}` (each error
    /// names the item's key, `calendar.feeds[1].url`).
    static func calendar(
        _ resolved: [String: ResolvedValue], file: [String: String], fileName: String?
    ) throws(ConfigurationError) -> (calendar: Configuration.CalendarFeeds, values: [ResolvedValue], unknown: [String]) {
        let source = fileName ?? "file"
        var feeds: [Configuration.CalendarFeeds.Feed] = [], values: [ResolvedValue] = [], unknown: [String] = []
        let items = listItems(file, "calendar.feeds")
        for index in items.keys.sorted() {
            let item = items[index] ?? [:], key = "calendar.feeds[\(index)]"
            func fail(_ field: String, _ reason: String) -> ConfigurationError {
                ConfigurationError(key: field.isEmpty ? key : "\(key).\(field)", source: source, reason: reason)
            }
            guard !(item.count == 1 && item[""] != nil) else { throw fail("", "must be a mapping with an id and a url or a file") }
            guard let id = item["id"], Configuration.CalendarFeeds.isValidID(id) else {
                throw fail("id", "must be 1 to 32 of a-z, 0-9, _ and - (it names the feed in alarms)")
            }
            guard !feeds.contains(where: { $0.id == id }) else { throw fail("id", "\(id) names two feeds") }
            let location: Configuration.CalendarFeeds.Feed.Location
            switch (item["url"], item["file"]) {
            case (let url?, nil):
                do throws(CommandError) { try RadioStation.validateURL(url, field: "url") } catch { throw fail("url", error.message) }
                location = .url(url)
            case (nil, let path?):
                guard path.hasPrefix("/") else { throw fail("file", "must be an absolute path") }
                location = .file(path)
            case (.some, .some): throw fail("", "has both a url and a file; give one")
            case (nil, nil): throw fail("", "needs a url or a file")
            }
            guard feeds.count < Configuration.CalendarFeeds.maximumFeeds else { throw fail("", "more than \(Configuration.CalendarFeeds.maximumFeeds) feeds") }
            feeds.append(.init(id: id, location: location))
            let shown: String
            switch location {
            case .url(let url): shown = "url <\(CalendarFeedText.redacted(url))>"
            case .file(let path): shown = "file \(path)"
            }
            values.append(ResolvedValue(key: ConfigKey(path: key, kind: .text, defaultValue: nil, secret: false), value: "\(id): \(shown)", source: source))
            unknown += item.keys.filter { !["id", "url", "file"].contains($0) }.sorted().map { "\(key).\($0) (in \(source))" }
        }
        let refresh = Int(resolved["calendar.refresh_min"]?.value ?? "") ?? 15
        return (Configuration.CalendarFeeds(feeds: feeds, refreshMinutes: refresh), values, unknown)
    }
}

/// How a feed's address is written where others read it.
public enum CalendarFeedText {
    /// The address without its path: a Google or Nextcloud feed's secret is in its path, and
    /// `check-config`, logs and `B/calendar` never show it (`https://calendar.google.com/…`).
    public static func redacted(_ url: String) -> String {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return "…" }
        let host = parts[2].prefix { $0 != "?" }
        return "\(parts[0])//\(host)" + (parts.count > 3 || host.count < parts[2].count ? "/…" : "")
    }
}

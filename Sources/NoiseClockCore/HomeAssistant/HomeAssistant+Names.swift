/// What Home Assistant shows for the node's entities in one language (SPEC §11), read from that
/// language's message catalog: entity names (`ha.<component key>`), an alarm's time entity
/// (`ha.alarm_time`), and the selects' options (the face's `settings.24h`, `theme.*`,
/// `ha.interval.*`, and the radio's `ha.radio.off`). Names and options only: the component keys, and so the `unique_id`s and the
/// entity ids, never change with them.
public struct HomeAssistantNames: Sendable, Hashable {
    public let catalog: Catalog

    public init(_ catalog: Catalog) {
        self.catalog = catalog
    }

    public var language: Language { catalog.language }

    /// The catalog key of a component's name.
    public static func key(_ component: String) -> String { "ha.\(component)" }

    /// The name of a component that is not per alarm; its catalog key when the catalog lacks it
    /// (a test proves the shipped catalogs never do).
    public func entity(_ key: String) -> String { catalog.text(Self.key(key)) }

    /// An alarm's time entity: `{label} time` (its switch is the label alone).
    public func alarmTime(label: String) -> String { catalog.text("ha.alarm_time", ["label": label]) }

    /// A calendar feed's sensor: `Calendar {feed}`, named by the feed's id.
    public func calendar(feed: String) -> String { catalog.text("ha.calendar_feed", ["feed": feed]) }

    /// The interval gongs select's option for `minutes` (0: none).
    public func interval(_ minutes: Int) -> String {
        minutes == 0 ? catalog.text("ha.interval.off") : catalog.text("ha.interval.min", count: minutes)
    }

    /// The time format select's option, as the face's settings screen says it.
    public func timeFormat(_ format: TimeFormat) -> String { catalog.text("settings.\(format.rawValue)") }

    /// The face theme select's option, as the face's settings screen says it.
    public func theme(_ theme: FaceStyle.Theme) -> String { catalog.text("theme.\(theme.rawValue)") }

    /// The radio select's option that stops the radio, and the Radio playing sensor's state while
    /// nothing plays.
    public var radioOff: String { catalog.text("ha.radio.off") }

    /// The noise select's option: the sound's name in this language.
    public func sound(_ sound: Sound) -> String { sound.name(in: language) }
}

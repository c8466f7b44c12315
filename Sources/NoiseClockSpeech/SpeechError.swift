/// Why something could not be said, in words the user reads in `B/speech` and the log.
public struct SpeechError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

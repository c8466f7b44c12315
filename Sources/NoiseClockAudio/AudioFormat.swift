/// The one format the engine works in: 44.1 kHz, stereo, signed 16-bit, interleaved. Every file is
/// decoded to it by libmpg123 (which duplicates mono and resamples other rates), and the ALSA
/// device is opened in it (ALSA's `plug` layer converts when the card wants something else).
public enum AudioFormat {
    public static let sampleRate = 44_100
    public static let channels = 2

    public static func frames(milliseconds: Int) -> Int { sampleRate * milliseconds / 1000 }
}

/// An audio problem the user can act on, naming the file or the device.
public struct AudioError: Error, Hashable, Sendable, CustomStringConvertible {
    public var subject: String
    public var reason: String

    public init(subject: String, reason: String) {
        self.subject = subject
        self.reason = reason
    }

    public var description: String { "\(subject): \(reason)" }
}

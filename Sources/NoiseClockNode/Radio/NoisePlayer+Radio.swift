import NoiseClockSystem

/// Radio and noise are one player (SPEC §15). The radio is joined once, as the node is made: noise
/// starting stops a station; `noise/stop`, `noise/toggle`, `noise/power` and `noise/sleep` reach a
/// station that plays; `noise/play radio:<id>` plays one. (Weak: the radio holds the noise player.)
extension NoisePlayer {
    struct WeakRadio: Sendable {
        weak var player: RadioPlayer?
    }

    var radio: RadioPlayer? { radioSlot.withLock { $0.player } }

    /// Makes `radio` the other half of the one player.
    nonisolated func join(_ radio: RadioPlayer) { radioSlot.withLock { $0.player = radio } }
}

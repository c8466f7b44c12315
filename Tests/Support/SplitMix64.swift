/// SplitMix64: a small deterministic generator, so one printed seed replays a whole property walk
/// or a run of random commands.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }

    /// Seconds in `range`, to the millisecond.
    public mutating func seconds(_ range: ClosedRange<Int>) -> Double {
        Double(int((range.lowerBound * 1000)...(range.upperBound * 1000))) / 1000
    }

    public mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
}

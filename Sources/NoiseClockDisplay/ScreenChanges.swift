import Synchronization

/// A screen's changes in the order they were asked for, whatever order their threads run in.
///
/// The node sets its screen from a thread per change (a command screen may take seconds), so two
/// changes asked for a few microseconds apart (a sunrise's step and a settings change) race to the
/// screen's lock, and the older one could win last: the panel would stay at a level the node no
/// longer wants, and the controller, which thinks it applied the newer one, would not correct it.
/// Each change takes its place in line when it is asked for (`change(to:)`, on the caller's
/// thread); when it runs, a change that a later one has overtaken does nothing.
public final class ScreenChanges: Sendable {
    public let control: any ScreenControl
    /// The last place handed out, and the latest place that ran.
    private let places = Mutex((issued: UInt64(0), ran: UInt64(0)))

    public init(_ control: any ScreenControl) {
        self.control = control
    }

    /// Takes the next place in line for `level`; the returned change may run on any thread, once.
    public func change(to level: Int) -> @Sendable () throws(ScreenError) -> Void {
        let place = places.withLock { places in
            places.issued += 1
            return places.issued
        }
        return { [self] () throws(ScreenError) in
            try self.places.withLock { (places: inout (issued: UInt64, ran: UInt64)) throws(ScreenError) in
                // Overtaken: a later change has already set the screen.
                guard place > places.ran else { return }
                // Counted as run even when it fails: an older change must not follow it.
                places.ran = place
                try self.control.set(brightness: level)
            }
        }
    }
}

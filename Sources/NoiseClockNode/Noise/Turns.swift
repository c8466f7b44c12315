import NoiseClockSystem

/// Turns in the order commands came, for changes that must be staged in that order although each
/// may first wait for something of its own (a sound's file opened on a thread): a command takes a
/// turn as it comes (before its first wait), waits for the turns before it, stages its change and
/// ends its turn before its next wait. So the waits run side by side, and the changes apply in the
/// order they were sent; a command whose own wait failed still takes and ends its turn.
@NodeActor
final class Turns {
    private var issued = 0
    private var current = 0
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]

    nonisolated init() {}

    /// The next turn, in the order asked.
    func take() -> Int {
        defer { issued += 1 }
        return issued
    }

    /// Returns once every turn before `turn` has ended.
    func wait(for turn: Int) async {
        guard turn != current else { return }
        // Looked at again where the waiter is noted: a caller's task without the loop as its
        // executor preference reaches the body only after a hop, when its turn may have come.
        await withCheckedContinuation { waiter in
            if turn == current { waiter.resume() } else { waiting[turn] = waiter }
        }
    }

    /// Ends `turn`, the current one (after `wait(for:)`): the next may go.
    func done(_ turn: Int) {
        precondition(turn == current, "turn \(turn) ended while \(current) is current")
        current += 1
        waiting.removeValue(forKey: current)?.resume()
    }
}

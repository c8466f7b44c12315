import FoundationEssentials

/// The clock of a timed meditation session (SPEC §10), pure: when it started, how long its
/// preparation and its meditation last, its interval, the spans it was paused, and how many of its
/// gongs have been handled. Session time runs from the start command and stands still while
/// paused; the preparation is its first `preparation` seconds, the meditation the `duration` after.
public struct MeditationTimer: Sendable, Hashable {
    /// A pause: from `start` until `end` (nil: still paused), on the wall clock.
    public struct Pause: Sendable, Hashable {
        public var start: Date
        public var end: Date?

        public init(start: Date, end: Date? = nil) {
            self.start = start
            self.end = end
        }
    }

    public enum Phase: String, Sendable, Hashable {
        case preparing, running, paused, completed
    }

    /// A gong of the session, in the order they come.
    public enum Gong: Sendable, Hashable, Comparable {
        /// At the end of the preparation: the meditation begins.
        case start
        /// Every `interval` of meditation time (1, 2, …), never at or after the end.
        case interval(Int)
        /// At the end of the meditation.
        case completion
    }

    public var startedAt: Date
    public var preparation: TimeInterval
    public var duration: TimeInterval
    /// 0: no interval gongs.
    public var interval: TimeInterval
    public var pauses: [Pause] = []
    /// A gong this close to now is due: instants and session times are sums of floating-point
    /// seconds, and a wake-up planned for a gong must find it due, not sleep again for nothing.
    public static let tolerance: TimeInterval = 0.001
    /// How many gongs (of `gongs`, in order) have been handled.
    public var handled = 0

    public init(startedAt: Date, preparation: TimeInterval, duration: TimeInterval, interval: TimeInterval) {
        self.startedAt = startedAt
        self.preparation = preparation
        self.duration = duration
        self.interval = interval
    }

    /// Every gong of the session with its session time: the start, the interval gongs strictly
    /// inside the meditation (one that would fall at the end is the completion), the completion.
    public var gongs: [(gong: Gong, at: TimeInterval)] {
        var gongs: [(Gong, TimeInterval)] = [(.start, preparation)]
        if interval > 0 {
            var number = 1
            while Double(number) * interval < duration {
                gongs.append((.interval(number), preparation + Double(number) * interval))
                number += 1
            }
        }
        gongs.append((.completion, preparation + duration))
        return gongs
    }

    /// The number of interval gongs the session has.
    public var intervalCount: Int { gongs.count - 2 }

    public var isPaused: Bool { pauses.last.map { $0.end == nil } ?? false }

    /// The wall-clock seconds spent paused up to `now`.
    public func pausedTime(at now: Date) -> TimeInterval {
        pauses.reduce(0) { total, pause in total + max(0, (pause.end ?? max(now, pause.start)).timeIntervalSince(pause.start)) }
    }

    /// Session time at `now` (preparation included), never below 0 nor past the end.
    public func sessionTime(at now: Date) -> TimeInterval {
        min(max(0, now.timeIntervalSince(startedAt) - pausedTime(at: now)), preparation + duration)
    }

    /// Meditation time at `now`: 0 during the preparation, `duration` once complete.
    public func elapsed(at now: Date) -> TimeInterval { max(0, sessionTime(at: now) - preparation) }

    public func remaining(at now: Date) -> TimeInterval { duration - elapsed(at: now) }

    public func phase(at now: Date) -> Phase {
        let time = sessionTime(at: now)
        if time + Self.tolerance >= preparation + duration { return .completed }
        if isPaused { return .paused }
        return time < preparation ? .preparing : .running
    }

    /// The wall-clock instant at which session time reaches `time`, with the pauses so far; nil
    /// while paused (time stands still).
    public func instant(ofSessionTime time: TimeInterval) -> Date? {
        guard !isPaused else { return nil }
        return startedAt.addingTimeInterval(time + pausedTime(at: .distantFuture))
    }

    /// When session time reached `time`: after the pauses that began before it.
    public func reached(_ time: TimeInterval) -> Date {
        var instant = startedAt.addingTimeInterval(time)
        for pause in pauses {
            guard let end = pause.end, pause.start < instant else { break }
            instant = instant.addingTimeInterval(end.timeIntervalSince(pause.start))
        }
        return instant
    }

    /// The end of the meditation on the wall clock; nil while paused.
    public var endsAt: Date? { instant(ofSessionTime: preparation + duration) }

    /// The next gong not handled yet, with its instant (nil instant while paused).
    public var nextGong: (gong: Gong, at: Date?)? {
        let all = gongs
        guard handled < all.count else { return nil }
        return (all[handled].gong, instant(ofSessionTime: all[handled].at))
    }

    /// Stops session time at `now`; false when it is paused already or complete.
    @discardableResult
    public mutating func pause(at now: Date) -> Bool {
        guard !isPaused, phase(at: now) != .completed else { return false }
        pauses.append(Pause(start: now))
        return true
    }

    /// Lets session time run again from `now`: every instant still to come moves by the pause.
    @discardableResult
    public mutating func resume(at now: Date) -> Bool {
        guard isPaused, let last = pauses.indices.last else { return false }
        pauses[last].end = max(now, pauses[last].start)
        return true
    }

    /// Moves the whole session by `seconds` on the wall clock (the clock was set back), so that it
    /// keeps the session time it had.
    mutating func shift(by seconds: TimeInterval) {
        startedAt.addTimeInterval(seconds)
        pauses = pauses.map { Pause(start: $0.start.addingTimeInterval(seconds), end: $0.end?.addingTimeInterval(seconds)) }
    }
}

/// What a timed meditation does when (SPEC §10), pure: which gongs are due at "now", the phase, and
/// when to look again. It reads no clock; the node's meditation session carries out what it says.
public enum MeditationClockwork {
    /// A gong that came due, with the wall-clock instant it was due at.
    public struct Due: Sendable, Hashable {
        public var gong: MeditationTimer.Gong
        public var at: Date

        public init(gong: MeditationTimer.Gong, at: Date) {
            self.gong = gong
            self.at = at
        }
    }

    public struct Step: Sendable, Hashable {
        public var timer: MeditationTimer
        /// The gongs due since the last look, in order (each exactly once).
        public var due: [Due]
        public var phase: MeditationTimer.Phase
        /// The instant of the next gong; nil while paused or once complete.
        public var wake: Date?
    }

    /// Catches the session up to `now`. `previous` is the time of the previous look: a `now`
    /// before it means the wall clock was set back, and the session moves back with it (it keeps
    /// its session time; nothing is due twice). A clock set forward is time that passed: what
    /// falls in the jump is due at once.
    public static func step(_ timer: MeditationTimer, now: Date, previous: Date?) -> Step {
        var next = timer
        if let previous, now < previous { next.shift(by: now.timeIntervalSince(previous)) }
        let time = next.sessionTime(at: now)
        var due: [Due] = []
        let gongs = next.gongs
        while next.handled < gongs.count, gongs[next.handled].at <= time + MeditationTimer.tolerance {
            due.append(Due(gong: gongs[next.handled].gong, at: next.reached(gongs[next.handled].at)))
            next.handled += 1
        }
        return Step(timer: next, due: due, phase: next.phase(at: now), wake: next.nextGong?.at)
    }
}

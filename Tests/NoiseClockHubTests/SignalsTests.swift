import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem
import Synchronization
import Testing

@Suite("Signals: what features tell each other, typed")
struct SignalsTests {
    @Test("a subscriber gets the latest signal of each kind first, then each change in the order sent; a signal equal to the latest of its kind is not sent again")
    @NodeActor
    func latestThenChanges() {
        let signals = Signals()
        signals.send(.alarmRinging(true))
        signals.send(.timerRinging(false))
        signals.send(.alarmRinging(false))
        let seen = Mutex<[NodeSignal]>([])
        signals.subscribe { signal in seen.withLock { $0.append(signal) } }
        #expect(seen.withLock { $0 } == [.alarmRinging(false), .timerRinging(false)])
        signals.send(.alarmRinging(false))
        signals.send(.settings(ClockSettings(timezone: "UTC")))
        signals.send(.alarmRinging(true))
        #expect(seen.withLock { $0 } == [
            .alarmRinging(false), .timerRinging(false), .settings(ClockSettings(timezone: "UTC")), .alarmRinging(true),
        ])
    }

    @Test("a handler may send a signal: it is delivered after the one being delivered, to every subscriber, in order")
    @NodeActor
    func handlerSends() {
        let signals = Signals()
        let first = Mutex<[NodeSignal]>([]), second = Mutex<[NodeSignal]>([])
        signals.subscribe { signal in
            first.withLock { $0.append(signal) }
            // An alarm that starts ringing makes the timers' state known (as a feature would).
            if signal == .alarmRinging(true) { signals.send(.timerRinging(true)) }
        }
        signals.subscribe { signal in second.withLock { $0.append(signal) } }
        signals.send(.alarmRinging(true))
        #expect(first.withLock { $0 } == [.alarmRinging(true), .timerRinging(true)])
        #expect(second.withLock { $0 } == [.alarmRinging(true), .timerRinging(true)])
        #expect(signals.latest == [.alarmRinging(true), .timerRinging(true)])
    }
}

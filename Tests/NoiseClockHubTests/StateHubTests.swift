import Foundation
import NoiseClockCore
import NoiseClockHub
import Synchronization
import Testing


/// Records what a subscriber of the hub receives.
private final class Recorder: Sendable {
    private let changes = Mutex<[StateChange]>([])
    var received: [StateChange] { changes.withLock { $0 } }
    func handle(_ change: StateChange) { changes.withLock { $0.append(change) } }
}

@Suite("StateHub: retained states and events, fanned out in order, a snapshot first")
struct StateHubTests {
    @Test("a new subscriber gets the latest value of each topic first, in the order the topics appeared, then each change")
    func snapshotFirst() {
        let hub = StateHub()
        hub.publish("clock", ["time": "07:04"])
        hub.publish("settings", ["time_format": "24h"])
        hub.publish("clock", ["time": "07:05"])
        let recorder = Recorder()
        hub.subscribe(recorder.handle)
        hub.publish("noise", ["playing": false])
        #expect(recorder.received == [
            .state(topic: "clock", value: ["time": "07:05"]), .state(topic: "settings", value: ["time_format": "24h"]),
            .state(topic: "noise", value: ["playing": false]),
        ])
        #expect(hub.snapshot.map(\.topic) == ["clock", "settings", "noise"])
    }

    @Test("events reach every subscriber in order with the states around them, and are not kept for later subscribers")
    func events() {
        let hub = StateHub()
        let first = Recorder()
        hub.subscribe(first.handle)
        hub.publish("alarm/state", ["state": "ringing"])
        hub.emit(["event": "alarm_ringing"])
        hub.publish("alarm/state", ["state": "idle"])
        let later = Recorder()
        hub.subscribe(later.handle)
        #expect(first.received == [
            .state(topic: "alarm/state", value: ["state": "ringing"]), .event(["event": "alarm_ringing"]),
            .state(topic: "alarm/state", value: ["state": "idle"]),
        ])
        #expect(later.received == [.state(topic: "alarm/state", value: ["state": "idle"])])
    }

    @Test("a handler may publish into the hub: no deadlock, and its change reaches every subscriber after the one that caused it")
    func handlerPublishes() {
        let hub = StateHub()
        let first = Recorder(), second = Recorder()
        hub.subscribe { change in
            first.handle(change)
            // As a service that answers one state with another would.
            if change == .state(topic: "alarm/state", value: "ringing") { hub.publish("display", "bright") }
        }
        hub.subscribe(second.handle)
        hub.publish("alarm/state", "ringing")
        let expected: [StateChange] = [.state(topic: "alarm/state", value: "ringing"), .state(topic: "display", value: "bright")]
        #expect(first.received == expected)
        #expect(second.received == expected)
    }

    @Test("subscribers see the same order when many tasks publish at once; an unsubscribed one hears nothing more")
    func sameOrderUnderConcurrency() async {
        let hub = StateHub()
        let a = Recorder(), b = Recorder(), gone = Recorder()
        hub.subscribe(a.handle)
        hub.subscribe(b.handle)
        let subscription = hub.subscribe(gone.handle)
        hub.unsubscribe(subscription)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for n in 0..<200 {
                        if n % 3 == 0 { hub.emit(["task": .number(Double(task)), "n": .number(Double(n))]) }
                        hub.publish("t\(task)", .number(Double(n)))
                    }
                }
            }
        }
        #expect(a.received.count == 8 * (200 + 67))
        #expect(a.received == b.received)
        #expect(gone.received.isEmpty)
        #expect(hub.snapshot.count == 8)
        #expect(hub.snapshot.allSatisfy { $0.value == 199 })
    }
}

@Suite("StateHub: on change only")
struct StateHubChangeTests {
    @Test("a value equal to the one held is not sent again; `always` sends it anyway; a new subscriber still gets it")
    func onChangeOnly() {
        let hub = StateHub()
        let seen = Mutex<[StateChange]>([])
        hub.subscribe { change in seen.withLock { $0.append(change) } }
        hub.publish("battery", ["percentage": 80])
        hub.publish("battery", ["percentage": 80])
        hub.publish("battery", ["percentage": 79])
        hub.publish("battery", ["percentage": 79], always: true)
        #expect(seen.withLock { $0 } == [
            .state(topic: "battery", value: ["percentage": 80]), .state(topic: "battery", value: ["percentage": 79]),
            .state(topic: "battery", value: ["percentage": 79]),
        ])
        let late = Mutex<[StateChange]>([])
        hub.subscribe { change in late.withLock { $0.append(change) } }
        #expect(late.withLock { $0 } == [.state(topic: "battery", value: ["percentage": 79])])
    }
}

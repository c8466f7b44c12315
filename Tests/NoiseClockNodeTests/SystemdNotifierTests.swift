import Foundation
import Testing

@testable import NoiseClockNode

@Suite("SystemdNotifier")
struct SystemdNotifierTests {
    @Test("WATCHDOG_USEC gives half its interval; WATCHDOG_PID naming another process, or no NOTIFY_SOCKET, turns things off")
    func environment() {
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000"], pid: 7).watchdogInterval == .seconds(15))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "8"], pid: 7).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"], pid: 7).watchdogInterval == .seconds(15))
        #expect(SystemdNotifier(environment: [:]).isActive == false)
        #expect(SystemdNotifier(environment: [:]).send("READY=1") == false)
    }
}

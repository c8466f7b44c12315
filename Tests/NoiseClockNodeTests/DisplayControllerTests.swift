import Clocks
import Foundation
import NoiseClockCore
import NoiseClockHub
import Synchronization
import NoiseClockSystem
import Testing

@testable import NoiseClockNode

/// A screen that records each brightness it is set to, and can be made to fail.
final class FakeScreen: Sendable {
    let levels = Mutex<[Int]>([])
    let failing = Mutex<String?>(nil)

    var handle: ScreenHandle {
        ScreenHandle(name: "fake_backlight") { [self] level in
            { [self] in
                if let reason = failing.withLock({ $0 }) { throw CommandError(.unavailable, reason) }
                levels.withLock { $0.append(level) }
            }
        }
    }
    var last: Int? { levels.withLock { $0.last } }
}

@Suite("The screen: night and day, a touch, Home Assistant's light, a ringing alarm")
@NodeActor
struct DisplayControllerTests {
    let transport = FakeTransport()
    let testClock = TestClock<Duration>()
    let screen = FakeScreen()

    /// A controller at `start` (UTC) with a night from 22:00 to 07:00 at `nightBrightness`.
    private func controller(at start: Date, nightBrightness: Int = 5, screen: ScreenHandle? = nil) async throws -> (DisplayController, ServiceWiring) {
        let wiring = ServiceWiring(
            transport: transport, settings: ClockSettings(timezone: "UTC"),
            clock: .driven(by: testClock, startingAt: start, timeZone: .utc))
        guard case .object(let face) = JSONValue.object(["night": ["enabled": true, "brightness": .number(Double(nightBrightness))]]) else {
            throw CommandError(.internal, "test")
        }
        _ = try await wiring.settings.change(SettingsPatch(face: face))
        let display = DisplayController(
            hub: wiring.hub, time: wiring.time, screen: screen ?? self.screen.handle, sun: { _, _ in nil }, logger: LogRecorder().logger())
        return (display, wiring)
    }

    private var displayStates: [JSONValue] { transport.published(on: "noiseclock/kitchen/display").compactMap(\.json) }

    @Test("by day the day brightness and theme; at night the night's, with the next change as the wake-up")
    func nightAndDay() async throws {
        let (day, _) = try await controller(at: instant(2026, 11, 23, 12, 0))
        let noon = await day.update()
        #expect(noon.state["night"] == false)
        #expect(noon.state["theme"] == "night")
        #expect(noon.state["brightness"] == 100)
        #expect(noon.next == instant(2026, 11, 23, 18, 0), "at most 6 hours ahead")
        #expect(screen.last == 100)

        let (night, _) = try await controller(at: instant(2026, 11, 23, 23, 0))
        let late = await night.update()
        #expect(late.state["night"] == true)
        #expect(late.state["theme"] == "red")
        #expect(late.state["brightness"] == 5)
        #expect(late.state["screen"] == "on")
        #expect(late.next == instant(2026, 11, 24, 5, 0))
        #expect(screen.last == 5)
        #expect(displayStates.last == late.state)
    }

    @Test("a dark night screen lights for 30 s at a touch, then goes dark again")
    func touch() async throws {
        let (display, _) = try await controller(at: instant(2026, 11, 23, 23, 0), nightBrightness: 0)
        #expect(await display.update().state["screen"] == "off")
        #expect(screen.last == 0)
        let woken = await display.wake()
        #expect(woken["brightness"] == .number(Double(DisplayController.wakeBrightness)))
        #expect(await display.update().next == instant(2026, 11, 23, 23, 0, 30))
        await testClock.advance(by: .seconds(30))
        #expect(await display.update().state["screen"] == "off")
        #expect(screen.levels.withLock { $0 } == [0, 20, 0])
    }

    @Test("a ringing alarm or timer lights the screen fully (their signals), and the night's brightness returns when neither rings")
    func ringing() async throws {
        let (display, wiring) = try await controller(at: instant(2026, 11, 23, 23, 0), nightBrightness: 0)
        display.watchSignals()
        await display.update()
        wiring.hub.signals.send(.alarmRinging(true))
        #expect(await display.update().state["brightness"] == 100)
        wiring.hub.signals.send(.timerRinging(true))
        wiring.hub.signals.send(.alarmRinging(false))
        #expect(await display.update().state["brightness"] == 100, "the timer still rings")
        wiring.hub.signals.send(.timerRinging(false))
        #expect(await display.update().state["brightness"] == 0)
        #expect(screen.levels.withLock { $0 } == [0, 100, 0])
    }

    @Test("a sunrise takes the screen from the night level up the curve, waking at each step; full after it; the night's again when it ends")
    func sunrise() async throws {
        let start = instant(2026, 11, 24, 6, 0), ring = instant(2026, 11, 24, 6, 30)
        let (display, wiring) = try await controller(at: start.addingTimeInterval(15 * 60), nightBrightness: 5)
        display.watchSignals()
        #expect(await display.update().state["brightness"] == 5)
        wiring.hub.signals.send(.wake(WakeLight(phase: .sunrise, sunrise: start..<ring, full: false)))
        let half = await display.update()
        #expect(half.state["brightness"] == .number(Double(SunriseCurve.backlight(0.5, from: 5))))
        #expect(half.state["brightness"] == 32)
        // The next look is the next step: where the curve first gives 33 %.
        let step = try #require(SunriseCurve.nextBacklightStep(after: 0.5, from: 5))
        #expect(abs(half.next.timeIntervalSince(start.addingTimeInterval(step * 1800))) < 0.001)
        #expect(half.next > start.addingTimeInterval(15 * 60))
        await testClock.advance(by: .milliseconds(Int64((half.next.timeIntervalSince(start.addingTimeInterval(15 * 60)) * 1000).rounded(.up))))
        #expect(await display.update().state["brightness"] == 33)
        wiring.hub.signals.send(.wake(WakeLight(phase: .ringing, sunrise: nil, full: true)))
        #expect(await display.update().state["brightness"] == 100)
        wiring.hub.signals.send(.wake(.none))
        #expect(await display.update().state["brightness"] == 5)
    }

    @Test("Home Assistant's light: off and on (to the brightness it had), a brightness, all until night starts or ends")
    func light() async throws {
        let (display, _) = try await controller(at: instant(2026, 11, 23, 20, 0))
        await display.update()
        #expect(await display.setBrightness(40)["brightness"] == 40)
        #expect(await display.power(on: false)["screen"] == "off")
        #expect(await display.power(on: true)["brightness"] == 40)
        // At 22:00 the night starts and its own brightness takes over.
        await testClock.advance(by: .seconds(2 * 3600))
        #expect(await display.update().state["brightness"] == 5)
        #expect(screen.levels.withLock { $0 } == [100, 40, 0, 40, 5])
    }

    @Test("a screen that cannot be set is reported in B/display and retried, and the rest goes on")
    func failing() async throws {
        screen.failing.withLock { $0 = "permission denied: install deploy/99-noiseclock-backlight.rules" }
        let (display, _) = try await controller(at: instant(2026, 11, 23, 12, 0))
        let state = await display.update().state
        #expect(state["error"]?.stringValue?.contains("permission denied") == true)
        #expect(state["backlight"] == "fake_backlight")
        screen.failing.withLock { $0 = nil }
        #expect(await display.update().state["error"] == .null)
        #expect(screen.last == 100)
    }

    @Test("the service follows the night: it sleeps until 22:00 and dims the screen then")
    nonisolated func service() async throws {
        let (display, wiring) = try await controller(at: instant(2026, 11, 23, 21, 59, 30))
        let clock = wiring.time.clock, screen = screen, testClock = testClock
        try await whileRunning({ await DisplayService(display: display, clock: clock).run() }) {
            _ = await eventually { screen.last == 100 }
            try await testClock.waitUntilSleeping("the display service")
            await testClock.advance(by: .seconds(29))
            #expect(screen.last == 100)
            await testClock.advance(by: .seconds(1))
            #expect(await eventually { screen.last == 5 })
        }
    }
}

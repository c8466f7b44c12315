import Clocks
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("ClockService")
struct ClockServiceTests {
    let transport = FakeTransport()
    let testClock = TestClock<Duration>()

    private func publisher(clock: NodeClock, settings: ClockSettings) -> ServiceWiring {
        ServiceWiring(transport: transport, settings: settings, clock: clock)
    }

    /// Runs the service until `body` returns, then cancels it and waits for it to end.
    private func running(_ wiring: ServiceWiring, _ body: () async throws -> Void) async throws {
        try await whileRunning({ try await ClockService(hub: wiring.hub, time: wiring.time).run() }, body)
    }

    private var clockStates: [JSONValue] {
        transport.published(on: "noiseclock/kitchen/clock").compactMap(\.json)
    }

    @Test("publishes the current minute at once, then the next minute exactly at its boundary")
    func minuteBoundary() async throws {
        let start = instant(2026, 3, 10, 7, 4, 59).addingTimeInterval(0.5)
        let clock = NodeClock.driven(by: testClock, startingAt: start, timeZone: utc)

        try await running(publisher(clock: clock, settings: ClockSettings(timezone: "UTC"))) {
            await transport.waitForPublished(count: 1)
            #expect(clockStates.map { $0["time"] } == ["07:04"])
            #expect(transport.published.first?.retain == true)

            try await testClock.waitUntilSleeping("the clock service")
            await testClock.advance(by: .milliseconds(500))
            await transport.waitForPublished(count: 2)
        }

        let states = clockStates
        #expect(states.count == 2)
        #expect(states.last?["time"] == "07:05")
        #expect(states.last?["iso"] == "2026-03-10T07:05:00+00:00")
        #expect(states.last?["date"] == "10 March Tue")
        #expect(states.last?["time_format"] == "24h")
    }

    @Test("sleeps once until the minute boundary, on the wall clock: no wake and nothing published in between")
    func nothingBetweenBoundaries() async throws {
        let start = instant(2026, 3, 10, 7, 4, 10)
        let deadlines = Mutex<[Date]>([])
        let driven = NodeClock.driven(by: testClock, startingAt: start, timeZone: utc)
        let clock = NodeClock(
            now: driven.now, sleep: driven.sleep,
            sleepUntil: { deadline in
                deadlines.withLock { $0.append(deadline) }
                try await driven.sleepUntil(deadline)
            },
            systemTimeZone: driven.systemTimeZone)

        try await running(publisher(clock: clock, settings: ClockSettings(timezone: "UTC"))) {
            await transport.waitForPublished(count: 1)
            try await testClock.waitUntilSleeping("the clock service")
            await testClock.advance(by: .seconds(49))
            // 07:04:59: still the same minute, and still the same sleep.
            #expect(transport.published.count == 1)
            #expect(deadlines.withLock { $0 } == [instant(2026, 3, 10, 7, 5)])

            await testClock.advance(by: .seconds(1))
            await transport.waitForPublished(count: 2)
        }

        #expect(clockStates.map { $0["iso"] } == ["2026-03-10T07:04:10+00:00", "2026-03-10T07:05:00+00:00"])
        // Each sleep lasts to the next boundary: the wall clock is not polled.
        #expect(deadlines.withLock { $0 }.prefix(2) == [instant(2026, 3, 10, 7, 5), instant(2026, 3, 10, 7, 6)])
    }

    @Test("with publish_seconds the clock is published every second")
    func publishSeconds() async throws {
        let start = instant(2026, 3, 10, 7, 4, 58)
        let clock = NodeClock.driven(by: testClock, startingAt: start, timeZone: utc)
        let settings = ClockSettings(showSeconds: false, timezone: "UTC", publishSeconds: true)

        try await running(publisher(clock: clock, settings: settings)) {
            for count in 1...3 {
                await transport.waitForPublished(count: count)
                try await testClock.waitUntilSleeping("the clock service")
                #expect(transport.published.count == count)
                if count < 3 { await testClock.advance(by: .seconds(1)) }
            }
        }

        #expect(
            clockStates.map { $0["iso"] } == [
                "2026-03-10T07:04:58+00:00", "2026-03-10T07:04:59+00:00", "2026-03-10T07:05:00+00:00",
            ])
        #expect(clockStates.map { $0["time"] } == ["07:04", "07:04", "07:05"])
    }

    @Test("with show_seconds the time carries its seconds")
    func showSeconds() async throws {
        let start = instant(2026, 3, 10, 19, 4, 59)
        let clock = NodeClock.driven(by: testClock, startingAt: start, timeZone: utc)
        let settings = ClockSettings(timeFormat: .twelveHour, showSeconds: true, timezone: "UTC", publishSeconds: true)

        try await running(publisher(clock: clock, settings: settings)) {
            await transport.waitForPublished(count: 1)
            try await testClock.waitUntilSleeping("the clock service")
            await testClock.advance(by: .seconds(1))
            await transport.waitForPublished(count: 2)
        }

        #expect(clockStates.map { $0["time"] } == ["7:04:59 PM", "7:05:00 PM"])
        #expect(clockStates.map { $0["show_seconds"] } == [true, true])
    }

    @Test("a change of the wall clock, forward or back, ends the sleep and shows at once")
    func wallClockJump() async throws {
        let now = Mutex(instant(2026, 3, 10, 7, 4, 10))
        // What the time source does: a wall-clock sleep ends when the wall clock is set.
        let (clockSet, setter) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let clock = NodeClock(
            now: { now.withLock { $0 } },
            sleep: { [testClock] in try await testClock.sleep(for: $0) },
            sleepUntil: { _ in for await _ in clockSet { return } },
            systemTimeZone: { utc })

        try await running(publisher(clock: clock, settings: ClockSettings(timezone: "UTC"))) {
            await transport.waitForPublished(count: 1)

            now.withLock { $0 = instant(2026, 3, 10, 9, 30, 10) }
            setter.yield()
            await transport.waitForPublished(count: 2)

            now.withLock { $0 = instant(2026, 3, 9, 23, 59, 30) }
            setter.yield()
            await transport.waitForPublished(count: 3)
        }

        #expect(clockStates.map { $0["time"] } == ["07:04", "09:30", "23:59"])
        #expect(
            clockStates.map { $0["iso"] } == [
                "2026-03-10T07:04:10+00:00", "2026-03-10T09:30:10+00:00", "2026-03-09T23:59:30+00:00",
            ])
    }

    @Test("a settings change wakes the service (the settings signal), which publishes at once, without waiting for the minute")
    func settingsChangeRepublishes() async throws {
        let start = instant(2026, 3, 10, 7, 4, 10)
        let clock = NodeClock.driven(by: testClock, startingAt: start, timeZone: utc)
        let publisher = publisher(clock: clock, settings: ClockSettings(timezone: "UTC"))

        try await running(publisher) {
            await transport.waitForPublished(count: 1)
            try await testClock.waitUntilSleeping("the clock service")
            _ = try await publisher.settings.change(SettingsPatch(timeFormat: .twelveHour))
            // B/settings (from the settings model), then B/clock from the woken service.
            await transport.waitForPublished(count: 3)
        }

        #expect(clockStates.map { $0["time"] } == ["07:04", "7:04 AM"])
        #expect(clockStates.last?["iso"] == "2026-03-10T07:04:10+00:00")
    }

    @Test("across the spring-forward gap in Berlin the clock goes from 01:59 (+01:00) to 03:00 (+02:00)")
    func daylightSavingGap() async throws {
        // 2026-03-29 01:00 UTC is when Berlin moves from CET to CEST.
        let start = instant(2026, 3, 29, 0, 59, 59)
        let clock = NodeClock.driven(by: testClock, startingAt: start, timeZone: utc)

        try await running(publisher(clock: clock, settings: ClockSettings(timezone: "Europe/Berlin"))) {
            await transport.waitForPublished(count: 1)
            try await testClock.waitUntilSleeping("the clock service")
            await testClock.advance(by: .seconds(1))
            await transport.waitForPublished(count: 2)
        }

        #expect(clockStates.map { $0["time"] } == ["01:59", "03:00"])
        #expect(clockStates.map { $0["iso"] } == ["2026-03-29T01:59:59+01:00", "2026-03-29T03:00:00+02:00"])
        #expect(clockStates.last?["timezone"] == "Europe/Berlin")
    }

    @Test("an empty clock.timezone uses the system's zone from the node clock")
    func systemZone() async throws {
        let start = instant(2026, 7, 1, 12, 0, 30)
        let clock = NodeClock.driven(by: testClock, startingAt: start, timeZone: Zone(identifier: "America/New_York")!)

        try await running(publisher(clock: clock, settings: ClockSettings(timezone: ""))) {
            await transport.waitForPublished(count: 1)
        }

        #expect(clockStates.first?["time"] == "08:00")
        #expect(clockStates.first?["iso"] == "2026-07-01T08:00:30-04:00")
        #expect(clockStates.first?["timezone"] == "America/New_York")
    }
}

import Clocks
import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockPower
import Testing

@testable import NoiseClockNode

/// A battery source that reports whatever readings the test pushes, until the test finishes it or
/// the calling task is cancelled.
struct FakeBatterySource: BatterySource {
    let name: String
    private let readings: AsyncStream<BatteryReading>
    private let continuation: AsyncStream<BatteryReading>.Continuation

    init(name: String = "upower") {
        self.name = name
        (readings, continuation) = AsyncStream.makeStream(of: BatteryReading.self)
    }

    func push(_ reading: BatteryReading) {
        continuation.yield(reading)
    }

    func run(report: @escaping @Sendable (BatteryReading) -> Void) async {
        for await reading in readings { report(reading) }
    }
}

@Suite("BatteryService", .timeLimit(.minutes(1)))
struct BatteryServiceTests {
    static let start = instant(2026, 3, 10, 7, 4)

    let transport = FakeTransport()
    let testClock = TestClock<Duration>()
    let source = FakeBatterySource()
    let topics = Topics(base: "noiseclock", nodeID: "kitchen")

    private func wiring() -> ServiceWiring {
        ServiceWiring(
            transport: transport, settings: ClockSettings(timezone: "UTC"),
            clock: .driven(by: testClock, startingAt: Self.start, timeZone: utc), topics: topics)
    }

    /// Runs a battery service (threshold 20, refresh every 300 s) until `body` returns, then cancels it.
    private func running(lowThreshold: Int = 20, _ body: () async throws -> Void) async throws {
        let wiring = wiring()
        let service = BatteryService(
            source: source, hub: wiring.hub, time: wiring.time, lowThreshold: lowThreshold, refreshInterval: .seconds(300))
        try await whileRunning({ await service.run() }, body)
    }

    /// Waits until `count` messages are on `topic` (on the publishes, not a time), and returns them.
    @discardableResult
    private func waitFor(_ count: Int, on topic: String) async -> [MQTTMessage] {
        _ = await transport.waitUntilPublished { published in published.count { $0.topic == topic } >= count }
        return transport.published(on: topic)
    }

    private var batteryStates: [JSONValue] { transport.published(on: topics.battery).compactMap(\.json) }

    private var events: [JSONValue] { transport.published(on: topics.event).compactMap(\.json) }

    private static func discharging(_ percentage: Double, timeToEmpty: Int? = nil) -> BatteryReading {
        BatteryReading(
            present: true, percentage: percentage, state: .discharging, timeToEmptySeconds: timeToEmpty, source: "upower")
    }

    @Test("the first reading is published retained on B/battery as the SPEC's payload")
    func firstReading() async throws {
        try await running {
            source.push(Self.discharging(87, timeToEmpty: 5400))
            await waitFor(1, on: "noiseclock/kitchen/battery")
        }

        let messages = transport.published(on: "noiseclock/kitchen/battery")
        try #require(messages.count == 1)
        #expect(messages[0].retain)
        let expected = try JSONValue.parse(
            Array(
                #"{"present":true,"percentage":87.0,"state":"discharging","charging":false,"level":"green","time_to_empty_s":5400,"time_to_full_s":null,"source":"upower"}"#
                    .utf8))
        #expect(messages[0].json == expected)
        #expect(events.isEmpty)
    }

    @Test("no battery is published as present false")
    func absent() async throws {
        try await running {
            source.push(.absent(source: "upower"))
            await waitFor(1, on: topics.battery)
        }

        let state = try #require(batteryStates.first)
        #expect(state["present"] == false)
        #expect(state["percentage"] == .null)
        #expect(state["level"] == .null)
        #expect(events.isEmpty)
    }

    @Test("an identical reading is not published again; a changed one is")
    func onlyChanges() async throws {
        try await running {
            source.push(Self.discharging(87))
            await waitFor(1, on: topics.battery)
            source.push(Self.discharging(87))
            source.push(Self.discharging(86))
            await waitFor(2, on: topics.battery)
            // The source reports in order, so the identical reading was handled before 86.
            source.push(BatteryReading(present: true, percentage: 86, state: .charging, source: "upower"))
            await waitFor(3, on: topics.battery)
        }

        #expect(batteryStates.map { $0["percentage"] } == [87, 86, 86])
        #expect(batteryStates.map { $0["state"] } == ["discharging", "discharging", "charging"])
        #expect(batteryStates.map { $0["charging"] } == [false, false, true])
    }

    @Test("falling below the threshold while discharging sends one battery_low, not another further down")
    func batteryLowOnce() async throws {
        try await running {
            source.push(Self.discharging(21))
            source.push(Self.discharging(19))
            await waitFor(1, on: topics.event)
            source.push(Self.discharging(15))
            // A later reading that publishes proves 15 was fully handled.
            source.push(Self.discharging(14))
            await waitFor(4, on: topics.battery)
        }

        #expect(batteryStates.map { $0["percentage"] } == [21, 19, 15, 14])
        let messages = transport.published(on: topics.event)
        try #require(messages.count == 1)
        #expect(!messages[0].retain)
        let event = try #require(messages[0].json)
        #expect(event["event"] == "battery_low")
        #expect(event["percentage"] == 19)
        #expect(event["threshold"] == 20)
        #expect(event["at"] == "2026-03-10T07:04:00+00:00")
    }

    @Test("the threshold is the configured one")
    func configuredThreshold() async throws {
        try await running(lowThreshold: 30) {
            source.push(Self.discharging(31))
            source.push(Self.discharging(29))
            await waitFor(1, on: topics.event)
        }

        let event = try #require(events.first)
        #expect(event["event"] == "battery_low")
        #expect(event["percentage"] == 29)
        #expect(event["threshold"] == 30)
    }

    @Test("a charging battery below the threshold sends no battery_low")
    func chargingBelowThreshold() async throws {
        try await running {
            source.push(BatteryReading(present: true, percentage: 12, state: .charging, source: "upower"))
            source.push(BatteryReading(present: true, percentage: 13, state: .charging, source: "upower"))
            await waitFor(2, on: topics.battery)
        }

        #expect(events.isEmpty)
    }

    @Test("battery_low is re-armed 5 points above the threshold and sent again on the next fall")
    func rearmed() async throws {
        try await running {
            source.push(Self.discharging(19))
            await waitFor(1, on: topics.event)
            source.push(BatteryReading(present: true, percentage: 24, state: .charging, source: "upower"))
            source.push(Self.discharging(18))
            source.push(BatteryReading(present: true, percentage: 25, state: .charging, source: "upower"))
            source.push(Self.discharging(17))
            await waitFor(2, on: topics.event)
            source.push(Self.discharging(16))
            await waitFor(6, on: topics.battery)
        }

        #expect(events.map { $0["percentage"] } == [19, 17])
    }

    @Test("the last reading is published again when the refresh interval passes without a change")
    func refresh() async throws {
        try await running {
            source.push(Self.discharging(64, timeToEmpty: 3600))
            await waitFor(1, on: topics.battery)

            try await testClock.waitUntilSleeping("the battery service")
            await testClock.advance(by: .seconds(299))
            try await testClock.waitUntilSleeping("the battery service")
            #expect(transport.published(on: topics.battery).count == 1)

            await testClock.advance(by: .seconds(1))
            await waitFor(2, on: topics.battery)

            try await testClock.waitUntilSleeping("the battery service")
            await testClock.advance(by: .seconds(300))
            await waitFor(3, on: topics.battery)
        }

        let messages = transport.published(on: topics.battery)
        #expect(messages.count == 3)
        #expect(messages.allSatisfy { $0.retain })
        #expect(Set(messages.map(\.payload)).count == 1)
        #expect(batteryStates.last?["percentage"] == 64)
        #expect(batteryStates.last?["time_to_empty_s"] == 3600)
        #expect(events.isEmpty)
    }

    @Test("a refresh before any reading publishes nothing")
    func refreshBeforeReading() async throws {
        try await running {
            try await testClock.waitUntilSleeping("the battery service")
            await testClock.advance(by: .seconds(300))
            try await testClock.waitUntilSleeping("the battery service")
            // Then a reading: it is the only battery message.
            source.push(Self.discharging(50))
            await waitFor(1, on: topics.battery)
        }

        #expect(batteryStates.map { $0["percentage"] } == [50])
    }

    @Test("a refresh does not send battery_low again")
    func refreshDoesNotRewarn() async throws {
        try await running {
            source.push(Self.discharging(10))
            await waitFor(1, on: topics.event)
            try await testClock.waitUntilSleeping("the battery service")
            await testClock.advance(by: .seconds(300))
            await waitFor(2, on: topics.battery)
            // A changed reading after the refresh proves the refresh was fully handled.
            source.push(Self.discharging(9))
            await waitFor(3, on: topics.battery)
        }

        #expect(events.count == 1)
    }
}

@Suite("Battery source in the node's status")
struct BatteryStatusTests {
    private func node(battery: (any BatterySource)?) throws -> (Node, FakeTransport) {
        let transport = FakeTransport()
        let node = Node(
            configuration: try makeConfiguration(), transport: transport, store: InMemoryStore(),
            clock: frozenClock(at: instant(2026, 3, 10, 7, 4)), battery: battery, logger: LogRecorder().logger())
        return (node, transport)
    }

    @Test("ping answers with the battery source's name")
    func pingNamesSource() async throws {
        let (node, _) = try node(battery: FakeBatterySource(name: "sysfs"))
        let response = await node.router.respond(verb: "ping", payload: [])
        #expect(response.data?["battery_source"] == "sysfs")
    }

    @Test("without a battery source, ping and B/status say none")
    func noSource() async throws {
        let (node, transport) = try node(battery: nil)
        let response = await node.router.respond(verb: "ping", payload: [])
        #expect(response.data?["battery_source"] == "none")
        node.status.publish()
        let status = try #require(transport.published(on: "noiseclock/kitchen/status").last?.json)
        #expect(status["battery_source"] == "none")
    }

    @Test("B/status carries the battery source's name")
    func statusNamesSource() throws {
        let (node, transport) = try node(battery: FakeBatterySource(name: "upower"))
        node.status.publish()
        let status = try #require(transport.published(on: "noiseclock/kitchen/status").last?.json)
        #expect(status["battery_source"] == "upower")
    }

    @Test("a node with a battery source runs a battery service; one without does not")
    func services() throws {
        #expect(try node(battery: FakeBatterySource()).0.services().contains { $0 is BatteryService })
        #expect(try !node(battery: nil).0.services().contains { $0 is BatteryService })
    }

    @Test("the node's battery service uses battery.low_threshold from the configuration")
    func nodeThreshold() async throws {
        let transport = FakeTransport()
        let source = FakeBatterySource()
        let node = Node(
            configuration: try makeConfiguration(["battery.low_threshold": "35"]), transport: transport,
            store: InMemoryStore(), clock: frozenClock(at: instant(2026, 3, 10, 7, 4)), battery: source,
            logger: LogRecorder().logger())
        let service = try #require(node.services().first { $0 is BatteryService })
        let task = Task { try await service.run() }
        source.push(BatteryReading(present: true, percentage: 34, state: .discharging, source: "upower"))
        // 10 ms alone; the wait ends at the event, and the whole suite on a loaded machine can hold
        // the service's task up for many seconds.
        _ = await eventually(timeout: .seconds(60)) { !transport.published(on: "noiseclock/kitchen/event").isEmpty }
        task.cancel()
        _ = await task.result

        let event = try #require(transport.published(on: "noiseclock/kitchen/event").first?.json)
        #expect(event["event"] == "battery_low")
        #expect(event["threshold"] == 35)
        #expect(event["percentage"] == 34)
    }
}

import Foundation
import NoiseClockCore
import NoiseClockMQTT
import NoiseClockSystem
import Synchronization
import Testing

@testable import NoiseClockNode

@Suite("Node commands")
struct NodeCommandTests {
    @Test("ping answers with the status: version, start time in the system's zone, and whole seconds up")
    func ping() async throws {
        let fixture = try NodeFixture()
        await fixture.clock.advance(by: .seconds(90) + .milliseconds(700))

        let response = await fixture.respond("ping")

        let data = try #require(response.data)
        #expect(data["version"] == .string(NodeStatus.version))
        // 07:04 UTC is 08:04 in Berlin in March (CET, +01:00).
        #expect(data["started_at"] == "2026-03-10T08:04:00+01:00")
        #expect(data["uptime_s"] == 90)
        #expect(data["audio"]?["device"] == "default")
        #expect(fixture.transport.published.isEmpty)
    }

    @Test("sounds answers the catalogs from the files: noise with categories, alarm tones and gongs with the default marked")
    func sounds() async throws {
        let library = try realLibrary()
        let fixture = try NodeFixture(sounds: library)
        let data = try #require(await fixture.respond("sounds").data)
        guard case .array(let noise)? = data["noise"], case .array(let alarm)? = data["alarm"] else {
            Issue.record("sounds did not answer two lists: \(data.serialized)")
            return
        }
        #expect(noise.compactMap { $0["id"]?.stringValue } == library.catalog.sounds(of: .noise).map(\.id))
        #expect(alarm.compactMap { $0["id"]?.stringValue } == library.catalog.sounds(of: .alarm).map(\.id))
        let rain = try #require(noise.first { $0["id"] == "heavy-rain-white-noise" })
        #expect(rain["name"] == .string(try #require(library.catalog.sound(named: "heavy-rain-white-noise")).name))
        #expect(rain["category"]?.stringValue?.isEmpty == false)
        #expect(alarm.filter { $0["default"] == true }.count == 1)
        guard case .array(let gong)? = data["gong"] else {
            Issue.record("sounds did not list the gongs: \(data.serialized)")
            return
        }
        #expect(gong.compactMap { $0["id"]?.stringValue } == library.catalog.sounds(of: .gong).map(\.id))
        #expect(gong.compactMap { $0["id"]?.stringValue } == ["singing-bowl", "soft-bell", "timer-chime"])
        #expect(gong.filter { $0["default"] == true }.compactMap { $0["id"]?.stringValue } == ["singing-bowl"])
        #expect(gong.first { $0["id"] == "timer-chime" }?["category"] == "timer")
        #expect(gong.first { $0["id"] == "singing-bowl" }?["category"] == "gong")
        #expect(gong.allSatisfy { $0["name"]?.stringValue?.isEmpty == false && $0["description"]?.stringValue?.isEmpty == false })
        #expect(await fixture.respond("sounds", #"{"x":1}"#).error?.field == "x")
    }

    @Test("ping accepts an empty payload, PRESS, {} and a bare transaction", arguments: ["", "PRESS", "{}", #"{"transaction":"t1"}"#])
    func pingPayloads(payload: String) async throws {
        let fixture = try NodeFixture()
        let response = await fixture.respond("ping", payload)
        #expect(response.isOK)
    }

    @Test("ping with an argument is rejected naming it")
    func pingWithArgument() async throws {
        let fixture = try NodeFixture()
        let response = await fixture.respond("ping", #"{"loud":true}"#)
        #expect(response.error?.code == .invalidField)
        #expect(response.error?.field == "loud")
    }

    @Test("settings to 12h answers the new settings and publishes retained settings and a 12-hour clock")
    func settingsTwelveHour() async throws {
        let fixture = try NodeFixture()

        let response = await fixture.respond("settings", #"{"time_format":"12h"}"#)

        let data = try #require(response.data)
        #expect(data["time_format"] == "12h")
        #expect(data["show_seconds"] == false)
        #expect(fixture.settings.timeFormat == .twelveHour)

        let settings = fixture.transport.published(on: "noiseclock/kitchen/settings")
        #expect(settings.count == 1)
        #expect(settings.first?.retain == true)
        #expect(settings.first?.json == data)

        let clock = try #require(fixture.transport.published(on: "noiseclock/kitchen/clock").first)
        #expect(clock.retain)
        let time = try #require(clock.json?["time"]?.stringValue)
        #expect(time.hasSuffix(" AM") || time.hasSuffix(" PM"))
        // The node's zone is Berlin (the configuration leaves clock.timezone empty): 07:04 UTC is 8:04 AM.
        #expect(time == "8:04 AM")
        #expect(clock.json?["time_format"] == "12h")
        #expect(fixture.transport.published.count == 2)
    }

    @Test("a settings change is stored for the next start")
    func settingsStored() async throws {
        let fixture = try NodeFixture()
        _ = await fixture.respond("settings", #"{"show_seconds":"ON","timezone":"Asia/Tokyo"}"#)
        #expect(fixture.store.document(SettingsModel.documentName) == ["show_seconds": true, "timezone": "Asia/Tokyo"])

        let restarted = try NodeFixture(store: fixture.store)
        #expect(restarted.settings.showSeconds)
        #expect(restarted.settings.timezone == "Asia/Tokyo")
    }

    @Test("settings that change nothing answer ok and publish nothing")
    func settingsNoChange() async throws {
        let fixture = try NodeFixture()
        let response = await fixture.respond("settings", #"{"time_format":"24h"}"#)
        #expect(response.data?["time_format"] == "24h")
        #expect(fixture.transport.published.isEmpty)
    }

    @Test(
        "an invalid settings payload is rejected naming the field, changes nothing and publishes nothing",
        arguments: [
            (#"{"time_format":"13h"}"#, "time_format"),
            (#"{"show_seconds":"maybe"}"#, "show_seconds"),
            (#"{"timezone":"Mars/Olympus_Mons"}"#, "timezone"),
            (#"{"locale":"xx_NOWHERE"}"#, "locale"),
            (#"{"time_format":"12h","colour":"red"}"#, "colour"),
            (#"{"time_format":12}"#, "time_format"),
        ])
    func invalidSettings(payload: String, field: String) async throws {
        let fixture = try NodeFixture()
        let before = fixture.settings

        let response = await fixture.respond("settings", payload)

        #expect(response.error?.code == .invalidField)
        #expect(response.error?.field == field)
        #expect(fixture.settings == before)
        #expect(fixture.transport.published.isEmpty)
        #expect(fixture.store.saves == 0)
    }

    @Test("settings given as a bare value is rejected: the verb needs an object")
    func settingsBareValue() async throws {
        let fixture = try NodeFixture()

        let response = await fixture.respond("settings", "12h")

        #expect(response.error?.code == .invalidJSON)
        #expect(response.error?.field == "payload")
        #expect(fixture.settings.timeFormat == .twentyFourHour)
        #expect(fixture.transport.published.isEmpty)
    }

    @Test("malformed JSON for settings is answered invalid_json")
    func settingsMalformed() async throws {
        let fixture = try NodeFixture()
        let response = await fixture.respond("settings", #"{"time_format":"12h""#)
        #expect(response.error?.code == .invalidJSON)
        #expect(fixture.transport.published.isEmpty)
    }

    @Test("when the settings cannot be stored the command is answered unavailable and nothing is published")
    func settingsStoreFailure() async throws {
        let transport = FakeTransport()
        let node = Node(
            configuration: try makeConfiguration(), transport: transport, store: FailingStore(),
            clock: frozenClock(at: NodeFixture.start), logger: LogRecorder().logger())

        let response = await node.router.respond(verb: "settings", payload: Array(#"{"time_format":"12h"}"#.utf8))

        #expect(response.error?.code == .unavailable)
        #expect(node.settings.current.timeFormat == .twentyFourHour)
        // Nothing but B/status, which says the state folder cannot be written (and names the error).
        _ = await transport.waitForPublished(count: 1)
        #expect(transport.published.allSatisfy { $0.topic.hasSuffix("/status") })
        let storage = transport.published.last?.json?["storage"]
        #expect(storage?["ok"] == false)
        #expect(storage?["error"]?.stringValue?.contains("No space left on device") == true)
    }

    @Test("commands run side by side: a settings change waiting for its write holds neither a ping nor the next change, which shares its write")
    func commandsSideBySide() async throws {
        let store = GateStore()
        var started = store.started.makeAsyncIterator()
        let transport = FakeTransport()
        let node = Node(
            configuration: try makeConfiguration(), transport: transport, store: store, clock: frozenClock(at: NodeFixture.start),
            logger: LogRecorder().logger())
        let topics = node.configuration.topics
        let service = CommandService(transport: transport, topics: topics, router: node.router, logger: LogRecorder().logger())
        // On the node's one thread, as in the node: what resumes first runs first.
        let running = Task(executorPreference: NodeExecutor.shared) { try await service.run() }
        defer { running.cancel() }
        store.close()
        transport.inject(MQTTMessage(topic: topics.command("settings"), text: #"{"time_format":"12h"}"#))
        #expect(await started.next()?["time_format"] == "12h", "the first change's write has started, and hangs")
        transport.inject(MQTTMessage(topic: topics.command("settings"), text: #"{"show_seconds":true}"#))
        transport.inject(MQTTMessage(topic: topics.command("ping"), text: ""))
        let answered = await transport.waitUntilPublished { $0.contains { $0.topic == topics.response("ping") } }
        #expect(answered, "ping is answered while the write hangs")
        #expect(transport.published(on: topics.response("settings")).isEmpty, "no settings change is answered before it is stored")

        store.open()
        _ = await transport.waitUntilPublished { $0.filter { $0.topic == topics.response("settings") }.count == 2 }
        let answers = transport.published(on: topics.response("settings")).compactMap(\.json)
        #expect(answers.map { $0["data"]?["time_format"] } == ["12h", "12h"])
        #expect(answers.map { $0["data"]?["show_seconds"] } == [false, true], "answered in the order sent: \(answers.map(\.serialized)) saved \(store.saved.map(\.serialized))")
        // Two writes: the first, then the second change alone (it waited while the first was written).
        #expect(store.saved.count == 2)
        #expect(store.saved.last?["show_seconds"] == true && store.saved.last?["time_format"] == "12h")
    }

    @Test("at most the window's commands run at once; the others start in the order they came as places free, and every one is answered")
    func window() async throws {
        let transport = FakeTransport()
        let topics = Topics(base: "test", nodeID: "window")
        let held = HeldCommands()
        var router = CommandRouter()
        router.add("hold", shape: .object(bareValue: "n")) { arguments in
            let n = try arguments.requiredInt("n", in: 0...1000, "n")
            await held.hold(n)
            return .number(Double(n))
        }
        let service = CommandService(transport: transport, topics: topics, router: router, logger: LogRecorder().logger())
        let running = Task(executorPreference: NodeExecutor.shared) { try await service.run() }
        defer { running.cancel() }
        let count = CommandService.window + 10
        for n in 0..<count { transport.inject(MQTTMessage(topic: topics.command("hold"), text: "\(n)")) }
        #expect(await eventually(timeout: .seconds(20)) { held.started.count == CommandService.window })
        // Nothing more starts while the window is full: every message has been handed over (the
        // loop runs its calls in order), and a task started then would have run before a job
        // enqueued after it.
        await withCheckedContinuation { continuation in NodeExecutor.shared.execute { continuation.resume() } }
        await Task(executorPreference: NodeExecutor.shared) {}.value
        #expect(held.started.count == CommandService.window)
        held.open()
        #expect(await transport.waitUntilPublished { $0.filter { $0.topic == topics.response("hold") }.count == count })
        #expect(held.started == Array(0..<count), "started in the order they came")
        #expect(held.most == CommandService.window)
    }

    @Test("with nothing in progress a ping is answered as it is read, outside any task; with a command in progress, in a task started after it")
    func immediate() async throws {
        let transport = FakeTransport()
        let topics = Topics(base: "test", nodeID: "immediate")
        let held = HeldCommands()
        let inTask = Recorded<Bool>()
        var router = CommandRouter()
        router.add("hold", shape: .object(bareValue: "n")) { arguments in
            let n = try arguments.requiredInt("n", in: 0...1000, "n")
            await held.hold(n)
            return .number(Double(n))
        }
        router.addImmediate("ping") { _ in
            inTask.append(withUnsafeCurrentTask { $0 != nil })
            return "pong"
        }
        let service = CommandService(transport: transport, topics: topics, router: router, logger: LogRecorder().logger())
        let running = Task(executorPreference: NodeExecutor.shared) { try await service.run() }
        defer { running.cancel() }

        transport.inject(MQTTMessage(topic: topics.command("ping"), text: ""))
        #expect(await transport.waitUntilPublished { $0.filter { $0.topic == topics.response("ping") }.count == 1 })
        #expect(inTask.values == [false], "answered in the loop's call that read it, not in a task")

        transport.inject(MQTTMessage(topic: topics.command("hold"), text: "1"))
        #expect(await eventually(timeout: .seconds(20)) { held.started == [1] })
        transport.inject(MQTTMessage(topic: topics.command("ping"), text: ""))
        #expect(await transport.waitUntilPublished { $0.filter { $0.topic == topics.response("ping") }.count == 2 })
        #expect(inTask.values == [false, true], "behind a command in progress, a task of its own, started after the earlier ones")
        #expect(transport.published(on: topics.response("hold")).isEmpty, "side by side: the held command does not hold the ping")
        held.open()
        #expect(await transport.waitUntilPublished { $0.filter { $0.topic == topics.response("hold") }.count == 1 })
    }

    @Test("an unknown verb is answered unknown_verb")
    func unknownVerb() async throws {
        let fixture = try NodeFixture()
        let response = await fixture.respond("alarm/explode")
        #expect(response.error?.code == .unknownVerb)
    }

    @Test("a settings file moved aside at start is reported by ping until restart")
    func loadProblemInStatus() async throws {
        let store = InMemoryStore([SettingsModel.documentName: ["time_format": "13h"]])
        let fixture = try NodeFixture(store: store)

        let problems = try #require(await fixture.respond("ping").data?["problems"])

        guard case .array(let items) = problems, let first = items.first?.stringValue else {
            Issue.record("expected one problem, got \(problems)")
            return
        }
        #expect(items.count == 1)
        #expect(first.contains("settings.json"))
        #expect(first.contains("time_format"))
    }

    @Test("publishAll publishes status, settings and clock, all retained")
    func publishAll() async throws {
        let fixture = try NodeFixture()
        await fixture.node.publishStartStates()
        let topics = fixture.transport.published.map(\.topic)
        #expect(topics == ["noiseclock/kitchen/status", "noiseclock/kitchen/settings", "noiseclock/kitchen/clock"])
        #expect(fixture.transport.published.allSatisfy { $0.retain })
        #expect(fixture.transport.published.last?.json?["iso"] == "2026-03-10T08:04:00+01:00")
    }

    @Test("an event carries its name and the time in the node's zone, not retained")
    func publishEvent() async throws {
        let fixture = try NodeFixture()
        fixture.node.hub.emit(fixture.node.time.event("noise_started", ["sound": "rain"]))
        let event = try #require(fixture.transport.published(on: "noiseclock/kitchen/event").first)
        #expect(!event.retain)
        #expect(event.json == ["event": "noise_started", "at": "2026-03-10T08:04:00+01:00", "sound": "rain"])
    }
}

/// Commands that wait until the test opens them: which started, in order, and the most held at once.
/// Values appended from `@Sendable` closures, read back in order.
final class Recorded<Value: Sendable>: Sendable {
    private let list = Mutex<[Value]>([])
    func append(_ value: Value) { list.withLock { $0.append(value) } }
    var values: [Value] { list.withLock { $0 } }
}

final class HeldCommands: Sendable {
    private struct State {
        var started: [Int] = []
        var holding = 0
        var most = 0
        var open = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func hold(_ n: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let go = state.withLock { state -> Bool in
                state.started.append(n)
                if state.open { return true }
                state.holding += 1
                state.most = max(state.most, state.holding)
                state.waiting.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            state.holding = 0
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    var started: [Int] { state.withLock { $0.started } }
    var most: Int { state.withLock { $0.most } }
}

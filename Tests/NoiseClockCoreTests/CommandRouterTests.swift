import NoiseClockCore
import Synchronization
import Testing

@Suite("Verb patterns")
struct VerbPatternTests {
    @Test("a literal verb matches only itself")
    func literal() {
        let pattern = VerbPattern("alarm/add")
        #expect(pattern.match("alarm/add") == [:])
        #expect(pattern.match("alarm/delete") == nil)
        #expect(pattern.match("alarm") == nil)
        #expect(pattern.match("alarm/add/x") == nil)
        #expect(pattern.match("alarm/add/") == nil)
        #expect(pattern.match("") == nil)
    }

    @Test("alarm/{id}/enabled captures the id")
    func placeholder() {
        #expect(VerbPattern("alarm/{id}/enabled").match("alarm/a1b2c3/enabled") == ["id": "a1b2c3"])
    }

    @Test("a placeholder does not match an empty segment")
    func emptySegment() {
        #expect(VerbPattern("alarm/{id}/enabled").match("alarm//enabled") == nil)
    }

    @Test("a placeholder pattern needs every literal segment and the same number of segments", arguments: [
        "alarm/a1/disabled", "alarm/a1", "alarm/a1/enabled/x", "alarms/a1/enabled", "alarm/add", "enabled",
    ])
    func placeholderMismatch(verb: String) {
        #expect(VerbPattern("alarm/{id}/enabled").match(verb) == nil)
    }

    @Test("several placeholders are captured by name")
    func severalPlaceholders() {
        #expect(VerbPattern("{kind}/{id}/enabled").match("alarm/x/enabled") == ["kind": "alarm", "id": "x"])
    }

    @Test("a pattern describes itself as written")
    func description() {
        #expect(VerbPattern("alarm/{id}/enabled").description == "alarm/{id}/enabled")
        #expect(VerbPattern("alarm/{id}/enabled").segments == ["alarm", "{id}", "enabled"])
    }
}

/// Counts handler calls across the router's `@Sendable` closures.
final class CallCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

private struct SomeFailure: Error {}

@Suite("Command router")
struct CommandRouterTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("a registered verb runs its handler and answers ok with its data")
    func ok() async {
        var router = CommandRouter()
        router.add("ping") { _ in ["version": "1.0"] }
        let response = await router.respond(verb: "ping", payload: [])
        #expect(response.isOK)
        #expect(response.result.successValue == ["version": "1.0"])
        #expect(response.transaction == nil)
    }

    @Test("respondNow answers a verb that never waits as respond does, transaction included")
    func respondNowImmediate() async {
        let calls = CallCounter()
        var router = CommandRouter()
        router.addImmediate("ping") { _ in
            calls.increment()
            return ["version": "1.0"]
        }
        let now = router.respondNow(verb: "ping", payload: bytes(#"{"transaction":"t7"}"#))
        let later = await router.respond(verb: "ping", payload: bytes(#"{"transaction":"t7"}"#))
        #expect(now?.result.successValue == ["version": "1.0"])
        #expect(now?.transaction == "t7")
        #expect(now?.json == later.json)
        #expect(calls.value == 2)
    }

    @Test("respondNow leaves a verb that may wait to respond, without running its handler")
    func respondNowWaiting() {
        let calls = CallCounter()
        var router = CommandRouter()
        router.add("settings", shape: .object(bareValue: nil)) { _ in
            calls.increment()
            return [:]
        }
        #expect(router.respondNow(verb: "settings", payload: bytes(#"{"a":1}"#)) == nil)
        #expect(calls.value == 0)
    }

    @Test("respondNow refuses an unknown verb and a bad payload as respond does", arguments: [
        ("nope", ""), ("ping", "{"), ("ping", "42"),
    ])
    func respondNowRefuses(verb: String, payload: String) async {
        var router = CommandRouter()
        router.addImmediate("ping") { _ in "pong" }
        let now = router.respondNow(verb: verb, payload: bytes(payload))
        let later = await router.respond(verb: verb, payload: bytes(payload))
        #expect(now?.isOK == false)
        #expect(now?.json == later.json)
    }

    @Test("PRESS runs a no-argument verb")
    func press() async {
        let calls = CallCounter()
        var router = CommandRouter()
        router.add("dismiss") { _ in calls.increment(); return .null }
        let response = await router.respond(verb: "dismiss", payload: bytes("PRESS"))
        #expect(response.isOK)
        #expect(calls.value == 1)
    }

    @Test("an unknown verb is answered unknown_verb, naming the verb")
    func unknownVerb() async throws {
        var router = CommandRouter()
        router.add("ping") { _ in .null }
        let response = await router.respond(verb: "pong", payload: [])
        let error = try #require(response.result.failureValue)
        #expect(error.code == .unknownVerb)
        #expect(error.message.contains("pong"))
    }

    @Test("a router with no routes answers every verb unknown_verb")
    func noRoutes() async {
        let response = await CommandRouter().respond(verb: "ping", payload: [])
        #expect(response.result.failureValue?.code == .unknownVerb)
    }

    @Test("a handler's CommandError becomes the error response with its field")
    func handlerCommandError() async throws {
        var router = CommandRouter()
        router.add("alarm/delete", shape: .object(bareValue: "id")) { _ in throw CommandError(.notFound, "no alarm x", field: "id") }
        let response = await router.respond(verb: "alarm/delete", payload: bytes(#"{"id":"x"}"#))
        #expect(response.json == [
            "status": "error", "error": ["code": "not_found", "message": "no alarm x", "field": "id"],
        ])
    }

    @Test("an argument error thrown inside the handler names its field")
    func handlerArgumentError() async throws {
        var router = CommandRouter()
        router.add("noise/volume", shape: .object(bareValue: "volume")) { arguments in
            .number(Double(try arguments.int("volume", in: 0...100) ?? 0))
        }
        let response = await router.respond(verb: "noise/volume", payload: bytes("101"))
        let error = try #require(response.result.failureValue)
        #expect(error.code == .invalidField)
        #expect(error.field == "volume")
        let ok = await router.respond(verb: "noise/volume", payload: bytes("55"))
        #expect(ok.result.successValue == 55)
    }

    @Test("any other error from a handler becomes internal")
    func handlerOtherError() async throws {
        var router = CommandRouter()
        router.add("ping") { _ in throw SomeFailure() }
        let response = await router.respond(verb: "ping", payload: [])
        let error = try #require(response.result.failureValue)
        #expect(error.code == .internal)
        #expect(error.field == nil)
    }

    @Test("the transaction is echoed on success")
    func transactionOnSuccess() async {
        var router = CommandRouter()
        router.add("ping") { _ in "pong" }
        let response = await router.respond(verb: "ping", payload: bytes(#"{"transaction":"t-1"}"#))
        #expect(response.isOK)
        #expect(response.json[member: "transaction"] == "t-1")
    }

    @Test("the transaction of an object payload is echoed even when the command fails")
    func transactionOnError() async {
        var router = CommandRouter()
        router.add("ping") { _ in .null }
        router.add("fail", shape: .object(bareValue: nil)) { _ in throw CommandError.invalidField("x", "bad") }

        let handlerError = await router.respond(verb: "fail", payload: bytes(#"{"x":1,"transaction":"t-2"}"#))
        #expect(handlerError.json[member: "status"] == "error")
        #expect(handlerError.json[member: "transaction"] == "t-2")

        let unknown = await router.respond(verb: "nope", payload: bytes(#"{"transaction":3}"#))
        #expect(unknown.result.failureValue?.code == .unknownVerb)
        #expect(unknown.json[member: "transaction"] == 3)

        let extraMember = await router.respond(verb: "ping", payload: bytes(#"{"minutes":5,"transaction":"t-4"}"#))
        #expect(extraMember.result.failureValue?.field == "minutes")
        #expect(extraMember.json[member: "transaction"] == "t-4")
    }

    @Test("the transaction is not an argument: a no-argument verb accepts an object holding only a transaction")
    func transactionIsNotAnArgument() async {
        let calls = CallCounter()
        var router = CommandRouter()
        router.add("dismiss") { arguments in
            calls.increment()
            return .bool(arguments.has("transaction"))
        }
        let response = await router.respond(verb: "dismiss", payload: bytes(#"{"transaction":"t"}"#))
        #expect(response.result.successValue == false)
        #expect(calls.value == 1)
    }

    @Test("a rejected payload never reaches the handler", arguments: [
        #"{"volume":"#, "[1]", String(repeating: " ", count: 65_537),
    ])
    func rejectedPayloadSkipsHandler(text: String) async throws {
        let calls = CallCounter()
        var router = CommandRouter()
        router.add("noise/volume", shape: .object(bareValue: "volume")) { _ in calls.increment(); return .null }
        let response = await router.respond(verb: "noise/volume", payload: bytes(text))
        let error = try #require(response.result.failureValue)
        #expect([CommandError.Code.invalidJSON, .tooLarge].contains(error.code))
        #expect(error.field == "payload")
        #expect(calls.value == 0)
    }

    @Test("invalid UTF-8 is answered invalid_json")
    func invalidUTF8() async {
        var router = CommandRouter()
        router.add("noise/play", shape: .object(bareValue: "sound")) { _ in .null }
        let response = await router.respond(verb: "noise/play", payload: [0x72, 0xFF, 0x6E])
        #expect(response.result.failureValue?.code == .invalidJSON)
    }

    @Test("a bare value to a no-argument verb is rejected before the handler runs")
    func bareToNoArgument() async {
        let calls = CallCounter()
        var router = CommandRouter()
        router.add("noise/stop") { _ in calls.increment(); return .null }
        let response = await router.respond(verb: "noise/stop", payload: bytes("55"))
        #expect(response.result.failureValue?.field == "payload")
        #expect(calls.value == 0)
    }

    @Test("topic placeholders reach the handler as path values")
    func pathValues() async {
        var router = CommandRouter()
        router.add("alarm/{id}/enabled", shape: .object(bareValue: "enabled")) { arguments in
            ["id": .string(arguments.path["id"] ?? ""), "enabled": .bool(try arguments.bool("enabled") ?? false)]
        }
        let on = await router.respond(verb: "alarm/a7/enabled", payload: bytes("ON"))
        #expect(on.result.successValue == ["id": "a7", "enabled": true])
        let off = await router.respond(verb: "alarm/b8/enabled", payload: bytes("OFF"))
        #expect(off.result.successValue == ["id": "b8", "enabled": false])
        let empty = await router.respond(verb: "alarm//enabled", payload: bytes("ON"))
        #expect(empty.result.failureValue?.code == .unknownVerb)
    }

    @Test("the first matching route wins")
    func firstMatchWins() async {
        var router = CommandRouter()
        router.add("alarm/add", shape: .object(bareValue: nil)) { _ in "add" }
        router.add("alarm/{id}", shape: .object(bareValue: nil)) { arguments in .string("id " + (arguments.path["id"] ?? "")) }
        router.add("alarm/{other}", shape: .object(bareValue: nil)) { _ in "shadowed" }
        #expect(await router.respond(verb: "alarm/add", payload: []).result.successValue == "add")
        #expect(await router.respond(verb: "alarm/x1", payload: []).result.successValue == "id x1")
        #expect(router.routes.count == 3)
    }

    @Test("in the order added, whether literal or with placeholders: a placeholder route added first shadows a later literal, and a repeated literal the second")
    func orderAcrossKinds() async {
        var router = CommandRouter()
        router.add("ping") { _ in "first ping" }
        router.add("alarm/{id}", shape: .object(bareValue: nil)) { arguments in .string("id " + (arguments.path["id"] ?? "")) }
        router.add("alarm/list") { _ in "list" }
        router.add("ping") { _ in "second ping" }
        router.add("alarm/{id}/{part}", shape: .object(bareValue: nil)) { _ in "parts" }
        router.add("alarm/a1/time") { _ in "shadowed too" }
        #expect(await router.respond(verb: "ping", payload: []).result.successValue == "first ping")
        #expect(await router.respond(verb: "alarm/list", payload: []).result.successValue == "id list")
        #expect(await router.respond(verb: "alarm/a1/time", payload: []).result.successValue == "parts")
        #expect(await router.respond(verb: "alarm", payload: []).result.failureValue?.code == .unknownVerb)
    }
}

/// A command group for the envelope tests: one verb that echoes its argument.
private struct EchoCommands: CommandGroup {
    let prefix: String
    func addCommands(to router: inout CommandRouter) {
        router.add("\(prefix)/echo", shape: .object(bareValue: "text")) { arguments in
            .string(try arguments.requiredString("text", "text is required"))
        }
    }
}

/// Collects the replies a command envelope is answered through.
private final class Replies: Sendable {
    private let responses = Mutex<[CommandResponse]>([])
    var all: [CommandResponse] { responses.withLock { $0 } }
    func add(_ response: CommandResponse) { responses.withLock { $0.append(response) } }
}

@Suite("Command groups and the command envelope")
struct CommandEnvelopeTests {
    @Test("a router built from groups answers every group's verbs, and an envelope is answered through its own reply")
    func groupsAndEnvelope() async {
        let router = CommandRouter(groups: [EchoCommands(prefix: "one"), EchoCommands(prefix: "two")])
        #expect(router.routes.map(\.pattern.description) == ["one/echo", "two/echo"])
        let replies = Replies()
        await router.handle(Command(verb: "two/echo", payload: Array(#"{"text":"hi","transaction":7}"#.utf8), reply: replies.add))
        await router.handle(Command(verb: "three/echo", payload: Array("hi".utf8), reply: replies.add))
        await router.handle(Command(verb: "one/echo", payload: Array("{}".utf8), reply: replies.add))
        let answers = replies.all.map(\.json)
        #expect(answers.count == 3)
        #expect(answers.first == ["status": "ok", "data": "hi", "transaction": 7])
        #expect(answers.dropFirst().first?.objectValue?["error"]?.objectValue?["code"] == "unknown_verb")
        #expect(answers.last?.objectValue?["error"]?.objectValue?["field"] == "text")
    }
}

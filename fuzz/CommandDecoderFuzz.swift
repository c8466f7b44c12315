// libFuzzer target for the command decoder (SPEC §2 Commands, §8 Bad input).
//
// Built by fuzz/fuzz.sh together with every file of Sources/NoiseClockCore into one module (so there
// is no `import NoiseClockCore`). Each input is one command payload (the bytes of an MQTT
// message on B/cmd/VERB). For every input the target
//
//  1. decodes it with `CommandPayload.decode` and checks the result against SPEC §2;
//  2. turns it into `CommandArguments` for every shape a verb has, and runs, synchronously, what
//     each of the node's 22 verbs does with its arguments before any I/O (the typed accessors,
//     `AlarmBook.add/update/delete/duplicate/setEnabled/skipNext/unskip`, `SettingsPatch`);
//  3. answers it through a real `CommandRouter.respond(verb:payload:)` for one verb (chosen by a
//     hash of the input) and requires the same response as step 2;
//  4. reads the input's first line as a verb (topic suffix) and routes an empty payload to it.
//
// Every check that fails calls `fatalError`, which libFuzzer reports as a crash with the input.

import Foundation

// MARK: - Checks

@inline(never)
func fuzzRequire(_ condition: @autoclosure () -> Bool, _ what: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant broken: \(what())") }
}

/// The codes a rejected command may carry (SPEC §2).
let fuzzCodes = Set(CommandError.Code.allCases.map(\.rawValue))

/// An error caused by the command's own input must name the field at fault (SPEC §8: "an error
/// response naming the field"); only `unknown_verb` names none. `allowed` is what it may name.
func fuzzCheck(_ error: CommandError, fieldIn allowed: Set<String>, _ context: @autoclosure () -> String) {
    fuzzRequire(!error.message.isEmpty, "empty error message (\(context()))")
    fuzzRequire(error.code != .internal && error.code != .unavailable, "unexpected \(error) (\(context()))")
    if error.code == .unknownVerb { return }
    guard let field = error.field else { return fuzzRequire(false, "\(error) names no field (\(context()))") }
    fuzzRequire(allowed.contains(field), "\(error) names \"\(field)\", expected one of \(allowed.sorted()) (\(context()))")
}

/// Compact JSON text that parses back to the same value and the same text.
func fuzzRoundTrip(_ value: JSONValue, _ context: @autoclosure () -> String) {
    let text = value.serialized
    let back: JSONValue
    do {
        back = try JSONValue.parse(Array(text.utf8))
    } catch {
        return fuzzRequire(false, "serialized JSON does not parse (\(error)): \(text.prefix(300)) (\(context()))")
    }
    fuzzRequire(back == value, "JSON changed in a round trip: \(text.prefix(300)) (\(context()))")
    fuzzRequire(back.serialized == text, "JSON text changed in a round trip: \(text.prefix(300)) (\(context()))")
}

/// A response as SPEC §2 spells it, serializing to JSON that parses back.
func fuzzCheck(_ response: CommandResponse, transaction: JSONValue?, _ context: @autoclosure () -> String) {
    fuzzRequire(response.transaction == transaction, "transaction not echoed (\(context()))")
    let json = response.json
    guard let members = json.objectValue else { return fuzzRequire(false, "response is not an object (\(context()))") }
    fuzzRequire(members["transaction"] == transaction, "transaction member wrong (\(context()))")
    switch (response.result, members["status"]) {
    case (.success(let data), .string("ok")?):
        fuzzRequire(members["data"] == data && members["error"] == nil, "ok response malformed (\(context()))")
    case (.failure, .string("error")?):
        guard let error = members["error"]?.objectValue else { return fuzzRequire(false, "error response without error object (\(context()))") }
        guard let code = error["code"]?.stringValue else { return fuzzRequire(false, "error response without a code (\(context()))") }
        fuzzRequire(fuzzCodes.contains(code), "unknown error code \(code) (\(context()))")
        fuzzRequire(!(error["message"]?.stringValue ?? "").isEmpty, "error response without a message (\(context()))")
        if let field = error["field"] { fuzzRequire(field.stringValue != nil, "field is not a string (\(context()))") }
        fuzzRequire(members["data"] == nil, "error response with data (\(context()))")
    default:
        fuzzRequire(false, "status does not match the result (\(context()))")
    }
    fuzzRoundTrip(json, context())
}

// MARK: - The node's verbs, as Sources/NoiseClockNode registers them (Node.swift,
// AlarmService.swift, NoiseService.swift); keep in step when a verb is added.

let fuzzVerbs: [(pattern: String, shape: CommandShape)] = [
    ("ping", .none),
    ("settings", .object(bareValue: nil)),
    ("alarm/add", .object(bareValue: "time")),
    ("alarm/update", .object(bareValue: nil)),
    ("alarm/delete", .object(bareValue: "id")),
    ("alarm/duplicate", .object(bareValue: "id")),
    ("alarm/enable", .object(bareValue: "id")),
    ("alarm/disable", .object(bareValue: "id")),
    ("alarm/skip_next", .object(bareValue: "id")),
    ("alarm/unskip", .object(bareValue: "id")),
    ("alarm/{id}/enabled", .object(bareValue: "state")),
    ("timer/start", .object(bareValue: "minutes")),
    ("snooze", .object(bareValue: "minutes")),
    ("dismiss", .none),
    ("noise/play", .object(bareValue: "sound")),
    ("noise/add", .object(bareValue: "sound")),
    ("noise/remove", .object(bareValue: "sound")),
    ("noise/stop", .none),
    ("noise/toggle", .none),
    ("noise/power", .object(bareValue: "state")),
    ("noise/volume", .object(bareValue: "volume")),
    ("noise/sleep", .object(bareValue: "minutes")),
    ("noise/preview", .object(bareValue: "sound")),
]

/// Each verb as a command names it (`alarm/{id}/enabled` → `alarm/a1/enabled`), with its
/// compiled pattern and the path values it yields.
let fuzzRoutes: [(pattern: String, compiled: VerbPattern, shape: CommandShape, verb: String, path: [String: String])] = fuzzVerbs.map {
    let compiled = VerbPattern($0.pattern)
    let verb = $0.pattern.replacingOccurrences(of: "{id}", with: "a1")
    guard let path = compiled.match(verb) else { fatalError("\(verb) does not match \($0.pattern)") }
    return ($0.pattern, compiled, $0.shape, verb, path)
}

// MARK: - Fixed state the handlers act on

let fuzzNow = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18, a Wednesday
let fuzzZone = Zone(identifier: "Europe/Berlin") ?? .utc

/// Two alarms: a1 repeats on weekdays, b2 is a one-shot (so skip_next on it is a conflict).
let fuzzBook: AlarmBook = {
    var book = AlarmBook()
    do {
        _ = try book.add(AlarmDraft(CommandArguments(["time": "07:30", "days": ["mon", "tue", "wed", "thu", "fri"], "label": "Work"])), id: "a1", defaultSound: "bell")
        _ = try book.add(AlarmDraft(CommandArguments(["time": "06:00", "sound": "birds", "snooze_min": 5])), id: "b2", defaultSound: "bell")
    } catch {
        fatalError("seed book: \(error)")
    }
    return book
}()

/// A book with the maximum number of alarms: every add and duplicate is a conflict.
let fuzzFullBook: AlarmBook = {
    var book = fuzzBook
    for n in book.alarms.count..<Alarm.maximumCount {
        guard (try? book.add(AlarmDraft(CommandArguments(["time": "05:00"])), id: "f\(n)", defaultSound: "bell")) != nil else { fatalError("full book") }
    }
    return book
}()

/// What an accepted alarm must satisfy: SPEC §3's ranges, and a stored form that reads back to it.
func fuzzCheckAlarm(_ alarm: Alarm, in book: AlarmBook, _ context: @autoclosure () -> String) {
    fuzzRequire((1...Alarm.maximumLabelLength).contains(alarm.label.count), "label length \(alarm.label.count) (\(context()))")
    fuzzRequire(!alarm.sound.isEmpty, "empty sound (\(context()))")
    fuzzRequire((0...100).contains(alarm.volume), "volume \(alarm.volume) (\(context()))")
    fuzzRequire(Alarm.snoozeChoices.contains(alarm.snoozeMinutes), "snooze_min \(alarm.snoozeMinutes) (\(context()))")
    fuzzRequire((0...600).contains(alarm.fadeInSeconds), "fade_in_s \(alarm.fadeInSeconds) (\(context()))")
    fuzzRequire((1...120).contains(alarm.ringTimeoutMinutes), "ring_timeout_min \(alarm.ringTimeoutMinutes) (\(context()))")
    fuzzRequire(AlarmTime(alarm.time.description) == alarm.time, "time \(alarm.time) does not read back (\(context()))")
    fuzzRequire(book.alarms.filter { $0.id == alarm.id } == [alarm], "alarm \(alarm.id) not in the book exactly once (\(context()))")

    let stored = alarm.stored
    fuzzRoundTrip(stored, context())
    do {
        let direct = try Alarm(stored: stored)
        fuzzRequire(direct == alarm, "Alarm(stored:) differs: \(stored.serialized.prefix(300)) (\(context()))")
        let reread = try Alarm(stored: JSONValue.parse(stored.serializedBytes))
        fuzzRequire(reread == alarm, "alarm differs after its stored text is read back: \(stored.serialized.prefix(300)) (\(context()))")
        let wholeBook = try AlarmBook(stored: JSONValue.parse(book.stored.serializedBytes))
        fuzzRequire(wholeBook == book, "alarms.json does not read back (\(context()))")
    } catch {
        fuzzRequire(false, "stored alarm rejected: \(error): \(stored.serialized.prefix(300)) (\(context()))")
    }

    // What B/alarms publishes: the alarm with its next fire time.
    let next = AlarmSchedule.nextFire(of: alarm, after: fuzzNow, in: fuzzZone)
    if let next {
        fuzzRequire(next > fuzzNow && next.timeIntervalSince(fuzzNow) <= 9 * 86_400, "next fire \(next) (\(context()))")
    } else {
        fuzzRequire(!alarm.enabled, "an enabled alarm never fires (\(context()))")
    }
    fuzzRoundTrip(alarm.json(nextFire: next.map { "\($0.timeIntervalSince1970)" }), context())
}

/// Runs a change on a copy of `book`; a rejected change must leave the book as it was.
func fuzzChange(
    _ book: AlarmBook, _ args: CommandArguments, fieldIn allowed: Set<String>, _ what: String,
    _ change: (inout AlarmBook) throws(CommandError) -> Alarm
) throws(CommandError) -> (AlarmBook, Alarm) {
    var copy = book
    do {
        let alarm = try change(&copy)
        return (copy, alarm)
    } catch {
        fuzzRequire(copy == book, "rejected \(what) changed the book: \(error)")
        fuzzCheck(error, fieldIn: allowed.union(args.values.keys), what)
        throw error
    }
}

// MARK: - What each verb does with its arguments before any I/O (synchronous)

func fuzzID(_ args: CommandArguments) throws(CommandError) -> String {
    try args.allowOnly(["id"])
    return try args.requiredString("id", "the id of an alarm is required")
}

func fuzzInt(_ args: CommandArguments, _ key: String, in range: ClosedRange<Int>) throws(CommandError) -> JSONValue {
    guard let n = try args.int(key, in: range) else { return .null }
    fuzzRequire(range.contains(n), "\(key) \(n) outside \(range)")
    return .number(Double(n))
}

func fuzzHandle(_ pattern: String, _ args: CommandArguments) throws(CommandError) -> JSONValue {
    switch pattern {
    case "ping", "dismiss", "noise/stop", "noise/toggle":
        fuzzRequire(args.values.isEmpty, "\(pattern) got arguments")
        return .object([:])

    case "settings":
        let patch = try SettingsPatch(args)
        for key in (patch.json.objectValue ?? [:]).keys {
            fuzzRequire(args.has(key), "settings patch sets \(key), which was not sent")
        }
        // A patch that was accepted is accepted again from its own JSON, unchanged.
        do {
            let again = try SettingsPatch(CommandArguments(patch.json.objectValue ?? [:]))
            fuzzRequire(again == patch, "settings patch changed through its JSON")
        } catch {
            fuzzRequire(false, "settings patch rejected from its own JSON: \(error)")
        }
        let settings = ClockSettings().applying(patch)
        if !settings.timezone.isEmpty { fuzzRequire(Zone(identifier: settings.timezone) != nil, "unknown zone accepted") }
        fuzzRoundTrip(settings.json, "settings")
        return settings.json

    case "alarm/add":
        let (book, alarm) = try fuzzChange(fuzzBook, args, fieldIn: ["time"], "alarm/add") { (book: inout AlarmBook) throws(CommandError) in
            try book.add(AlarmDraft(args), id: "c3", defaultSound: "bell")
        }
        fuzzRequire(book.alarms.count == fuzzBook.alarms.count + 1 && alarm.id == "c3", "alarm/add did not add one alarm")
        fuzzRequire(Array(book.alarms.prefix(fuzzBook.alarms.count)) == fuzzBook.alarms, "alarm/add changed other alarms")
        fuzzCheckAlarm(alarm, in: book, "alarm/add")
        // The same arguments against a full book: a conflict, and nothing changes.
        var full = fuzzFullBook
        do {
            _ = try full.add(AlarmDraft(args), id: "c3", defaultSound: "bell")
            fuzzRequire(false, "alarm/add accepted a 101st alarm")
        } catch {
            fuzzRequire(error.code == .conflict && full == fuzzFullBook, "full book: \(error)")
        }
        return alarm.stored

    case "alarm/update":
        let (book, alarm) = try fuzzChange(fuzzBook, args, fieldIn: ["id"], "alarm/update") { (book: inout AlarmBook) throws(CommandError) in
            try book.update(AlarmPatch(args))
        }
        fuzzRequire(book.alarms.map(\.id) == fuzzBook.alarms.map(\.id), "alarm/update changed the set of alarms")
        for other in fuzzBook.alarms where other.id != alarm.id {
            fuzzRequire(book.alarms.contains(other), "alarm/update changed another alarm")
        }
        fuzzCheckAlarm(alarm, in: book, "alarm/update")
        return alarm.stored

    case "alarm/delete", "alarm/duplicate", "alarm/enable", "alarm/disable", "alarm/skip_next", "alarm/unskip":
        let id = try fuzzID(args)
        let (book, alarm) = try fuzzChange(fuzzBook, args, fieldIn: ["id"], pattern) { (book: inout AlarmBook) throws(CommandError) in
            switch pattern {
            case "alarm/delete": try book.delete(id)
            case "alarm/duplicate": try book.duplicate(id, newID: "d4")
            case "alarm/enable": try book.setEnabled(id, true)
            case "alarm/disable": try book.setEnabled(id, false)
            case "alarm/skip_next": try book.skipNext(id, now: fuzzNow, in: fuzzZone)
            default: try book.unskip(id)
            }
        }
        if pattern == "alarm/delete" {
            fuzzRequire(book.alarms.count == fuzzBook.alarms.count - 1 && !book.alarms.contains { $0.id == id }, "delete")
        } else {
            fuzzCheckAlarm(alarm, in: book, pattern)
        }
        return .string(alarm.id)

    case "alarm/{id}/enabled":
        try args.allowOnly(["state"])
        guard let on = try args.bool("state") else { throw CommandError.invalidField("state", "ON or OFF is required") }
        let id = args.path["id"] ?? ""
        let (book, alarm) = try fuzzChange(fuzzBook, args, fieldIn: ["id", "state"], pattern) { (book: inout AlarmBook) throws(CommandError) in
            try book.setEnabled(id, on)
        }
        fuzzRequire(alarm.enabled == on, "alarm/\(id)/enabled")
        fuzzCheckAlarm(alarm, in: book, pattern)
        return .string(alarm.id)

    case "timer/start":
        // A draft that decodes is a timer of 1 s to 24 h; a full book refuses it unchanged.
        let draft = try TimerDraft(args)
        fuzzRequire(CountdownTimer.durations.contains(draft.seconds), "timer of \(draft.seconds) s")
        var book = TimerBook()
        let timer = try book.start(draft, id: "t1", label: "Timer", sound: "timer-chime", now: fuzzNow)
        fuzzRequire(timer.remaining(at: fuzzNow) >= Double(draft.seconds), "timer ends early")
        fuzzRequire(timer.label == (draft.label ?? "Timer") && !timer.label.isEmpty, "timer label")
        var full = TimerBook()
        for n in 0..<CountdownTimer.maximumCount { _ = try full.start(TimerDraft(seconds: 60), id: "f\(n)", label: "T", sound: "s", now: fuzzNow) }
        let before = full
        fuzzRequire((try? full.start(draft, id: "t1", label: "Timer", sound: "s", now: fuzzNow)) == nil && full == before, "21st timer")
        return .number(Double(draft.seconds))

    case "snooze":
        try args.allowOnly(["minutes"])
        return try fuzzInt(args, "minutes", in: 1...60)

    case "noise/play":
        try args.allowOnly(["sound", "volume", "sleep_min"])
        let sound = try args.requiredString("sound", "a sound is required")
        return ["sound": .string(sound), "volume": try fuzzInt(args, "volume", in: 0...100), "sleep_min": try fuzzInt(args, "sleep_min", in: 0...720)]
    case "noise/add":
        try args.allowOnly(["sound", "volume"])
        let sound = try args.requiredString("sound", "a sound is required")
        return ["sound": .string(sound), "volume": try fuzzInt(args, "volume", in: 0...100)]
    case "noise/remove", "noise/preview":
        try args.allowOnly(["sound"])
        return .string(try args.requiredString("sound", "a sound is required"))
    case "noise/power":
        try args.allowOnly(["state"])
        guard let on = try args.bool("state") else { throw CommandError.invalidField("state", "ON or OFF is required") }
        return .bool(on)
    case "noise/volume":
        try args.allowOnly(["volume"])
        return .number(Double(try args.requiredInt("volume", in: 0...100, "a volume from 0 to 100 is required")))
    case "noise/sleep":
        try args.allowOnly(["minutes"])
        return .number(Double(try args.requiredInt("minutes", in: 0...720, "minutes from 0 (cancel) to 720 are required")))

    default:
        fatalError("no handler for \(pattern)")
    }
}

/// The fields a verb's handler may name in an error, besides the members it was sent.
func fuzzFields(_ pattern: String) -> Set<String> {
    switch pattern {
    case "alarm/add": ["time", "payload"]
    case "alarm/{id}/enabled": ["id", "state", "payload"]
    case "snooze", "noise/sleep": ["minutes", "payload"]
    case "timer/start": ["minutes", "seconds", "label", "sound", "payload"]
    case "noise/play", "noise/add", "noise/remove", "noise/preview": ["sound", "payload"]
    case "noise/power": ["state", "payload"]
    case "noise/volume": ["volume", "payload"]
    default: ["id", "payload"]
    }
}

// MARK: - The router, with the same handlers

let fuzzRouter: CommandRouter = {
    var router = CommandRouter()
    for (pattern, shape) in fuzzVerbs {
        router.add(pattern, shape: shape) { arguments in try fuzzHandle(pattern, arguments) }
    }
    return router
}()

final class FuzzResponseBox: @unchecked Sendable {
    var response: CommandResponse?
}

/// `CommandRouter.respond` from this synchronous function. The handlers never suspend, so with
/// `Task.immediate` the whole call runs inline on this thread; the semaphore covers the case
/// where it does not.
func fuzzRespond(verb: String, payload: [UInt8]) -> CommandResponse {
    let box = FuzzResponseBox()
    let done = DispatchSemaphore(value: 0)
    let router = fuzzRouter
    Task.immediate {
        box.response = await router.respond(verb: verb, payload: payload)
        done.signal()
    }
    done.wait()
    guard let response = box.response else { fatalError("router gave no response") }
    return response
}

// MARK: - One input

/// FNV-1a, so the verb an input is routed to does not change from run to run.
func fuzzHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
}

/// Checks run once, on the first input: payload size limits that inputs of -max_len never reach.
let fuzzOnce: Void = {
    let limit = CommandPayload.maxBytes
    let over = CommandPayload.decode([UInt8](repeating: UInt8(ascii: " "), count: limit + 1))
    fuzzRequire(over.payload.failure?.code == .tooLarge && over.payload.failure?.field == "payload", "over 64 KiB not too_large")
    let at = CommandPayload.decode([UInt8](repeating: UInt8(ascii: " "), count: limit))
    fuzzRequire(at.payload == .success(.empty), "64 KiB of spaces is not the empty payload")
    let response = fuzzRespond(verb: "noise/volume", payload: Array(("{\"transaction\":\"t\",\"volume\":\"" + String(repeating: "5", count: limit) + "\"}").utf8))
    fuzzRequire(response.result.failure?.code == .tooLarge && response.transaction == nil, "router: over 64 KiB not too_large")
    _ = fuzzFullBook
}()

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

func fuzzOne(_ input: UnsafeBufferPointer<UInt8>) {
    _ = fuzzOnce
    let bytes = Array(input)

    // 1. Decoding.
    let (decoded, transaction) = CommandPayload.decode(bytes)
    let utf8 = String(validating: bytes, as: UTF8.self)
    switch decoded {
    case .failure(let error):
        fuzzRequire(transaction == nil, "transaction returned with a decode error")
        fuzzRequire(error.field == "payload" && [.invalidJSON, .tooLarge].contains(error.code), "decode error \(error)")
        fuzzRequire(error.code == .tooLarge || (bytes.count <= CommandPayload.maxBytes), "too_large under the limit")
    case .success(let payload):
        fuzzRequire(bytes.count <= CommandPayload.maxBytes, "accepted over the limit")
        fuzzRequire(utf8 != nil, "accepted bytes that are not UTF-8")
        switch payload {
        case .empty:
            fuzzRequire(transaction == nil, "transaction with an empty payload")
        case .object(let members):
            fuzzRequire(members["transaction"] == nil, "transaction left among the members")
            // The object and its transaction, written out compactly, decode to the same again.
            var whole = members
            if let transaction { whole["transaction"] = transaction }
            let text = JSONValue.object(whole).serializedBytes
            if text.count <= CommandPayload.maxBytes {
                let again = CommandPayload.decode(text)
                fuzzRequire(again.payload == .success(.object(members)) && again.transaction == transaction, "object payload does not decode again")
            }
        case .bare(let value):
            fuzzRequire(transaction == nil, "transaction with a bare payload")
            switch value {
            case .array, .object: fuzzRequire(false, "bare payload is \(value.typeName)")
            case .string, .null, .bool, .number:
                // Written as JSON (a string in quotes), the value decodes to itself again.
                let text = value.serializedBytes
                if text.count <= CommandPayload.maxBytes {
                    let again = CommandPayload.decode(text)
                    fuzzRequire(again.payload == .success(.bare(value)), "bare \(value.serialized) does not decode again")
                }
            }
        }
    }

    // The same bytes decode to the same answer, message included.
    do {
        let again = CommandPayload.decode(bytes)
        fuzzRequire(again.payload == decoded && again.transaction == transaction, "decoded differently the second time: \(decoded) vs \(again.payload)")
    }
    // Forms (SPEC §2) by the first code point after a byte-order mark and white space: `{` is an
    // object or invalid_json, `[` is invalid_json.
    if let text = utf8 {
        var scalars = Substring(text).unicodeScalars
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        switch scalars.first(where: { !$0.properties.isWhitespace }) {
        case "{":
            if case .success(.object) = decoded {} else {
                fuzzRequire(decoded.failure?.code == .invalidJSON, "payload starting with { decoded as \(decoded)")
            }
        case "[":
            fuzzRequire(decoded.failure?.code == .invalidJSON, "payload starting with [ decoded as \(decoded)")
        default:
            break
        }
    }

    // 2. Arguments for each verb, and what the verb does with them.
    var memberKeys: Set<String> = []
    if case .success(.object(let members)) = decoded { memberKeys = Set(members.keys) }
    var responses: [CommandResponse] = []
    responses.reserveCapacity(fuzzVerbs.count + 1)
    for (pattern, _, shape, verb, path) in fuzzRoutes {
        let result: Result<JSONValue, CommandError>
        do {
            let payload = try decoded.get()
            let args = try CommandArguments(payload: payload, shape: shape, verb: verb, path: path)
            fuzzRequire(args.path == path, "path lost")
            switch (payload, shape) {
            case (.empty, _), (.object, .none): fuzzRequire(args.values.isEmpty, "\(verb): arguments from nothing")
            case (.object(let members), .object): fuzzRequire(args.values == members, "\(verb): members changed")
            case (.bare(let value), .object(let member?)): fuzzRequire(args.values == [member: value], "\(verb): bare value misplaced")
            case (.bare, _): fuzzRequire(false, "\(verb): bare value accepted without a member")
            }
            do {
                result = .success(try fuzzHandle(pattern, args))
            } catch {
                fuzzCheck(error, fieldIn: fuzzFields(pattern).union(args.values.keys), verb)
                result = .failure(error)
            }
        } catch {
            fuzzCheck(error, fieldIn: memberKeys.union(["payload"]), "\(verb) arguments")
            result = .failure(error)
        }
        responses.append(CommandResponse(result, transaction: transaction))
    }
    // An unknown verb: the decode error, else unknown_verb.
    let unknown = CommandResponse(
        decoded.failure.map { .failure($0) } ?? .failure(CommandError(.unknownVerb, "unknown verb \"fuzz/unknown\"")), transaction: transaction)
    responses.append(unknown)
    // Many verbs give the same answer (a decode error, say): each distinct one is checked once.
    for response in Set(responses) { fuzzCheck(response, transaction: transaction, "response") }

    // 3. The real router, for one verb, answers the same.
    let pick = Int(fuzzHash(input) % UInt64(responses.count))
    let verb = pick < fuzzRoutes.count ? fuzzRoutes[pick].verb : "fuzz/unknown"
    let routed = fuzzRespond(verb: verb, payload: bytes)
    fuzzRequire(routed == responses[pick], "router answered \(verb) differently: \(routed.json.serialized.prefix(300)) vs \(responses[pick].json.serialized.prefix(300))")

    // 4. The first line as a verb (what follows B/cmd/ in the topic), with an empty payload.
    let line = bytes.prefix { $0 != UInt8(ascii: "\n") }.prefix(96)
    if let topicVerb = String(validating: Array(line), as: UTF8.self) {
        var matched: (pattern: String, path: [String: String])?
        for (pattern, vp, _, _, _) in fuzzRoutes {
            guard let path = vp.match(topicVerb) else { continue }
            // The captures put back into the pattern give the verb again.
            let rebuilt = vp.segments.map { segment in
                segment.hasPrefix("{") && segment.hasSuffix("}") ? path[String(segment.dropFirst().dropLast()), default: "?"] : segment
            }.joined(separator: "/")
            fuzzRequire(rebuilt == topicVerb, "\(pattern) matched \(topicVerb) as \(path)")
            fuzzRequire(path.values.allSatisfy { !$0.isEmpty && !$0.contains("/") }, "\(pattern) captured \(path)")
            if matched == nil { matched = (pattern, path) }
        }
        let response = fuzzRespond(verb: topicVerb, payload: [])
        fuzzCheck(response, transaction: nil, "verb \(topicVerb.debugDescription)")
        if let matched {
            let expected: Result<JSONValue, CommandError>
            do { expected = .success(try fuzzHandle(matched.pattern, CommandArguments([:], path: matched.path))) } catch { expected = .failure(error) }
            fuzzRequire(response.result == expected, "verb \(topicVerb.debugDescription) routed wrongly")
        } else {
            fuzzRequire(response.result.failure?.code == .unknownVerb, "unmatched verb \(topicVerb.debugDescription) answered \(response.json.serialized)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzOne(UnsafeBufferPointer(start: data, count: size))
    return 0
}

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

// SPEC §8, crash safety: `kill -9` at random instants during a stream of alarm changes never
// corrupts the store, and every change that was answered `ok` survives.

/// An alarm as `alarms.json` stores it, without its id.
private typealias Fields = [String: JSONValue]

/// One alarm change as sent.
private enum Change {
    case add(Fields)
    case update(id: String, Fields)
    case setEnabled(id: String, Bool)
    case delete(id: String)
    case duplicate(id: String)

    var verb: String {
        switch self {
        case .add: "alarm/add"
        case .update: "alarm/update"
        case .setEnabled(_, let on): on ? "alarm/enable" : "alarm/disable"
        case .delete: "alarm/delete"
        case .duplicate: "alarm/duplicate"
        }
    }

    var payload: JSONValue {
        switch self {
        case .add(let fields): .object(fields.filter { $0.key != "skip_next" })
        case .update(let id, let fields): .object(fields.merging(["id": .string(id)]) { a, _ in a })
        case .setEnabled(let id, _), .delete(let id), .duplicate(let id): ["id": .string(id)]
        }
    }
}

/// The alarms a sequence of changes leads to: those whose id is known, and those made by an add or
/// a duplicate whose answer (and so whose id) never came.
private struct Model: Equatable {
    var known: [String: Fields] = [:]
    var unnamed: [Fields] = []

    var count: Int { known.count + unnamed.count }

    /// Applies a change as the node would; `newID` is the id its answer gave an add or a
    /// duplicate. Returns whether the node should answer ok.
    mutating func apply(_ change: Change, newID: String?) -> Bool {
        switch change {
        case .add(let fields):
            guard count < 100 else { return false }
            if let newID { known[newID] = fields } else { unnamed.append(fields) }
        case .update(let id, let changes):
            guard let fields = known[id] else { return false }
            known[id] = fields.merging(changes) { _, new in new }
        case .setEnabled(let id, let on):
            guard known[id] != nil else { return false }
            known[id]?["enabled"] = .bool(on)
        case .delete(let id):
            guard known.removeValue(forKey: id) != nil else { return false }
        case .duplicate(let id):
            guard let fields = known[id], count < 100 else { return false }
            if let newID { known[newID] = fields } else { unnamed.append(fields) }
        }
        return true
    }

    /// Whether `stored` (id → fields, as read from alarms.json) is exactly this model.
    func matches(_ stored: [String: Fields]) -> Bool {
        guard stored.count == count else { return false }
        for (id, fields) in known where stored[id] != fields { return false }
        let others = stored.filter { known[$0.key] == nil }.values.map { JSONValue.object($0).serialized }.sorted()
        return others == unnamed.map { JSONValue.object($0).serialized }.sorted()
    }
}

private func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// alarms.json's alarms by id; nil when the file is not a valid alarms document.
private func storedAlarms(_ path: String) -> (alarms: [String: Fields]?, text: String) {
    guard let data = FileManager.default.contents(atPath: path) else {
        // Missing: no change was ever stored.
        return (FileManager.default.fileExists(atPath: path) ? nil : [:], "")
    }
    let text = String(decoding: data, as: UTF8.self)
    guard let document = try? JSONValue.parse(Array(data)), case .array(let items)? = document["alarms"] else { return (nil, text) }
    var alarms: [String: Fields] = [:]
    for item in items {
        guard var fields = item.objectValue, let id = fields.removeValue(forKey: "id")?.stringValue else { return (nil, text) }
        alarms[id] = fields
    }
    return (alarms, text)
}

@Suite("Crash safety of the alarm store (SPEC §8)")
struct AlarmCrashTests {
    static let cycles = 200

    @Test("kill -9 at random instants during a stream of alarm changes: alarms.json is never corrupt and every change answered ok survives")
    func killDuringChanges() async throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(state: seed)
        let directory = try makeTemporaryDirectory("alarm-crash")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stateDirectory = "\(directory)/state"
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        let storePath = "\(stateDirectory)/alarms.json"

        try await withBroker { broker in
            let node = try NodeProcess(port: broker.port, stateDirectory: stateDirectory, environment: ["NOISECLOCK_AUDIO_DEVICE": "null"])
            let responses = "\(node.topics.node)/response/crash-test"
            try await withStopping(CorrelatedClient(port: broker.port, responseTopic: responses, watching: [node.topics.availability])) { client in
                try await withStopping(node) { node in
                    // Alarm times at least three hours from now (Europe/Berlin), so none rings during the run.
                    var calendar = Calendar(identifier: .gregorian)
                    calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
                    let hourNow = calendar.component(.hour, from: Date())
                    func randomTime() -> String {
                        let hour = (hourNow + Int.random(in: 3...20, using: &random)) % 24, minute = Int.random(in: 0...59, using: &random)
                        return String(format: "%02d:%02d", hour, minute)
                    }
                    let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
                    let sounds = ["digital-alarm", "classic-alarm", "beep-alarm", "siren-alarm", "buzzing-alarm"]
                    var labels = 0
                    func randomLabel() -> JSONValue {
                        labels += 1
                        return .string("L\(labels)")
                    }
                    func randomFields() -> Fields {
                        [
                            "time": .string(randomTime()), "label": randomLabel(),
                            "days": .array(weekdays.filter { _ in Bool.random(using: &random) }.map { .string($0) }),
                            "enabled": .bool(Bool.random(using: &random)), "sound": .string(sounds.randomElement(using: &random)!),
                            "volume": .number(Double(Int.random(in: 0...100, using: &random))),
                            "snooze_min": .number(Double([5, 7, 8, 9, 10, 15, 20].randomElement(using: &random)!)),
                            "fade_in_s": .number(Double(Int.random(in: 0...120, using: &random))),
                            "ring_timeout_min": .number(Double(Int.random(in: 1...30, using: &random))), "skip_next": .null,
                            "skip_holidays": .bool(Bool.random(using: &random)),
                            "escalate_after_s": .number(Double(Int.random(in: 0...600, using: &random))), "escalate_sound": .null,
                            "sunrise_min": .number(Double(Int.random(in: 0...60, using: &random))), "lights": .bool(Bool.random(using: &random)),
                            "briefing": .bool(Bool.random(using: &random)),
                            "earlier_if": Bool.random(using: &random)
                                ? ["snow": .number(Double(Int.random(in: 1...60, using: &random))), "ice": 0, "rain": .number(Double(Int.random(in: 0...60, using: &random)))]
                                : .null,
                            "calendar": .null,
                        ]
                    }

                    /// Starts the node and waits (briefly polling) for its own `online`.
                    func startNode() async throws -> (ChildProcess, Duration) {
                        client.clearMessages()
                        let started = ContinuousClock.now
                        let process = try node.start(logLevel: "warning")
                        let deadline = started + .seconds(15)
                        var online = false
                        while !online, process.isRunning, ContinuousClock.now < deadline {
                            online = client.messages(on: node.topics.availability).contains { $0.text == "online" && !$0.retain }
                            if !online { try? await Task.sleep(for: .milliseconds(1)) }
                        }
                        try #require(online && process.isRunning, "the node did not come online; log:\n\(process.log)")
                        return (process, ContinuousClock.now - started)
                    }

                    var base = Model()
                    var process = try await startNode().0
                    var sequence = 0
                    var sentTotal = 0, acknowledgedTotal = 0, errorsTotal = 0, killedWithChangesInFlight = 0
                    var corrupt = 0, lostCycles = 0, lostChanges = 0, modelMismatches = 0, changedOnStart = 0
                    var storedBeforeAnswered = 0
                    var tempFilesAfterCrash = 0, tempFilesAfterStart = 0, movedAside = 0
                    var restartTimes: [Duration] = []
                    var reports: [String] = []
                    let window = 4
                    let runStarted = ContinuousClock.now

                    for cycle in 1...Self.cycles {
                        // The stream: changes kept `window` deep in flight, targeting alarms whose id is known.
                        var live = Set(base.known.keys)
                        var sent: [(correlation: String, change: Change)] = []
                        var absorbed = 0
                        // Killed at a random instant 5-60 ms in, and not before the cycle's first answer
                        // (up to 3 s): on a loaded machine the restarted node can take longer than the
                        // window to answer, and a run of kills before any answer exercises nothing.
                        let cycleStart = ContinuousClock.now
                        let killAt = cycleStart + .milliseconds(Int.random(in: 5...60, using: &random))
                        while ContinuousClock.now < killAt
                            || (client.answeredCount(sent.map(\.correlation)) == 0 && ContinuousClock.now < cycleStart + .seconds(3)) {
                            // Ids that answered adds and duplicates made become targets.
                            while absorbed < sent.count, let answer = client.answer(sent[absorbed].correlation) {
                                switch sent[absorbed].change {
                                case .add, .duplicate:
                                    if let id = answer["data"]?["id"]?.stringValue { live.insert(id) }
                                default: break
                                }
                                absorbed += 1
                            }
                            if sent.count - client.answeredCount(sent.map(\.correlation)) >= window {
                                try? await Task.sleep(for: .microseconds(200))
                                continue
                            }
                            let target = live.randomElement(using: &random)
                            let roll = Int.random(in: 0..<100, using: &random)
                            let change: Change
                            if let target, live.count >= 3, roll >= 15 || live.count >= 40 {
                                switch roll {
                                case ..<50:
                                    var changes: Fields = [:]
                                    while changes.isEmpty {
                                        if Bool.random(using: &random) { changes["label"] = randomLabel() }
                                        if Bool.random(using: &random) { changes["time"] = .string(randomTime()) }
                                        if Bool.random(using: &random) { changes["volume"] = .number(Double(Int.random(in: 0...100, using: &random))) }
                                    }
                                    change = .update(id: target, changes)
                                case ..<70: change = .setEnabled(id: target, Bool.random(using: &random))
                                case ..<88:
                                    change = .delete(id: target)
                                    live.remove(target)
                                default: change = .duplicate(id: target)
                                }
                            } else {
                                change = .add(randomFields())
                            }
                            sequence += 1
                            let correlation = "c\(sequence)"
                            sent.append((correlation, change))
                            client.send(node.topics.command(change.verb), change.payload.serialized, correlation: correlation)
                        }
                        process.signal(SIGKILL)
                        let killed = ContinuousClock.now
                        while process.isRunning, ContinuousClock.now < killed + .seconds(5) { try? await Task.sleep(for: .milliseconds(1)) }
                        // Answers the node sent before it died may still be on their way.
                        try await Task.sleep(for: .milliseconds(15))

                        // What the changes lead to, for each number of them the node may have applied: at least
                        // every one up to the last answered (commands are handled in order, each stored before
                        // it is answered), at most all that were sent.
                        let answers = sent.map { client.answer($0.correlation) }
                        let lastAnswered = answers.lastIndex { $0 != nil } ?? -1
                        var model = base
                        var candidates: [(applied: Int, model: Model)] = []
                        for (index, item) in sent.enumerated() {
                            candidates.append((index, model))
                            let answer = answers[index]
                            let ok = model.apply(item.change, newID: answer?["status"] == "ok" ? answer?["data"]?["id"]?.stringValue : nil)
                            if let answer {
                                if answer["status"] == "ok" { acknowledgedTotal += 1 } else { errorsTotal += 1 }
                                if ok != (answer["status"] == "ok") {
                                    modelMismatches += 1
                                    reports.append("cycle \(cycle): \(item.change.verb) \(item.change.payload.serialized) answered \(answer.serialized)")
                                }
                            }
                        }
                        candidates.append((sent.count, model))
                        sentTotal += sent.count
                        if lastAnswered + 1 < sent.count { killedWithChangesInFlight += 1 }

                        tempFilesAfterCrash += try temporaryFiles(in: stateDirectory).count
                        let (stored, text) = storedAlarms(storePath)
                        if let stored {
                            if let applied = candidates.last(where: { $0.model.matches(stored) })?.applied, applied > lastAnswered + 1 {
                                storedBeforeAnswered += 1
                            }
                            if !candidates.contains(where: { $0.applied > lastAnswered && $0.model.matches(stored) }) {
                                lostCycles += 1
                                // The acknowledged changes after the longest prefix that is there.
                                let present = candidates.last { $0.model.matches(stored) }?.applied ?? 0
                                let missing = (present..<(lastAnswered + 1)).filter { answers[$0]?["status"] == "ok" }.count
                                lostChanges += max(1, missing)
                                reports.append("cycle \(cycle): acknowledged changes missing (\(missing)); sent \(sent.map { "\($0.change.verb) \($0.change.payload.serialized)" }), answered \(lastAnswered + 1); file: \(text)")
                            }
                        } else {
                            corrupt += 1
                            reports.append("cycle \(cycle): alarms.json is not a valid alarms document: \(text.prefix(500))")
                        }

                        let restarted = try await startNode()
                        process = restarted.0
                        restartTimes.append(restarted.1)
                        // A killed node's leftovers; the new node's own save in progress (a ring or a missed
                        // alarm its clock adopted at start, `.alarms.json.tmp-<its pid>-…`) is not one.
                        let left = try temporaryFiles(in: stateDirectory).filter { !$0.hasPrefix(".alarms.json.tmp-\(process.pid)-") }
                        tempFilesAfterStart += left.count
                        movedAside = try FileManager.default.contentsOfDirectory(atPath: stateDirectory).filter { $0.contains(".unreadable") }.count
                        // The node goes on from what it loaded; that is the next cycle's starting point.
                        let reloaded = storedAlarms(storePath)
                        guard let alarms = reloaded.alarms else {
                            corrupt += 1
                            reports.append("cycle \(cycle): alarms.json unreadable after the restart: \(reloaded.text.prefix(500))")
                            break
                        }
                        if let stored, alarms != stored { changedOnStart += 1 }
                        base = Model(known: alarms)
                        if reports.count > 20 { break }
                    }
                    let elapsed = ContinuousClock.now - runStarted
                    process.signal(SIGKILL)

                    let cycles = restartTimes.count
                    let sortedRestarts = restartTimes.sorted()
                    let median = sortedRestarts.isEmpty ? .zero : sortedRestarts[sortedRestarts.count / 2]
                    let figures = """
                        alarm store crash test (seed \(seed)): \(cycles) kill -9 cycles in \(String(format: "%.1f", milliseconds(elapsed) / 1000)) s; \
                        \(sentTotal) changes sent, \(acknowledgedTotal) answered ok, \(errorsTotal) answered with an error, \
                        \(killedWithChangesInFlight) kills with changes in flight, \(storedBeforeAnswered) of them with a change stored but not yet answered; corrupt stores: \(corrupt); \
                        lost acknowledged changes: \(lostChanges) (in \(lostCycles) cycles); temporary files left by a kill: \(tempFilesAfterCrash), \
                        after the next start: \(tempFilesAfterStart); files moved aside: \(movedAside); \
                        restart to online: median \(Int(milliseconds(median))) ms, max \(Int(milliseconds(sortedRestarts.last ?? .zero))) ms
                        """
                    print(figures)
                    for report in reports.prefix(20) { print(report) }

                    #expect(cycles >= Self.cycles, "\(figures)")
                    #expect(corrupt == 0, "\(figures)\n\(reports.joined(separator: "\n"))")
                    #expect(lostChanges == 0, "\(figures)\n\(reports.joined(separator: "\n"))")
                    #expect(tempFilesAfterStart == 0, "temporary files survived a start")
                    #expect(movedAside == 0, "the node moved its store aside")
                    #expect(changedOnStart == 0, "starting the node changed its stored alarms")
                    #expect(modelMismatches == 0, "answers differ from the model: \(reports.joined(separator: "\n"))")
                    // The run must have exercised something: changes answered, and kills with changes in flight.
                    #expect(acknowledgedTotal >= cycles / 2)
                    #expect(killedWithChangesInFlight >= cycles / 2)
                }
            }
        }
    }

    /// The temporary files of an unfinished `alarms.json` save.
    private func temporaryFiles(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".alarms.json.tmp-") }
    }
}

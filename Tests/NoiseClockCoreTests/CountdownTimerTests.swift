import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

@Suite("Countdown timers: the book, the clockwork and the stored form")
struct CountdownTimerTests {
    let start = UTC.date(2026, 11, 23, 18, 0)
    let clockwork = TimerClockwork(ringTimeout: 60, grace: 600)

    private func arguments(_ json: String) -> CommandArguments {
        guard case .success(.object(let members)) = decodePayload(json).payload else { return CommandArguments() }
        return CommandArguments(members)
    }

    private func book(_ seconds: [Int]) throws -> TimerBook {
        var book = TimerBook()
        for (index, length) in seconds.enumerated() {
            _ = try book.start(TimerDraft(seconds: length), id: "t\(index)", label: "Timer", sound: "timer-chime", now: start)
        }
        return book
    }

    @Test("timer/start takes minutes or seconds, a label and a sound; anything else is named", arguments: [
        (#"{"seconds":0}"#, "seconds"), (#"{"minutes":0}"#, "minutes"), (#"{"minutes":1441}"#, "minutes"), (#"{}"#, "minutes"),
        (#"{"minutes":5,"seconds":30}"#, "seconds"), (#"{"minutes":5,"label":""}"#, "label"), (#"{"minutes":5,"sound":""}"#, "sound"),
        (#"{"minutes":"soon"}"#, "minutes"), (#"{"minutes":5,"colour":1}"#, "colour"),
    ])
    func draftErrors(payload: String, field: String) {
        #expect(throws: CommandError.self) { try TimerDraft(arguments(payload)) }
        #expect((try? TimerDraft(arguments(payload))) == nil)
        do {
            _ = try TimerDraft(arguments(payload))
        } catch {
            #expect(error.field == field, "\(payload)")
        }
    }

    @Test("a draft in minutes or seconds, with its own label and sound")
    func drafts() throws {
        #expect(try TimerDraft(arguments(#"{"minutes":5}"#)) == TimerDraft(seconds: 300))
        #expect(try TimerDraft(arguments(#"{"seconds":90,"label":"Eggs","sound":"soft-bell"}"#)) == TimerDraft(seconds: 90, label: "Eggs", sound: "soft-bell"))
    }

    @Test("pause keeps what is left, resume counts it down again, extend adds to either; cancel removes; the 21st is refused")
    func book() throws {
        var book = try book([300])
        let paused = try book.pause("t0", now: start.addingTimeInterval(100))
        #expect(paused.state == .paused(remaining: 200))
        #expect(throws: CommandError.self) { try book.pause("t0", now: start) }
        _ = try book.extend("t0", seconds: 60, now: start.addingTimeInterval(150))
        let resumed = try book.resume("t0", now: start.addingTimeInterval(1000))
        #expect(resumed.state == .running(endsAt: start.addingTimeInterval(1260)))
        #expect(resumed.durationSeconds == 360)
        #expect(resumed.remaining(at: start.addingTimeInterval(1200)) == 60)
        _ = try book.remove("t0")
        #expect(book.timers.isEmpty)
        #expect((try? book.remove("t0")) == nil)
        var full = try self.book(Array(repeating: 60, count: 20))
        #expect(throws: CommandError.self) { try full.start(TimerDraft(seconds: 60), id: "x", label: "Timer", sound: "s", now: start) }
    }

    @Test("a timer rings at its end, is silenced after the ring timeout, and the wake-ups say when")
    func ringAndSilence() throws {
        let book = try book([90, 30])
        let first = clockwork.step(book, now: start, previous: nil)
        #expect(first.wake == start.addingTimeInterval(30))
        let ring = clockwork.step(first.book, now: start.addingTimeInterval(30), previous: start)
        #expect(ring.finished.map(\.id) == ["t1"])
        #expect(ring.wake == start.addingTimeInterval(90))
        let both = clockwork.step(ring.book, now: start.addingTimeInterval(90), previous: start.addingTimeInterval(30))
        // At 90 s t0 ends, and t1 has rung its 60 s.
        #expect(both.finished.map(\.id) == ["t0"])
        #expect(both.silenced.map(\.id) == ["t1"])
        #expect(both.book.ringing.map(\.id) == ["t0"])
        #expect(both.wake == start.addingTimeInterval(150))
        let over = clockwork.step(both.book, now: start.addingTimeInterval(150), previous: start.addingTimeInterval(90))
        #expect(over.silenced.map(\.id) == ["t0"])
        #expect(over.book.timers.isEmpty)
        #expect(over.wake == nil)
    }

    @Test("after a restart: a timer that ended within the grace rings at once, one that ended earlier is missed")
    func restart() throws {
        let stored = try book([60, 120]).stored
        let reread = try TimerBook(stored: JSONValue.parse(stored.serializedBytes))
        #expect(reread == (try book([60, 120])))
        let later = clockwork.step(reread, now: start.addingTimeInterval(60 + 601), previous: nil)
        #expect(later.missed.map(\.id) == ["t0"])
        #expect(later.finished.map(\.id) == ["t1"])
    }

    @Test("the wall clock set back an hour: a running timer keeps what it had left")
    func setBack() throws {
        let book = try book([600])
        let step = clockwork.step(book, now: start.addingTimeInterval(-3600 + 100), previous: start.addingTimeInterval(100))
        #expect(step.book.timers.first?.remaining(at: start.addingTimeInterval(-3600 + 100)) == 500)
        #expect(step.finished.isEmpty)
    }

    @Test("following the wake-ups, every timer rings exactly at its end and is silenced exactly a ring timeout later")
    func onTime() async {
        await propertyCheck(count: 100, input: Gen.int(in: 1...3600).array(of: 1...6)) { lengths in
            await computeInTurn {
                var book = TimerBook()
                for (index, length) in lengths.enumerated() {
                    _ = try? book.start(TimerDraft(seconds: length), id: "t\(index)", label: "Timer", sound: "s", now: start)
                }
                var now = start, previous: Date?
                var rang: [String: Date] = [:], silenced: [String: Date] = [:]
                for _ in 0..<40 {
                    let step = clockwork.step(book, now: now, previous: previous)
                    for timer in step.finished { rang[timer.id] = now }
                    for timer in step.silenced { silenced[timer.id] = now }
                    book = step.book
                    guard let wake = step.wake else { break }
                    #expect(wake > now || step.finished.isEmpty == false || step.silenced.isEmpty == false)
                    previous = now
                    now = max(wake, now)
                    if wake <= previous ?? now { now = (previous ?? now).addingTimeInterval(0.001) }
                }
                for (index, length) in lengths.enumerated() {
                    let end = start.addingTimeInterval(Double(length))
                    #expect(rang["t\(index)"] == end, "t\(index) of \(length) s")
                    #expect(silenced["t\(index)"] == end.addingTimeInterval(60), "t\(index) of \(length) s")
                }
            }
        }
    }

    @Test("a timer started or resumed at a fraction of a second ends on the next whole second, never early", arguments: [0.0, 0.001, 0.4, 0.999])
    func wholeSecondEnds(fraction: Double) throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000 + fraction)
        var book = TimerBook()
        let timer = try book.start(TimerDraft(seconds: 300), id: "t", label: "Timer", sound: "s", now: now)
        guard case .running(let endsAt) = timer.state else { Issue.record("not running"); return }
        #expect(endsAt.timeIntervalSince1970 == (1_800_000_300 + fraction).rounded(.up))
        #expect(endsAt.timeIntervalSince(now) >= 300 && endsAt.timeIntervalSince(now) < 301)
        _ = try book.pause("t", now: now.addingTimeInterval(10.25))
        let resumed = try book.resume("t", now: now.addingTimeInterval(20))
        guard case .running(let again) = resumed.state else { Issue.record("not running"); return }
        #expect(again.timeIntervalSince1970 == again.timeIntervalSince1970.rounded())
        #expect(again >= now.addingTimeInterval(20 + endsAt.timeIntervalSince(now) - 10.25))
    }
}

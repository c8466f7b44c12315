// noiseclock-calendar: the occurrences of an iCalendar feed in a window, with libical (SPEC §17).
// The node runs it for each feed it fetched: the feed as FILE or on stdin (at most 20 MB), one
// JSON object a line on stdout, sorted by start (timed) or date (all-day):
//
//     noiseclock-calendar --from 2026-12-06 --days 8 --zone Europe/Berlin work.ics
//     {"uid":"a@x","summary":"Dentist","start":1796884200,"end":1796886000,"all_day":false}
//     {"uid":"b@x","summary":"Urlaub","date":"2026-12-08","end_date":"2026-12-10","all_day":true}
//
// Exit 0 with the occurrences (events that cannot be read are skipped and counted in one line on
// stderr); 1 when the input is not an iCalendar feed or is larger than 20 MB; 2 for bad arguments.
// libical lives here and not in the node: Debian's links ICU, which the node's process never loads.

#if canImport(Glibc)
import Glibc
#endif
import NoiseClockICal

func say(_ message: String) {
    let text = Array("noiseclock-calendar: \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String, code: Int32) -> Never {
    say(message)
    exit(code)
}

/// All of `text` to stdout; a reader gone ends this process (SIGPIPE).
func send(_ text: [UInt8]) {
    var sent = 0
    while sent < text.count {
        let n = text.withUnsafeBytes { write(1, $0.baseAddress.map { $0 + sent }, text.count - sent) }
        if n < 0 {
            if errno == EINTR { continue }
            exit(1)
        }
        sent += n
    }
}

var from: CalendarDate?, days: Int?, zone: String?, path: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let next = arguments.popFirst() else { fail("\(argument) needs a value", code: 2) }
        return next
    }
    switch argument {
    case "--from":
        let text = value()
        guard let date = CalendarDate(iso: text) else { fail("--from needs a date YYYY-MM-DD, not \"\(text)\"", code: 2) }
        from = date
    case "--days":
        let text = value()
        guard let number = Int(text), (1...ICalFeed.maximumDays).contains(number) else {
            fail("--days needs a number of days from 1 to \(ICalFeed.maximumDays), not \"\(text)\"", code: 2)
        }
        days = number
    case "--zone":
        let text = value()
        guard ICalFeed.knowsZone(text) else { fail("--zone needs an IANA time zone such as Europe/Berlin, not \"\(text)\"", code: 2) }
        zone = text
    case "-": path = nil
    default:
        guard !argument.hasPrefix("-"), path == nil else { fail("unknown argument \(argument)", code: 2) }
        path = argument
    }
}
guard let from else { fail("--from is missing (the window's first day, YYYY-MM-DD)", code: 2) }
guard let days else { fail("--days is missing (the window's length in days)", code: 2) }
guard let zone else { fail("--zone is missing (an IANA time zone such as Europe/Berlin)", code: 2) }

// The feed, at most one byte more than allowed (so that a larger one is known as larger).
var feed: [UInt8] = []
let descriptor: Int32 = path.map { open($0, O_RDONLY | O_CLOEXEC) } ?? 0
if descriptor < 0 { fail("FILE cannot be read: \(path ?? ""): \(String(cString: strerror(errno)))", code: 2) }
var chunk = [UInt8](repeating: 0, count: 65_536)
while feed.count <= ICalFeed.maximumBytes {
    let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if n < 0, errno == EINTR { continue }
    if n < 0 { fail("the feed cannot be read: \(String(cString: strerror(errno)))", code: 1) }
    if n == 0 { break }
    feed.append(contentsOf: chunk[..<n])
}
if feed.count > ICalFeed.maximumBytes { fail("the feed is larger than 20 MB", code: 1) }

do {
    let expansion = try ICalFeed.expand(feed, from: from, days: days, zone: zone)
    feed = []
    var out: [UInt8] = []
    for occurrence in expansion.occurrences {
        out.append(contentsOf: occurrence.jsonLine.utf8)
        out.append(0x0A)
        if out.count >= 65_536 {
            send(out)
            out.removeAll(keepingCapacity: true)
        }
    }
    send(out)
    for warning in expansion.warnings { say(warning) }
    if expansion.skipped > 0 {
        say("skipped \(expansion.skipped) event\(expansion.skipped == 1 ? "" : "s") that cannot be read (no readable DTSTART or RECURRENCE-ID)")
    }
} catch {
    fail(error.description, code: 1)
}
exit(0)

import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import Testing

/// The checkout's root, from this file's path.
private let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// An instant written as ISO 8601 with its offset.
private func at(_ text: String) throws -> Date {
    try #require(ISO8601DateFormatter().date(from: text), "not an ISO time: \(text)")
}

/// A tone of `seconds` made by sox, as an MP3 tagged by lame (`--tt NAME --ta TEACHER`, or untagged).
/// Waits for the tools without blocking a thread: the suite shares two cooperative threads, and the
/// Chromium and WebKit tests making their files at once with `waitUntilExit` held both for seconds.
private func makeMP3(_ path: String, seconds: Int, tags: [String]) async throws {
    try await make("/usr/bin/sox", ["-n", "-r", "44100", "-c", "1", path + ".wav", "synth", "\(seconds)", "sine", "220", "vol", "0.2"])
    try await make("/usr/bin/lame", ["--quiet"] + tags + [path + ".wav", path])
    try FileManager.default.removeItem(atPath: path + ".wav")
}

private func make(_ tool: String, _ arguments: [String]) async throws {
    let run = try await runTool(tool, arguments)
    try #require(run.code == 0, "\(tool) \(arguments) failed: \(run.output)")
}

/// `Tests/Face/face_browser_test.py` run against a real node and broker, in one browser. Shared by
/// the Chromium and the WebKit tests.
enum FaceBrowserScript {
    /// One line of the script's report.
    struct Check {
        var name: String
        var ok: Bool
        var detail: String
    }

    static let path = "\(checkout)/Tests/Face/face_browser_test.py"

    static func checks(in log: String) -> [Check] {
        log.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("{"), let value = try? JSONValue.parse(Array(line.utf8)), let name = value.objectValue?["check"]?.stringValue else {
                return nil
            }
            return Check(name: name, ok: value.objectValue?["ok"]?.boolValue == true, detail: value.objectValue?["detail"]?.stringValue ?? "")
        }
    }

    /// Starts a node (its clock at 2026-06-15 07:00 Berlin through libfaketime, an alarm at 07:30 unless not `ringing`,
    /// a folder of guided meditations by two teachers, one untagged and one broken, radio stations,
    /// with `liveRadio` one playing from a real Icecast) serving the face
    /// from `faceFolder(directory)`, runs the script with `arguments` (besides its URL, screenshots
    /// unless `screenshots` is false, ringing (unless not `ringing`), the broker's port and disconnection options; `extra`
    /// joins the node's environment, `files` are written to its folder for `more` configuration), stops the node when the
    /// script waits for that, and
    /// returns the checks it reported. A failed check is recorded as an issue; so is an exit code
    /// other than 0.
    static func run(
        _ arguments: [String], screenshots: Bool = true, liveRadio: Bool = false, audioDevice: String = "null", ringing: Bool = true,
        environment extra: [String: String] = [:], files: [String: String] = [:], configuration more: String = "",
        faceFolder: (_ directory: String) async throws -> String = { _ in "\(checkout)/Resources/face" }
    ) async throws -> [Check] {
        var arguments = arguments
        // The node's radio (SPEC §15): a station directory on loopback answering every search with
        // three stations; two stations that cannot be reached (the panel shows them connecting and
        // retrying) and, with `liveRadio`, one from a real Icecast with an ICY title.
        let stationDirectory = try FaultServer(.body(directoryAnswer, contentType: "application/json"))
        defer { stationDirectory.close() }
        var configuration = """
            radio:
              buffer_s: 2
              directory: "http://127.0.0.1:\(stationDirectory.port)"
              stations:
                - {id: night-jazz, name: "Night Jazz", url: "http://127.0.0.1:1/night.mp3"}
                - {id: drone-zone, name: "Drone Zone", url: "http://127.0.0.1:1/drone.pls"}

            """
        var icecast: Icecast?
        if liveRadio {
            let server = try await Icecast()
            try await server.feed("morning", .mp3, name: "Morning FM")
            let title = "Morgenmagazin – Nachrichten, Wetter und die langen Lieder der frühen Stunden"
            try await server.setTitle("morning", title)
            configuration += "    - {id: morning-fm, name: \"Morning FM\", url: \"\(server.url("morning"))\"}\n"
            arguments += ["--radio-live", "morning-fm", "--radio-title", title]
            icecast = server
        }
        defer { withExtendedLifetime(icecast) {} }
        for tool in ["/usr/bin/python3", "/usr/bin/nice", "/usr/bin/sox", "/usr/bin/lame"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing (scripts/install-deps.sh installs it)")
        }
        let port = freeLoopbackPort()
        let clock = try await FakeTime(at: try at("2026-06-15T07:00:00+02:00"))
        let directory = try makeTemporaryDirectory("face-browser")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = FaceFixture.environment(port: port, folder: try await faceFolder(directory))
        environment.merge(clock.environment) { _, new in new }
        environment["NOISECLOCK_CLOCK_TIMEZONE"] = "Europe/Berlin"
        environment["NOISECLOCK_AUDIO_DEVICE"] = audioDevice
        // Speech (SPEC §16) at any hour of the run: no quiet hours hold what the face is to show.
        environment["NOISECLOCK_SPEECH_QUIET_HOURS_START"] = ""
        environment["NOISECLOCK_SPEECH_QUIET_HOURS_END"] = ""
        // Guided meditations by two teachers, one untagged (its file name, no teacher) and one broken.
        let meditations = "\(directory)/meditations"
        try FileManager.default.createDirectory(atPath: meditations, withIntermediateDirectories: true)
        try await makeMP3("\(meditations)/body-scan.mp3", seconds: 20, tags: ["--tt", "Body Scan", "--ta", "Tara Brach"])
        try await makeMP3("\(meditations)/morning.mp3", seconds: 20, tags: ["--tt", "Morning Breath", "--ta", "Jon Kabat-Zinn"])
        try await makeMP3("\(meditations)/evening-rest.mp3", seconds: 12, tags: [])
        try "not an MP3\n".write(toFile: "\(meditations)/broken.mp3", atomically: true, encoding: .utf8)
        environment["NOISECLOCK_MEDITATIONS_DIR"] = meditations
        environment.merge(extra) { _, new in new }
        // Files the configuration names (a calendar feed), and that configuration, with DIR for their folder.
        for (name, text) in files {
            try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8)
        }
        configuration += more.replacingOccurrences(of: "DIR", with: directory)
        return try await withNode(environment: environment, configuration: configuration) { node, process, client in
            let up = await eventually(timeout: .seconds(10)) {
                (try? await FaceHTTP.request(port: port, path: "/api/state", headers: [])) != nil
            }
            try #require(up, "the face did not listen; log:\n\(process.log)")
            if ringing {
                let added = try await client.request(node.topics, "alarm/add", #"{"time":"07:30","label":"Work"}"#)
                try #require(added["status"] == "ok", "\(added.serialized)")
            }
            // When the script reaches its ringing check, it sets the node's clock (libfaketime's
            // offset file) to 2 s before 07:30; later it may move it on to make a German alarm ring.
            let ringAt = try at("2026-06-15T07:29:58+02:00").timeIntervalSince1970
            // The pictures go with the test's folder, or to NOISECLOCK_SCREENSHOTS (e.g. docs/screenshots) to be kept.
            let shots = ProcessInfo.processInfo.environment["NOISECLOCK_SCREENSHOTS"].flatMap { $0.isEmpty ? nil : $0 } ?? directory
            // At the lowest priority: a browser rendering several sizes would otherwise take both cores
            // from the other tests' brokers, nodes and clients, which run meanwhile.
            let script = try ChildProcess(
                "/usr/bin/nice",
                ["-n", "19", "/usr/bin/python3", path, "--url", "http://127.0.0.1:\(port)/"] + (screenshots ? ["--screenshots", shots] : [])
                    + (ringing ? ["--check-ringing", "--ring-at", "\(ringAt)", "--ringing-timeout", "30"] : [])
                    + ["--clock-file", clock.file, "--check-disconnect", "--mqtt-port", "\(node.port)"] + arguments,
                logPath: "\(directory)/browser.log")
            // The script says when it is ready for the node to go; then the node is stopped under it.
            let ready = await eventually(timeout: .seconds(900)) { script.log.contains("waiting for the node to stop") || !script.isRunning }
            #expect(ready, "the script never reached its disconnection check:\n\(script.log)")
            process.signal(SIGTERM)
            _ = await process.waitForExit(timeout: eventHangGuard)
            let code = await script.waitForExit(timeout: .seconds(120))
            let results = checks(in: script.log)
            for failed in results where !failed.ok {
                Issue.record("browser check failed: \(failed.name): \(failed.detail)")
            }
            #expect(code == 0, "the browser script exited \(code.map(String.init) ?? "late"):\n\(script.log)")
            return results
        }
    }

    /// A node whose weather is what an automation publishes to `t/wx` (the script publishes it).
    /// In Berlin: B/display has the day's sunset and sunrise (the face's moon).
    static let weather = [
        "NOISECLOCK_WEATHER_SOURCE": "mqtt", "NOISECLOCK_WEATHER_TOPIC": "t/wx", "NOISECLOCK_DISPLAY_LATITUDE": "52.52",
        "NOISECLOCK_DISPLAY_LONGITUDE": "13.41",
    ]

    /// A calendar feed (SPEC §17) in a file: a dentist's appointment at 07:30 Berlin on Tuesday 16 June 2026.
    static let dentist = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//NoiseClock tests//EN\r
        BEGIN:VEVENT\r
        UID:dentist@noiseclock.test\r
        DTSTAMP:20260601T000000Z\r
        DTSTART;TZID=Europe/Berlin:20260616T073000\r
        DTEND;TZID=Europe/Berlin:20260616T080000\r
        SUMMARY:Dentist\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// The node's calendar: that feed, as `work` (the alarm editor offers it).
    static let feeds = """
        calendar:
          feeds:
            - {id: work, file: "DIR/work.ics"}

        """

    /// The day's checks both engines run (SPEC §17).
    static let weatherChecks = [
        "weather: none published, no overlay", "weather: the overlay shows the temperature, the low and the high, and the icon of its kind",
        "weather: an icon of its own for every kind the node names", "weather: in the red theme red alone",
        "weather: stale, it is dimmed and says when it is from (German), the saying as large and strong as the rest", "weather: a new report is current again",
        "day: the editor has Earlier if, off", "day: the calendar section is there exactly when the node has feeds",
        "day: Earlier if sets the alarm's earlier_if on the node (B/alarms)", "day: the alarm list says why an alarm moved",
        "weather: after sunset a moon for a clear sky, behind a cloud, and over showers", "day: an alarm that follows the calendar names the event",
        // SPEC §7's browser row with the weather on the face: it adds no update and no loop.
        "idle, seconds hidden: no DOM update in 5 s", "no animation-frame loop",
    ]

    /// A radio-browser directory's answer: three jazz stations on loopback addresses.
    static let directoryAnswer = """
        [{"name":"Swiss Jazz","url":"http://127.0.0.1:9/swissjazz.pls","url_resolved":"http://127.0.0.1:9/swissjazz.mp3","codec":"MP3","bitrate":128,"countrycode":"CH","tags":"jazz,smooth jazz"},
         {"name":"Jazz Radio Berlin","url":"http://127.0.0.1:9/berlin.aac","codec":"AAC","bitrate":64,"countrycode":"DE","tags":"jazz,soul"},
         {"name":"Late Night Jazz","url":"http://127.0.0.1:9/late.ogg","codec":"OGG","bitrate":96,"countrycode":"DE","tags":"jazz"}]
        """

    /// Runs `python3 face_browser_test.py --prepare-face folder`: a copy of the face whose page runs
    /// the test's instrumentation (Tests/Face/face_init.js) before its own scripts.
    static func prepareFace(_ folder: String) async throws {
        try await make("/usr/bin/python3", [path, "--prepare-face", folder])
    }
}

/// The real face (Resources/face) in headless Chromium (Selenium, `Tests/Face/face_browser_test.py`)
/// against a real node and broker: every size, fixed digit cells in every font, touch targets and
/// names in every panel, a theme change within a second, the DOM update rate and no animation-frame
/// loop, the JS heap; timers (a preset counting in the panel and under the time, pause, +1 min,
/// cancel, a 3 s timer finishing in the view that names it), a meditation session (countdown,
/// affirmation, pause/resume/stop, choices, stats) and the guided meditations of a folder of MP3s
/// (by teacher, played, sought, renamed); a ringing alarm (a short tap on Dismiss does not dismiss,
/// a hold does; it comes before a finished timer), every screen in German without an English text
/// (a German alarm ringing and snoozed too), the language switched under a running page, bedtime's
/// reminder, wind-down and breathing guide, the kids' clock and the night light's long press, the
/// radio (its panel, search and stations, a live station's title on the clock, a station as an
/// alarm's sound; the tone the page plays for an alarm that cannot sound), what the clock says (the
/// caption, Say the time, the Briefing switch, the briefing after the dismiss), and the node stopping
/// under the page (it marks itself disconnected and keeps the time).
@Suite("The clock face in a real browser against a real node (SPEC §9, §10, §7, §15)", .serialized)
struct FaceBrowserTests {
    /// The catalog the node sends the face for each language (`GET /api/strings/LANG`: no `ha.` keys),
    /// as the node serializes it.
    private func faceCatalogs() throws -> [Language: JSONValue] {
        var catalogs: [Language: JSONValue] = [:]
        for language in Language.allCases {
            let path = "\(checkout)/Resources/i18n/\(language.rawValue).json"
            let bytes = try #require(FileManager.default.contents(atPath: path), "\(path) cannot be read")
            catalogs[language] = try Catalog(language: language, json: Array(bytes)).json(excluding: ["ha."])
        }
        return catalogs
    }

    @Test("what the browser fetches, the face's files and its largest catalog, is under 300 KB (SPEC §9)")
    func faceSize() throws {
        let folder = "\(checkout)/Resources/face"
        var total = 0
        var files: [String] = []
        let paths = try #require(FileManager.default.enumerator(atPath: folder)?.allObjects as? [String])
        // fonts/OFL.txt is the fonts' licence, shipped beside them but never fetched by the page.
        for path in paths where path != "fonts/OFL.txt" {
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(folder)/\(path)")
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            total += (attributes[.size] as? Int) ?? 0
            files.append(path)
        }
        #expect(files.contains("index.html") && files.contains("i18n.js") && !files.contains("affirmations.json"))
        let catalogs = try faceCatalogs()
        let strings = catalogs.mapValues { $0.serializedBytes.count }
        let largest = try #require(strings.values.max())
        #expect(total + largest < 300_000,
                "Resources/face holds \(total) bytes in \(files.count) files, and the largest /api/strings answer is \(largest) bytes (\(strings))")
    }

    @Test("every message key the face's scripts name is in both catalogs, and none is Home Assistant's")
    func faceKeys() throws {
        let catalogs = try faceCatalogs()
        let folder = "\(checkout)/Resources/face"
        var named: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".js") {
            let script = try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
            named.formUnion(script.matches(of: /\b(?:t|has)\("([a-z0-9_]+(?:\.[a-z0-9_]+)+)"/).map { String($0.1) })
        }
        #expect(named.count > 120, "\(named.count) keys found in the scripts")
        for language in Language.allCases {
            let keys = Set(try #require(catalogs[language]?.objectValue).keys)
            #expect(named.subtracting(keys).isEmpty, "missing from \(language.rawValue).json: \(named.subtracting(keys).sorted())")
            #expect(!keys.contains { $0.hasPrefix("ha.") })
        }
        // The affirmations a session shows come from the catalog.
        let german = try #require(catalogs[.de]?.objectValue)
        #expect(german.keys.filter { $0.hasPrefix("affirmation.") }.count >= 10)
    }

    @Test("every check of the browser script passes, and the node's stop is shown as a disconnection")
    func browser() async throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing (scripts/install-deps.sh installs it)")
        }
        let results = try await FaceBrowserScript.run([], liveRadio: true)
        // Every group of checks ran, not only some.
        let names = results.map(\.name).joined(separator: "\n")
        for expected in [
            "ringing view shows", "holding Dismiss dismisses", "disconnected mark shows", "JS heap", "no console errors",
            "the panel counts the timer down", "the finished timer shows, named", "Dismiss clears it",
            "a ringing alarm comes before a finished timer", "then the finished timer shows",
            "the countdown runs from the duration", "an affirmation shows",
            "stop ends the session and its view", "the library lists the node's guided meditations by teacher",
            "the seek bar moves the node's position", "rename: the entry moves to its new teacher",
            "a custom digit colour is chosen with the browser's picker or the swatches",
            // SPEC §11: German on every screen, the language switched under a running page.
            "German: no English text on the alarm editor", "German: no English text on Settings",
            "German: no English text on a session", "German: no English text on the ringing view",
            "German: no English text on the snoozed state", "settings.language de: the page within 1 s",
            "settings.language en: the page within 1 s", "no message key missing from the catalog",
            // SPEC §13: bedtime, the kids' clock and the night light.
            "bedtime: Wind down on the chip starts the wind-down", "bedtime: the breathing guide breathes in 4 s",
            "bedtime: with reduced motion the guide stands still", "bedtime: Stop ends the wind-down",
            "kids: the three colours are far apart in hue", "kids: each state has a picture of its own",
            "lamp: a long press on the clock turns the night light on", "lamp: a long press on the lamp turns it off",
            // Settings → Bedtime and Kids' clock (issue 50), and the date in German.
            "pages: the switch gives a bedtime, the same every day", "pages: per day, Saturday alone moves",
            "pages: Sunday's switch leaves Sunday without a bedtime", "pages: a fifth sound is refused beside the list",
            "pages: a sound's play button previews it", "pages: Back returns to Settings, whose row now says the bedtime",
            "pages: Saturday's wake-up time alone moves", "pages: a change made over MQTT shows on the open page",
            "pages: bedtime in the red theme 480x800", "pages: kids in the red theme 800x480",
            "German: no English text on Settings, the bedtime page", "German: no English text on Settings, the kids page",
            "the German date has the day's period and German names",
            "panel bedtime opens 480x800", "touch targets kids 800x480",
            // SPEC §15: the Radio panel, the clock's title, a station as an alarm's sound, the search.
            "radio: a search lists the directory's stations, each with Add",
            "radio: Add on a result makes it one of the node's stations, and says so",
            "panel radio opens 800x480", "touch targets radioadd 390x844", "radio: the panel lists the node's stations, in order",
            "radio: a tap on a station plays it; the panel shows its name and the node's state", "radio: Stop stops it",
            "radio: a live station plays, with its title", "radio: the clock shows what plays: the station and its title",
            "radio: a station added by its address is the node's, and listed",
            "radio: an address the node refuses shows its message beside the address",
            "radio: the bell makes a station the sound new alarms get (settings.wake.sound)",
            "radio: the alarm editor offers the stations beside the tones", "radio: saving stores the station as the alarm's sound",
            "radio: the alarm list names the station", "radio: the file's stations have no delete, the added ones do",
            "radio: the second tap deletes the station",
            "German: no English text on Radio",
        ] {
            #expect(names.contains(expected), "no check \"\(expected)\" ran:\n\(names)")
        }
        #expect(results.count >= 100, "\(results.count) checks ran")
    }

    @Test("the day on the face: the weather beside the date (every kind, six sizes, red, German, stale), the alarm editor's Earlier if, why an alarm moved (SPEC §17)")
    func weather() async throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/mosquitto_pub"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing (scripts/install-deps.sh installs it)")
        }
        let results = try await FaceBrowserScript.run(
            ["--only", "weather"], ringing: false, environment: FaceBrowserScript.weather, files: ["work.ics": FaceBrowserScript.dentist],
            configuration: FaceBrowserScript.feeds)
        let names = results.map(\.name)
        for expected in FaceBrowserScript.weatherChecks + [
            "weather: beside the date, clear of the time, on the screen, at the six sizes", "weather: in German, named in German, at the six sizes",
            "weather: stale, in English \"as of\"", "day: the alarm list says why in German", "no message key missing from the catalog",
            "no console errors",
        ] {
            #expect(names.contains(expected), "no check \"\(expected)\" ran:\n\(names)")
        }
    }

    @Test("the clock speaking on the face: the caption comes and goes with the words, Say the time, the Briefing switch, the briefing after the dismiss (SPEC §16)")
    func speech() async throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing (scripts/install-deps.sh installs it)")
        }
        let results = try await FaceBrowserScript.run(["--only", "speech"], screenshots: false)
        let names = results.map(\.name)
        for expected in [
            "speech: the node says it can speak", "speech: the caption shows the text being spoken",
            "speech: the caption goes when speech_finished arrives", "speech: the time takes its room back",
            "speech: 1000 characters are cut to three lines, the whole text kept for screen readers",
            "speech: a 1000-character caption under the time, clear of it, at the six sizes",
            "speech: the caption in the red theme is red alone", "speech: the caption's Stop stops it (say/stop): the caption goes",
            "speech: the caption's name in German", "speech: a German caption under the time, clear of it, at the six sizes in German",
            "speech: Say the time shows with the controls, 48 px at least", "speech: Say the time asks the node (say/time), and its words show",
            "speech: the editor has the Briefing switch, off", "speech: the Briefing switch sets the alarm's briefing on the node (B/alarms)",
            "speech: the alarm list says the alarm has a briefing",
            "ringing view shows", "holding Dismiss dismisses", "briefing: its text shows while it is spoken", "briefing: named with the alarm's label",
            "speech: the briefing under the time, clear of it, at the six sizes",
            "briefing: it stays on the face after it was spoken, with Close", "briefing: a tap puts it away, without opening the controls",
            "no message key missing from the catalog", "no console errors",
        ] {
            #expect(names.contains(expected), "no check \"\(expected)\" ran:\n\(names)")
        }
    }

    @Test("an alarm that cannot sound (no audio device): the ringing view says why, and the page plays the tone itself until Dismiss (SPEC §15)")
    func soundFailed() async throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing (scripts/install-deps.sh installs it)")
        }
        // A sound card that is not there: the node cannot open its output.
        let results = try await FaceBrowserScript.run(
            ["--only", "none", "--expect-sound-failed"], screenshots: false, audioDevice: "hw:CARD=NoiseClockNoSuchCard,DEV=0")
        let names = results.map(\.name)
        for expected in [
            "ringing view shows", "sound failed: the node says why it cannot sound", "sound failed: the ringing view says why",
            "sound failed: the page plays the alarm tone (WebAudio), fading in", "sound failed: the view fits 390x844",
            "holding Dismiss dismisses", "sound failed: Dismiss stops the page's tone", "no console errors",
        ] {
            #expect(names.contains(expected), "no check \"\(expected)\" ran:\n\(names)")
        }
    }
}

import Foundation
import Testing

/// The real face in WPE WebKit 2.38 through `cog` (SPEC §14: the light kiosk for small boards, the
/// engine of Safari 16 on an old iPad), driven by `WPEWebDriver` from `Tests/Face/face_browser_test.py
/// --browser webkit` against a real node and broker. WebKit's window is fixed at 800×600: the
/// second size, 1280×960, is a session whose page cog zooms out (`--scale=0.625`). WebKit's
/// WebDriver has no console log and cannot run a script before the page's own, so the node serves
/// a copy of the face whose index.html first loads the test's instrumentation (`--prepare-face`):
/// the errors a person would see in the console are kept by the page itself.
@Suite("The clock face in WPE WebKit (cog) against a real node (SPEC §14, §9)")
struct FaceWebKitTests {
    @Test("the clock at two sizes, every panel at 800x600, custom colours, timers, a session, ringing with hold-to-dismiss and no console error in WebKit")
    func webKit() async throws {
        for tool in ["/usr/bin/cog", "/usr/bin/WPEWebDriver"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing (scripts/install-deps.sh installs it)")
        }
        // No screenshots: each costs WebKit a second or more on a loaded machine, and they would be
        // deleted with the test's folder (run the script by hand with --screenshots to look).
        let results = try await FaceBrowserScript.run(["--browser", "webkit"], screenshots: false) { directory in
            let folder = "\(directory)/face"
            try await FaceBrowserScript.prepareFace(folder)
            return folder
        }
        // Every check named here ran (a check skipped silently would not be seen failing).
        let names = Set(results.map(\.name))
        var expected = [
            "the browser is WebKit (a Safari 16 user agent)", "the test's error hook ran before the face's scripts",
            "theme day within 1 s", "a custom digit colour is chosen with the browser's picker or the swatches",
            "no colour is asked for as text", "digit cells equal (sans)", "digit cells equal (mono)",
            "the panel counts the timer down", "the finished timer shows, named", "Dismiss clears it",
            "the countdown runs from the duration", "an affirmation shows", "session fits 800x600",
            "stop ends the session and its view", "the library lists the node's guided meditations by teacher",
            "the seek bar moves the node's position", "rename: the entry moves to its new teacher",
            "idle, seconds hidden: no DOM update in 5 s", "no animation-frame loop",
            "ringing view shows", "short click on Dismiss does not dismiss", "holding Dismiss dismisses",
            "a ringing alarm comes before a finished timer", "then the finished timer shows",
            "no message key missing from the catalog", "no console errors",
            "disconnected mark shows", "time kept while disconnected", "no errors while disconnected",
            // Settings → Bedtime and Kids' clock (issue 50): changed from the face in this engine too.
            "pages: the switch gives a bedtime, the same every day", "pages: per day, Saturday alone moves",
            "pages: Sunday's switch leaves Sunday without a bedtime", "pages: four sleep sounds chosen, in the order tapped",
            "pages: a sound's play button previews it", "pages: Back returns to Settings, whose row now says the bedtime",
            "pages: Saturday's wake-up time alone moves", "pages: stay in bed from", "pages: a change made over MQTT shows on the open page",
        ]
        for size in ["800x600", "1280x960"] {
            expected += ["the page is \(size) at zoom \(size == "800x600" ? "1.0" : "0.625")", "fit \(size)"]
        }
        // Every panel at 800x600 (zoomed, the clicks are scaled pointer actions that a loaded
        // machine made unreliable; the zoomed page's fit is checked above).
        for panel in ["noise", "radio", "radioadd", "alarms", "editor", "timers", "meditation", "library", "settings", "bedtime", "kids"] {
            expected += ["panel \(panel) opens 800x600", "touch targets \(panel) 800x600", "accessible names \(panel) 800x600"]
        }
        let missing = expected.filter { !names.contains($0) }
        #expect(missing.isEmpty, "checks that did not run: \(missing)\nran: \(results.map(\.name))")
        let failed = results.filter { !$0.ok }.map(\.name)
        #expect(failed.isEmpty, "failed: \(failed)")
    }

    @Test("the clock speaking in WebKit: the caption comes and goes with the words, Stop, Say the time, the Briefing switch, the briefing after the dismiss (SPEC §16)")
    func speech() async throws {
        for tool in ["/usr/bin/cog", "/usr/bin/WPEWebDriver"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing (scripts/install-deps.sh installs it)")
        }
        let results = try await FaceBrowserScript.run(["--browser", "webkit", "--only", "speech"], screenshots: false) { directory in
            let folder = "\(directory)/face"
            try await FaceBrowserScript.prepareFace(folder)
            return folder
        }
        let names = Set(results.map(\.name))
        let expected = [
            "the test's error hook ran before the face's scripts", "speech: the caption shows the text being spoken",
            "speech: the caption goes when speech_finished arrives", "speech: the time takes its room back",
            "speech: 1000 characters are cut to three lines, the whole text kept for screen readers",
            "speech: a 1000-character caption under the time, clear of it, at the six sizes", "speech: the caption in the red theme is red alone",
            "speech: the caption's Stop stops it (say/stop): the caption goes", "speech: Say the time asks the node (say/time), and its words show",
            "speech: the Briefing switch sets the alarm's briefing on the node (B/alarms)", "speech: the alarm list says the alarm has a briefing",
            "holding Dismiss dismisses", "briefing: its text shows while it is spoken", "briefing: it stays on the face after it was spoken, with Close",
            "briefing: a tap puts it away, without opening the controls", "no console errors",
        ]
        let missing = expected.filter { !names.contains($0) }
        #expect(missing.isEmpty, "checks that did not run: \(missing)\nran: \(results.map(\.name))")
    }

    @Test("the day in WebKit: the weather beside the date (every kind, red, stale), the alarm editor's Earlier if, why an alarm moved (SPEC §17)")
    func weather() async throws {
        for tool in ["/usr/bin/cog", "/usr/bin/WPEWebDriver", "/usr/bin/mosquitto_pub"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing (scripts/install-deps.sh installs it)")
        }
        let results = try await FaceBrowserScript.run(
            ["--browser", "webkit", "--only", "weather"], screenshots: false, ringing: false, environment: FaceBrowserScript.weather,
            files: ["work.ics": FaceBrowserScript.dentist], configuration: FaceBrowserScript.feeds
        ) { directory in
            let folder = "\(directory)/face"
            try await FaceBrowserScript.prepareFace(folder)
            return folder
        }
        let names = Set(results.map(\.name))
        let missing = (FaceBrowserScript.weatherChecks + ["the test's error hook ran before the face's scripts", "no console errors"])
            .filter { !names.contains($0) }
        #expect(missing.isEmpty, "checks that did not run: \(missing)\nran: \(results.map(\.name))")
    }
}

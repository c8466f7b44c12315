import Foundation
import Glibc
import NoiseClockDisplay
import Testing

/// A folder with a tiny shell script that appends its first argument to `log`. Commands run it as
/// `sh 'script'`, not as an executable: a child another test spawns at the instant the script is
/// written inherits its write descriptor, and exec of a file open for writing fails with "Text
/// file busy" for as long as that child lives.
struct ScriptFolder: Sendable {
    let path: String

    init(_ label: String = #function) throws {
        let name = "noiseclock-screen-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
        path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try "#!/bin/sh\necho \"$1\" >> \"\(path)/log\"\n".write(toFile: script, atomically: true, encoding: .utf8)
    }

    var script: String { "\(path)/screen.sh" }

    /// The command that runs the script with `argument` (already quoted for the shell).
    func command(_ argument: String) -> String { "sh '\(script)' \(argument)" }

    /// The lines the script has appended so far.
    var log: [String] {
        ((try? String(contentsOfFile: "\(path)/log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

func withScriptFolder<T>(_ label: String = #function, _ body: (ScriptFolder) throws -> T) throws -> T {
    let folder = try ScriptFolder(label)
    defer { folder.remove() }
    return try body(folder)
}

@Suite("CommandScreen: on and off through the user's commands")
struct CommandScreenTests {
    @Test("above 0 runs the on command, 0 the off command, and a state already reached runs nothing")
    func onAndOff() throws {
        try withScriptFolder { folder in
            let screen = CommandScreen(onCommand: folder.command("on"), offCommand: folder.command("'off now'"))
            #expect(screen.brightness == nil)
            #expect(!screen.canDim)
            try screen.set(brightness: 50)
            #expect(screen.brightness == 100)
            try screen.set(brightness: 80)
            try screen.set(brightness: 0)
            #expect(screen.brightness == 0)
            try screen.set(brightness: 0)
            try screen.set(brightness: 1)
            #expect(folder.log == ["on", "off now", "on"])
        }
    }

    @Test("a command exiting 1 is reported with its key, status and error output, and is run again next time")
    func failing() throws {
        try withScriptFolder { folder in
            let screen = CommandScreen(
                onCommand: "echo 'wlr-randr: no output HDMI-A-9' >&2; exit 1", offCommand: folder.command("off"))
            let error = #expect(throws: ScreenError.self) { try screen.set(brightness: 100) }
            #expect(error?.key == "display.on_command")
            #expect(error?.reason == "exited with status 1: wlr-randr: no output HDMI-A-9")
            #expect(screen.brightness == nil)
            #expect(throws: ScreenError.self) { try screen.set(brightness: 100) }
            try screen.set(brightness: 0)
            #expect(folder.log == ["off"])
        }
    }

    @Test("a command gets stdin, stdout and stderr, and none of the node's other descriptors")
    func descriptors() throws {
        try withScriptFolder { folder in
            // Open as a library might leave one: without close-on-exec.
            let held = open(folder.script, O_RDONLY)
            try #require(held > 2)
            defer { close(held) }
            // The shell lists its own descriptors (ls runs as its child, so its own are not among them;
            // `exec >&2` moves stdout for good, where `ls >&2` would have the shell keep a copy).
            let screen = CommandScreen(onCommand: "exec >&2; ls /proc/$$/fd; exit 3", offCommand: "true")
            let error = #expect(throws: ScreenError.self) { try screen.set(brightness: 100) }
            #expect(error?.reason == "exited with status 3: 0 / 1 / 2", "descriptor \(held) is open in the test")
        }
    }

    @Test("a command that hangs is killed after the timeout, with what it started")
    func timeout() throws {
        try withScriptFolder { folder in
            let pidFile = "\(folder.path)/background.pid"
            let screen = CommandScreen(
                onCommand: "sleep 30 & echo $! > '\(pidFile)'; echo waiting >&2; wait", offCommand: "true",
                timeout: .milliseconds(500))
            let start = ContinuousClock.now
            let error = #expect(throws: ScreenError.self) { try screen.set(brightness: 100) }
            #expect(ContinuousClock.now - start < .seconds(5))
            #expect(error?.key == "display.on_command")
            #expect(error?.reason.hasPrefix("did not finish within 0.5 seconds and was killed") == true)
            #expect(error?.reason.hasSuffix(": waiting") == true)
            // The shell's background child was in its process group: gone, or a zombie awaiting
            // its new parent's wait.
            let pid = try #require(Int32((try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
            var gone = false
            for _ in 0..<100 where !gone {
                let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                gone = stat.isEmpty || stat.split(separator: ")").last?.split(separator: " ").first == "Z"
                if !gone { usleep(20_000) }
            }
            #expect(gone)
        }
    }

    @Test("a command killed by a signal says which")
    func signal() {
        let screen = CommandScreen(onCommand: "kill -9 $$", offCommand: "true")
        let error = #expect(throws: ScreenError.self) { try screen.set(brightness: 100) }
        #expect(error?.reason == "was killed by signal 9")
    }

    @Test("a command writing much error output neither blocks nor floods the message")
    func chatty() {
        let screen = CommandScreen(onCommand: "true", offCommand: "head -c 300000 /dev/zero | tr '\\0' x >&2; echo; echo last words >&2; exit 3")
        let error = #expect(throws: ScreenError.self) { try screen.set(brightness: 0) }
        #expect(error?.key == "display.off_command")
        #expect(error?.reason.hasPrefix("exited with status 3: ") == true)
        #expect(error?.reason.hasSuffix("last words") == true)
        #expect((error?.reason.count ?? 0) < 2200)
    }

    @Test("the command starts with no signal blocked or ignored, whatever the node's threads do")
    func signalMask() {
        // SIGTERM blocked on this thread, as the node's threads keep it for their sigwait thread.
        // (Debian's dash clears its own mask at start, so there this half passes either way; a
        // /bin/sh that is bash keeps what it was given.)
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        // SIGPIPE ignored, as servers often have it: an ignored signal stays ignored across exec, and
        // a non-interactive shell keeps it so. Process-wide for the moment, which only turns other
        // tests' writes to a closed pipe into EPIPE.
        let previousPipe = Glibc.signal(SIGPIPE, SIG_IGN)
        defer { Glibc.signal(SIGPIPE, previousPipe) }
        // The shell reads its own status with a builtin: a `grep` child would race the shell, which
        // blocks every signal for a moment while it forks (dash does), and could read that mask.
        let screen = CommandScreen(
            onCommand: "while read -r line; do case $line in SigBlk*|SigIgn*) echo \"$line\" >&2;; esac; done < /proc/$$/status; exit 1",
            offCommand: "true")
        let error = #expect(throws: ScreenError.self) { try screen.set(brightness: 100) }
        let fields = Dictionary(
            (error?.reason ?? "").split(separator: " / ").compactMap { item -> (String, UInt64)? in
                let parts = item.split(separator: "\t")
                guard parts.count == 2, let mask = UInt64(parts[1], radix: 16) else { return nil }
                return (String(parts[0].split(separator: " ").last ?? ""), mask)
            }, uniquingKeysWith: { first, _ in first })
        #expect(fields["SigBlk:"] == 0, "\(error?.reason ?? "")")
        let pipeBit: UInt64 = 1 << (UInt64(SIGPIPE) - 1)
        #expect(fields["SigIgn:"].map { $0 & pipeBit == 0 } == true, "\(error?.reason ?? "")")
    }
}

@Suite("ScreenControls.make: the display.* keys")
struct ScreenControlsTests {
    @Test("auto takes the backlight when no commands are set, and nothing when there is none")
    func auto() throws {
        try withBacklightRoot { root in
            #expect(try ScreenControls.make(backlight: "auto", onCommand: "", offCommand: "", root: root.path) == nil)
            try root.device("panel", ["max_brightness": "255", "brightness": "10"])
            let screen = try ScreenControls.make(backlight: "auto", onCommand: "", offCommand: "", root: root.path)
            #expect(screen?.name == "backlight panel")
            #expect(try ScreenControls.make(backlight: "none", onCommand: "", offCommand: "", root: root.path) == nil)
        }
    }

    @Test("commands that are set win over auto-detection and are used with none")
    func commands() throws {
        try withBacklightRoot { root in
            try root.device("panel", ["max_brightness": "255", "brightness": "10"])
            for backlight in ["auto", "none"] {
                let screen = try ScreenControls.make(backlight: backlight, onCommand: "true", offCommand: "true", root: root.path)
                #expect(screen?.name == "commands")
            }
        }
    }

    @Test("a named folder is used as it is, by path or by name under the root")
    func named() throws {
        try withBacklightRoot { root in
            let panel = try root.device("panel", ["max_brightness": "255", "brightness": "10"])
            #expect(try ScreenControls.make(backlight: panel, onCommand: "true", offCommand: "true", root: "/nonexistent")?.name == "backlight panel")
            #expect(try ScreenControls.make(backlight: "panel", onCommand: "", offCommand: "", root: root.path)?.name == "backlight panel")
        }
    }

    @Test("a named folder that does not exist, or is no backlight, is an error naming display.backlight")
    func badFolder() throws {
        try withBacklightRoot { root in
            let missing = #expect(throws: ScreenError.self) {
                try ScreenControls.make(backlight: "\(root.path)/gone", onCommand: "", offCommand: "", root: root.path)
            }
            #expect(missing?.key == "display.backlight")
            #expect(missing?.reason.hasPrefix("\(root.path)/gone does not exist") == true)
            try root.device("notabacklight", ["brightness": "3"])
            let notBacklight = #expect(throws: ScreenError.self) {
                try ScreenControls.make(backlight: "notabacklight", onCommand: "", offCommand: "", root: root.path)
            }
            #expect(notBacklight?.key == "display.backlight")
            #expect(notBacklight?.reason.contains("no readable max_brightness") == true)
            let empty = #expect(throws: ScreenError.self) {
                try ScreenControls.make(backlight: " ", onCommand: "", offCommand: "", root: root.path)
            }
            #expect(empty?.key == "display.backlight")
        }
    }

    @Test("one command without the other is an error naming the missing key")
    func halfCommands() {
        let noOff = #expect(throws: ScreenError.self) {
            try ScreenControls.make(backlight: "none", onCommand: "vcgencmd display_power 1", offCommand: " ", root: "/nonexistent")
        }
        #expect(noOff?.key == "display.off_command")
        let noOn = #expect(throws: ScreenError.self) {
            try ScreenControls.make(backlight: "auto", onCommand: "", offCommand: "vcgencmd display_power 0", root: "/nonexistent")
        }
        #expect(noOn?.key == "display.on_command")
    }
}

import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import NoiseClockAudio
import NoiseClockCore
import NoiseClockNode
import NoiseClockSystem

// A synchronous main: every command's Swift code runs on the node's own executor thread
// (`NodeExecutor.runBlocking`), never on libdispatch's pool, which wakes once a second once used.
@main
struct NoiseClockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noiseclock",
        abstract: "A nightstand clock node for a smart home, driven over MQTT.",
        discussion: """
            The node rings its own alarms, plays sleep sounds, runs timers and meditation sessions, \
            reports the battery and serves its clock face (http://127.0.0.1:8080/ by default), all \
            driven over MQTT; Home Assistant discovers it.

            Files: the configuration is --config, else $NOISECLOCK_CONFIG, else \
            /etc/noiseclock/noiseclock.yaml (every key commented); each key can also be set as \
            NOISECLOCK_ + its path in upper snake case. The state (alarms, settings, timers) is in \
            state.dir (/var/lib/noiseclock under the service). Sounds and the face are in \
            /usr/share/noiseclock. Under systemd, the credentials mqtt-password and face-token \
            (from /etc/credstore/noiseclock.*) replace mqtt.password_file and face.token_file.
            """,
        version: NodeStatus.version,
        subcommands: [Run.self, CheckConfig.self, Sounds.self, Ctl.self],
        defaultSubcommand: Run.self)

    /// Parses the arguments as they were given, also when the Swift runtime cannot see them: on
    /// Linux it finds `argv` by walking back from `environ`, which no longer leads there once a
    /// preloaded library has set a variable before `main` (libfaketime does). Without this the node
    /// would run with no arguments at all: no `--config`, no `--log-level`, `run` for `--version`.
    static func main() {
        main(CommandLine.arguments.isEmpty ? Self.processArguments() : Array(CommandLine.arguments.dropFirst()))
    }

    /// The arguments after the program's name, from `/proc/self/cmdline` (NUL-separated).
    static func processArguments() -> [String] {
        let fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return Array(bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast().dropFirst().map { String(decoding: $0, as: UTF8.self) })
    }
}

struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "The configuration file (else $NOISECLOCK_CONFIG, /etc/noiseclock/noiseclock.yaml, config/noiseclock.yaml).")
    var config: String?

    func load() throws -> ConfigurationLoader.Loaded {
        do {
            let loaded = try ConfigurationLoader.load(explicit: config)
            try ConfigurationLoader.checkFiles(loaded.configuration, sources: loaded.resolved.values)
            return loaded
        } catch {
            throw fail("invalid configuration: \(error)")
        }
    }
}

func makeLogger(level: Logger.Level) -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
    return Logger(label: "noiseclock")
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Prints `message` to stderr and gives the exit code for a configuration error.
func fail(_ message: String) -> ExitCode {
    printError("noiseclock: \(message)")
    return ExitCode(2)
}

/// Writes a line to stderr.
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

extension String {
    /// The string followed by spaces up to `width` characters (never cut).
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the node (the daemon).")

    @OptionGroup var options: ConfigOption
    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func run() throws {
        let command = self
        ShutdownSignals.block()
        try NodeExecutor.shared.runBlocking { try await command.runAsync() }
    }

    func runAsync() async throws {
        let logger = makeLogger(level: logLevel)
        let loaded = try options.load()
        for key in loaded.resolved.unknownKeys {
            logger.warning("unknown configuration key ignored", metadata: ["key": "\(key)"])
        }
        do {
            try await Node.run(configuration: loaded.configuration, logger: logger)
        } catch let error as ConfigurationError {
            // Found once the node is made: a button's verb it does not have.
            throw fail("invalid configuration: \(error)")
        }
    }
}

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Validate and print the effective configuration, secrets masked.")

    @OptionGroup var options: ConfigOption

    func run() throws {
        let command = self
        try NodeExecutor.shared.runBlocking { try await command.runAsync() }
    }

    func runAsync() async throws {
        let loaded = try options.load()
        print("# configuration file: \(loaded.file ?? "none (built-in defaults)")")
        let width = (loaded.resolved.values.map { $0.key.path.count + $0.displayValue.count }.max() ?? 0) + 4
        for value in loaded.resolved.values {
            let line = "\(value.key.path): \(value.displayValue)"
            print(line.padded(to: max(width, line.count + 2)) + "# \(value.source)")
        }
        if !loaded.resolved.unknownKeys.isEmpty {
            throw fail("unknown configuration keys: \(loaded.resolved.unknownKeys.joined(separator: ", "))")
        }
    }
}

struct Sounds: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the sound catalog: noise, alarm tones, gongs and timer tones, and custom sounds.")

    @OptionGroup var options: ConfigOption

    func run() throws {
        let command = self
        try NodeExecutor.shared.runBlocking { try await command.runAsync() }
    }

    func runAsync() async throws {
        let loaded = try options.load()
        guard let resources = SoundLibrary.locateResources() else {
            throw fail("sound catalog not found (Resources/sounds.json beside the binary or in the working directory)")
        }
        let library: SoundLibrary
        do {
            library = try SoundLibrary.load(resources: resources, customDirectory: loaded.configuration.soundsCustomDirectory)
        } catch {
            throw fail("\(error)")
        }
        let rows = library.catalog.sounds.map { sound -> [String] in
            let length = (try? library.path(of: sound)).flatMap { try? MP3Decoder(path: $0) }.map { "\(($0.duration * 10).rounded() / 10) s" }
            return [sound.id, sound.name, sound.kind == .alarm ? "alarm" : sound.category, sound.file, length ?? "unreadable"]
        }
        let header = ["ID", "NAME", "CATEGORY", "FILE", "LENGTH"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print(zip(row, widths).map { $0.padded(to: $1) }.joined(separator: "  "))
        }
    }
}

struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one command to a running node and print its response.",
        discussion: "Exits 0 on an ok response, 1 on an error response, 2 when no answer came in time.")

    @OptionGroup var options: ConfigOption
    @Argument(help: "The verb: ping, settings, ...") var verb: String
    @Argument(help: "The payload: a JSON object, a bare value, or nothing.") var payload: String = ""
    @Option(name: .long, help: "Seconds to wait for the answer.") var timeout: Double = 5
    @Option(name: .long, help: "Log level for the MQTT connection.") var logLevel: Logger.Level = .warning

    func run() throws {
        let command = self
        try NodeExecutor.shared.runBlocking { try await command.runAsync() }
    }

    func runAsync() async throws {
        let logger = makeLogger(level: logLevel)
        let loaded = try options.load()
        let outcome = try await ControlClient.send(
            verb: verb, payload: payload, configuration: loaded.configuration,
            timeout: .milliseconds(Int(timeout * 1000)), logger: logger)
        switch outcome {
        case .answered(let response, let raw):
            print(raw)
            if !response.isOK { throw ExitCode(1) }
        case .timedOut:
            printError("no answer from node \(loaded.configuration.node.id) within \(timeout) s")
            throw ExitCode(2)
        }
    }
}

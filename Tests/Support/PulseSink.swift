import Foundation

/// A PulseAudio daemon with a null sink, reached through ALSA's `pulse` PCM: a sink that plays at
/// real speed on a machine without a sound card (PLATFORM.md).
public final class PulseSink: @unchecked Sendable {
    // @unchecked Sendable: `process` is set once in init and only signalled afterwards.
    public let runtimeDirectory: String
    private let process: ChildProcess

    /// What a client (the node, mpg123) needs to find this PulseAudio: ALSA device name `pulse`.
    public var environment: [String: String] { ["XDG_RUNTIME_DIR": runtimeDirectory] }

    public init() async throws {
        runtimeDirectory = try makeTemporaryDirectory("pulse")
        chmod(runtimeDirectory, 0o700)
        process = try ChildProcess(
            "/usr/bin/pulseaudio",
            ["--daemonize=no", "--exit-idle-time=-1", "-n", "--load=module-null-sink sink_name=nc",
             "--load=module-native-protocol-unix"],
            environment: ["XDG_RUNTIME_DIR": runtimeDirectory], logPath: "\(runtimeDirectory)/pulseaudio.log")
        let directory = runtimeDirectory
        let up = await eventually(timeout: .seconds(10)) { FileManager.default.fileExists(atPath: "\(directory)/pulse/native") }
        guard up else { throw UPowerMock.MockError(what: "pulseaudio did not start", log: process.log) }
    }

    deinit {
        process.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }
}

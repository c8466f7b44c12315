import Foundation

/// `openssl s_server -WWW` on a free 127.0.0.1 port with a certificate made for the test (its own
/// CA, for 127.0.0.1): no system store trusts it, `certificate` does. It serves the files of its
/// folder: `tone.mp3`, three seconds of a 440 Hz sine made by ffmpeg.
public final class TLSServer: Sendable {
    public let port: Int
    public let directory: String
    private let process: ChildProcess

    /// The certificate, to trust it.
    public var certificate: String { "\(directory)/cert.pem" }
    public var url: String { "https://127.0.0.1:\(port)/tone.mp3" }

    public init() async throws {
        port = freeLoopbackPort()
        directory = try makeTemporaryDirectory("tls")
        let (code, output) = try await runTool("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", "\(directory)/key.pem", "-out", "\(directory)/cert.pem",
        ])
        guard code == 0 else { throw TLSServerError(message: "openssl req failed: \(output)") }
        let (made, encoderOutput) = try await runTool(Icecast.ffmpeg, [
            "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3",
            "-c:a", "libmp3lame", "-b:a", "128k", "\(directory)/tone.mp3",
        ])
        guard made == 0 else { throw TLSServerError(message: "ffmpeg could not make tone.mp3: \(encoderOutput)") }
        // -WWW serves files relative to its working folder.
        process = try ChildProcess("/bin/sh", [
            "-c", "cd '\(directory)' && exec /usr/bin/openssl s_server -accept 127.0.0.1:\(port) -cert cert.pem -key key.pem -WWW -quiet",
        ], logPath: "\(directory)/s_server.log")
        let port = port, process = process
        let listening = await eventually { canConnect(port: port) || !process.isRunning }
        guard listening, process.isRunning else { throw TLSServerError(message: "openssl s_server did not start: \(process.log)") }
    }

    deinit {
        process.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct TLSServerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

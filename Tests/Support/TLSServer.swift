import Foundation

/// `openssl s_server -WWW` on a free 127.0.0.1 port with a certificate made for the test (its own
/// CA, for 127.0.0.1): no system store trusts it, `certificate` does. It serves the files of its
/// folder: `tone.mp3`, three seconds of a 440 Hz sine made by ffmpeg.
///
/// Given `responses` (a path and the whole HTTP answer to it, its head included), it answers
/// those as they are (`s_server -HTTP`): a redirect, say; `tone.mp3` then gets a head of its own.
public final class TLSServer: Sendable {
    public let port: Int
    public let directory: String
    private let process: ChildProcess

    /// The certificate, to trust it.
    public var certificate: String { "\(directory)/cert.pem" }
    public var url: String { "https://127.0.0.1:\(port)/tone.mp3" }

    public init(responses: [String: String] = [:]) async throws {
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
        if !responses.isEmpty {
            let tone = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/tone.mp3"))
            let head = "HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: \(tone.count)\r\n\r\n"
            try (Data(head.utf8) + tone).write(to: URL(fileURLWithPath: "\(directory)/tone.mp3"))
            for (path, answer) in responses { try answer.write(toFile: "\(directory)/\(path)", atomically: true, encoding: .utf8) }
        }
        // -WWW serves files relative to its working folder (-HTTP: files that hold their answer's head).
        // SIGPIPE ignored (it stays so across exec): a client that leaves mid-file would end the server.
        process = try ChildProcess("/bin/sh", [
            "-c",
            "trap '' PIPE; cd '\(directory)' && exec /usr/bin/openssl s_server -accept 127.0.0.1:\(port) -cert cert.pem -key key.pem \(responses.isEmpty ? "-WWW" : "-HTTP") -quiet",
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

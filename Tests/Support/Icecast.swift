import Foundation

/// A real Icecast 2 on a free 127.0.0.1 port, private to one test, with ffmpeg as its source
/// clients (PLATFORM.md, *Streams*): each mount is fed a sine tone in real time (`-re`), so what a
/// listener decodes can be checked for its pitch.
public final class Icecast: @unchecked Sendable {
    // @unchecked Sendable: `sources` changes only from the owning test (`feed`, `cut`).
    public let port: Int
    public let directory: String
    public static let password = "hackme-\(UInt32.random(in: 0...UInt32.max))"
    private var server: ChildProcess?
    private var sources: [String: ChildProcess] = [:]

    public static let executable = "/usr/bin/icecast2"
    public static let ffmpeg = "/usr/bin/ffmpeg"

    /// How a mount is encoded: ffmpeg's codec and muxer, and the content type Icecast serves.
    public enum Format: String, Sendable, CaseIterable {
        case mp3, aac, opus, vorbis, flac

        var ffmpegArguments: [String] {
            switch self {
            case .mp3: ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3", "-content_type", "audio/mpeg"]
            case .aac: ["-c:a", "aac", "-b:a", "64k", "-f", "adts", "-content_type", "audio/aac"]
            case .opus: ["-c:a", "libopus", "-b:a", "64k", "-f", "ogg", "-content_type", "audio/ogg"]
            case .vorbis: ["-c:a", "libvorbis", "-b:a", "96k", "-f", "ogg", "-content_type", "audio/ogg"]
            // FLAC in Ogg, as Icecast serves it.
            case .flac: ["-c:a", "flac", "-f", "ogg", "-content_type", "audio/ogg"]
            }
        }
    }

    public init() async throws {
        port = freeLoopbackPort()
        directory = try makeTemporaryDirectory("icecast")
        let logs = "\(directory)/log"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        // Icecast refuses to run as root and changes to nobody, who must be able to write its logs.
        let asRoot = getuid() == 0
        if asRoot { chmod(logs, 0o777) }
        let configuration = """
            <icecast>
              <location>loopback</location><admin>test@localhost</admin><hostname>127.0.0.1</hostname>
              <limits><clients>100</clients><sources>10</sources><queue-size>524288</queue-size>
                <client-timeout>30</client-timeout><header-timeout>15</header-timeout>
                <source-timeout>10</source-timeout><burst-on-connect>1</burst-on-connect><burst-size>65535</burst-size></limits>
              <authentication><source-password>\(Self.password)</source-password>
                <admin-user>admin</admin-user><admin-password>\(Self.password)</admin-password></authentication>
              <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
              <fileserve>1</fileserve>
              <paths><basedir>/usr/share/icecast2</basedir><logdir>\(logs)</logdir>
                <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>
              <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
              \(asRoot ? "<security><chroot>0</chroot><changeowner><user>nobody</user><group>nogroup</group></changeowner></security>" : "")
            </icecast>
            """
        try configuration.write(toFile: "\(directory)/icecast.xml", atomically: true, encoding: .utf8)
        // Ready once it serves its status page: a bare connect succeeded while Icecast was still
        // starting, and the source started then was refused (once, in a fresh clone's CI run).
        // Icecast 2.4.4 now and then exits at once with status 0, silently (after "server started",
        // its stdout never flushed), when several start together: 2 of 150 started 15 at a time
        // from a shell, no test code around it. Such a start is tried again, twice at most.
        let status = "http://127.0.0.1:\(port)/status-json.xsl"
        var attempts: [String] = []
        while true {
            let server = try ChildProcess(Self.executable, ["-c", "\(directory)/icecast.xml"], logPath: "\(directory)/icecast-\(attempts.count).out")
            let port = port
            let listening = await eventually {
                guard server.isRunning, canConnect(port: port) else { return !server.isRunning }
                return (try? await runToEnd("/usr/bin/curl", ["-sf", "-o", "/dev/null", status]))?.code == 0
            }
            if listening, server.isRunning {
                self.server = server
                return
            }
            let exit = await server.waitForExit(timeout: .seconds(1))
            attempts.append("exit \(exit.map(String.init) ?? "none"): \(server.log) \((try? String(contentsOfFile: "\(logs)/error.log", encoding: .utf8)) ?? "")")
            guard exit != nil, attempts.count < 3 else { throw IcecastError(message: "icecast2 did not start: \(attempts)") }
        }
    }

    deinit {
        for source in sources.values { source.signal(SIGKILL) }
        server?.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }

    public func url(_ mount: String) -> String { "http://127.0.0.1:\(port)/\(mount)" }

    /// Starts ffmpeg feeding `mount` a `frequency` Hz sine in `format`, named `name` (ICY), and
    /// waits until Icecast lists the mount.
    public func feed(_ mount: String, _ format: Format, frequency: Int = 440, name: String = "Test FM") async throws {
        let arguments = [
            "-nostdin", "-hide_banner", "-loglevel", "warning", "-re",
            "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=44100", "-ac", "2",
        ] + format.ffmpegArguments + ["-ice_name", name, "icecast://source:\(Self.password)@127.0.0.1:\(port)/\(mount)"]
        let source = try ChildProcess(Self.ffmpeg, arguments, logPath: "\(directory)/ffmpeg-\(mount).log")
        sources[mount] = source
        let live = await eventually { await self.mounts().contains("/\(mount)") || !source.isRunning }
        guard live, source.isRunning else { throw IcecastError(message: "ffmpeg did not feed /\(mount): \(source.log)") }
    }

    /// Kills the source of `mount` (Icecast then ends the stream for its listeners).
    public func cut(_ mount: String) async {
        guard let source = sources.removeValue(forKey: mount) else { return }
        source.signal(SIGKILL)
        _ = await source.waitForExit(timeout: eventHangGuard)
    }

    /// Sets the ICY title of `mount` through Icecast's admin interface.
    public func setTitle(_ mount: String, _ title: String) async throws {
        let song = title.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? title
        let (code, output) = try await runTool(
            "/usr/bin/curl", ["-sf", "-u", "admin:\(Self.password)", "\(url("admin/metadata"))?mount=/\(mount)&mode=updinfo&song=\(song)"])
        guard code == 0 else { throw IcecastError(message: "metadata update failed (\(code)): \(output)") }
    }

    /// The mounts Icecast has a source for now.
    public func mounts() async -> [String] {
        guard let (code, output) = try? await runToEnd("/usr/bin/curl", ["-sf", url("status-json.xsl")]), code == 0,
            let data = output.data(using: .utf8),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let stats = json["icestats"] as? [String: Any]
        else { return [] }
        let sources: [[String: Any]] =
            if let list = stats["source"] as? [[String: Any]] { list } else if let one = stats["source"] as? [String: Any] { [one] } else { [] }
        return sources.compactMap { ($0["listenurl"] as? String).flatMap { URL(string: $0)?.path } }
    }

    struct IcecastError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// True when something accepts a TCP connection on 127.0.0.1:`port`.
public func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}

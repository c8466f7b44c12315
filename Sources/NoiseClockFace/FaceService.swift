#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NoiseClockCore
import NoiseClockHub
import NoiseClockSystem
import ServiceLifecycle
import Synchronization

/// Serves the clock face for the node's life (SPEC §9). The face never takes the clock down: a
/// port in use or a missing face folder is logged, reported through `status` and
/// `onStatusChange` (for `B/status`'s `"face"`), and tried again every `retryInterval`, sleeping
/// through the node's time source; the other services go on meanwhile.
public struct FaceService: Service, CustomStringConvertible {
    public var description: String { "FaceService(\(settings.bind):\(settings.port))" }

    public let server: FaceServer
    let settings: Configuration.Face
    let folderCandidates: [String]
    let sleep: @Sendable (Duration) async throws -> Void
    let retryInterval: Duration
    let logger: Logger
    private let cell: StatusCell

    /// - Parameters:
    ///   - token: the access token (`ConfigurationLoader.faceToken`); nil when none is needed.
    ///   - respond: the node's command router: the response object for a verb and payload bytes.
    ///   - sleep: the node's monotonic sleep (`NodeClock.sleep`), for the retries.
    ///   - onStatusChange: called with each new status, in order (from the event loop or the
    ///     service's task, under the status's lock: quick, and not reading `status`).
    public init(
        settings: Configuration.Face, token: String?, hub: StateHub, logger: Logger,
        options: FaceServer.Options = FaceServer.Options(), retryInterval: Duration = .seconds(30),
        folderCandidates: [String]? = nil, sleep: @escaping @Sendable (Duration) async throws -> Void,
        respond: @escaping FaceResponder,
        strings: @escaping @Sendable (_ language: String) -> JSONValue? = { _ in nil },
        onStatusChange: @escaping @Sendable (FaceStatus) -> Void = { _ in }
    ) {
        self.settings = settings
        self.folderCandidates = folderCandidates ?? Self.folderCandidates(configured: settings.directory)
        self.sleep = sleep
        self.retryInterval = retryInterval
        self.logger = logger
        let cell = StatusCell(FaceStatus(url: Self.url(bind: settings.bind, port: settings.port), ok: false, error: "starting"), onStatusChange)
        self.cell = cell
        server = FaceServer(
            access: FaceAccess(token: token), hub: hub, options: options, logger: logger, respond: respond, strings: strings,
            clientsChanged: { count in cell.update { $0.clients = count } })
    }

    /// The face's state now, as `B/status` reports it.
    public var status: FaceStatus { cell.current }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await serve() }
    }

    private func serve() async {
        var listening: (any Channel)?
        while !Task.isCancelled {
            if listening == nil {
                do {
                    listening = try await server.bind(host: settings.bind, port: settings.port)
                    logger.info("face listening", metadata: ["url": "\(status.url)", "token": "\(server.access.requiresToken)"])
                } catch {
                    let reason = "cannot listen on \(settings.bind):\(settings.port): \(error)"
                    logger.error("face unavailable; trying again", metadata: ["error": "\(reason)", "retry_s": "\(retryInterval.components.seconds)"])
                    cell.update { $0.ok = false; $0.error = reason }
                    try? await sleep(retryInterval)
                    continue
                }
            }
            guard let channel = listening else { continue }
            let folder = FaceFolder.locate(folderCandidates)
            if folder != server.currentFolder { server.currentFolder = folder }
            guard folder != nil else {
                let reason = "face files not found (an index.html in \(folderCandidates.joined(separator: " or ")))"
                if status.error != reason { logger.error("face files missing; looking again", metadata: ["error": "\(reason)"]) }
                cell.update { $0.ok = false; $0.error = reason }
                try? await sleep(retryInterval)
                continue
            }
            cell.update { $0.ok = true; $0.error = nil }
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            listening = nil
            if !Task.isCancelled {
                logger.error("face listener closed; opening it again")
                cell.update { $0.ok = false; $0.error = "the listening socket closed" }
            }
        }
        try? await listening?.close()
    }

    /// `face.dir` when set; else the installed copy (beside the binary under `share/noiseclock`,
    /// then /usr/share/noiseclock/face), else the checkout's `Resources/face` (from this file's
    /// path: no SwiftPM resources, which would link Foundation).
    public static func folderCandidates(configured: String, executable: String = Executable.path) -> [String] {
        if !configured.isEmpty { return [configured] }
        var candidates: [String] = []
        if let binary = FaceFolder.realPath(executable) {
            let parts = binary.split(separator: "/")
            if parts.count >= 2 { candidates.append("/" + parts.dropLast(2).joined(separator: "/") + "/share/noiseclock/face") }
        }
        candidates.append("/usr/share/noiseclock/face")
        let source = "\(#filePath)".split(separator: "/").dropLast(3).joined(separator: "/")
        candidates.append("/\(source)/Resources/face")
        return candidates.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// The address a browser opens: the bind address, or this machine's name for a wildcard bind.
    static func url(bind: String, port: Int) -> String {
        var host = bind
        if bind == "0.0.0.0" || bind == "::" {
            var buffer = [CChar](repeating: 0, count: 256)
            host = gethostname(&buffer, buffer.count) == 0
                ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
        }
        return host.contains(":") ? "http://[\(host)]:\(port)/" : "http://\(host):\(port)/"
    }
}

/// The current status, and the hook told of each change. The hook runs under the cell's lock,
/// so changes reach it in the order they were made and the last one it saw is the current one:
/// the event loop (a client came or went) and the service's task (listening, folder found)
/// update it at the same time, and a hook called after unlocking could be handed an older
/// status last (B/status then counted one WebSocket client of two).
package final class StatusCell: Sendable {
    private let value: Mutex<FaceStatus>
    private let changed: @Sendable (FaceStatus) -> Void

    /// - Parameter changed: told of each new status, under the cell's lock: quick, and it must
    ///   not come back to the cell.
    package init(_ initial: FaceStatus, _ changed: @escaping @Sendable (FaceStatus) -> Void) {
        value = Mutex(initial)
        self.changed = changed
    }

    package var current: FaceStatus { value.withLock { $0 } }

    package func update(_ change: (inout FaceStatus) -> Void) {
        value.withLock { status in
            let before = status
            change(&status)
            if status != before { changed(status) }
        }
    }
}

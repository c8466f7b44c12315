import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import NoiseClockCore
import NoiseClockHub
import Synchronization

/// The node's answer to a command from the face: the response object for a verb and its payload
/// bytes. It runs on its caller's executor (the node's loop, in a `NodeActor.task`), so the
/// router and the feature it reaches cost no hop.
public typealias FaceResponder = nonisolated(nonsending) @Sendable (_ verb: String, _ payload: [UInt8]) async -> JSONValue

/// The face's HTTP and WebSocket server (SPEC §9) on one SwiftNIO event-loop thread.
///
/// Everything a connection does happens on that thread; the only other threads that touch the
/// server are the StateHub's publishers (they append to the `Outbox` and wake the loop once per
/// burst) and the node's executor, which answers commands and hands the answer back to the loop.
public final class FaceServer: Sendable {
    /// The face's one event-loop thread ("face-N-#0"), for the life of the process. A perpetual
    /// group: shutting a group down goes through libdispatch, which the node never starts.
    static let group = MultiThreadedEventLoopGroup._makePerpetualGroup(threadNamePrefix: "face-", numberOfThreads: 1)

    public struct Options: Sendable {
        /// Largest WebSocket message (and frame) a client may send: SPEC §8's 64 KiB.
        public var maxFrameBytes = 64 * 1024
        /// A connection that has not sent a whole request within this time is closed.
        public var requestTimeout: TimeAmount = .seconds(10)
        /// How often a WebSocket client is pinged; two unanswered pings close it.
        public var pingInterval: TimeAmount = .seconds(120)

        public init() {}
    }

    let access: FaceAccess
    let hub: StateHub
    let respond: FaceResponder
    /// The face's messages in a language (`GET /api/strings/de`); nil for a language the node does not speak.
    let strings: @Sendable (_ language: String) -> JSONValue?
    let options: Options
    let logger: Logger
    let loop: any EventLoop
    let folder: Mutex<FaceFolder?>
    let clients: Clients
    let outbox: Outbox

    public init(
        access: FaceAccess, hub: StateHub, options: Options = Options(), logger: Logger,
        respond: @escaping FaceResponder,
        strings: @escaping @Sendable (_ language: String) -> JSONValue? = { _ in nil },
        clientsChanged: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.access = access
        self.hub = hub
        self.respond = respond
        self.strings = strings
        self.options = options
        self.logger = logger
        loop = Self.group.next()
        folder = Mutex(nil)
        clients = Clients(loop: loop, changed: clientsChanged)
        outbox = Outbox(loop: loop, clients: clients)
    }

    /// The folder files are served from; nil while it is missing (`/` then answers 503).
    public var currentFolder: FaceFolder? {
        get { folder.withLock { $0 } }
        set { folder.withLock { $0 = newValue } }
    }

    /// Listens on `host:port`; the returned channel is the listening socket.
    public func bind(host: String, port: Int) async throws -> any Channel {
        let server = self
        return try await ServerBootstrap(group: loop)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 64)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 * 1024, high: 1024 * 1024))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try server.configure(channel) }
            }
            .bind(host: host, port: port).get()
    }

    private func configure(_ channel: any Channel) throws {
        let server = self
        let upgrader = NIOWebSocketServerUpgrader(
            // The frame decoder's errors reach `FaceWebSocketHandler`, which closes as it closes for
            // every other reason: a close frame, then a graceful end (see its `close`).
            maxFrameSize: options.maxFrameBytes, automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                let allowed = server.upgradeVerdict(head) == .allowed
                server.logger.debug("face WebSocket upgrade asked", metadata: ["client": "\(channel.remoteAddress?.port ?? 0)", "allowed": "\(allowed)"])
                return channel.eventLoop.makeSucceededFuture(allowed ? server.securityHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    do {
                        let sync = channel.pipeline.syncOperations
                        sync.removeHandler(context: try sync.context(name: FaceHTTPHandler.name), promise: nil)
                        try sync.addHandler(
                            NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 64,
                                maxAccumulatedFrameSize: server.options.maxFrameBytes))
                        try sync.addHandler(FaceWebSocketHandler(server: server))
                    } catch {
                        // The 101 is out and the HTTP handler may be gone: nothing else would close
                        // a socket left upgraded but never a client (no states, no pings).
                        server.logger.warning("face WebSocket upgrade failed", metadata: ["error": "\(error)"])
                        channel.close(promise: nil)
                        throw error
                    }
                }
            })
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        try channel.pipeline.syncOperations.addHandler(FaceHTTPHandler(server: self), name: FaceHTTPHandler.name)
    }

    /// The verdict on a request to `/ws`: a token when needed, and a browser's Origin must be ours.
    func upgradeVerdict(_ head: HTTPRequestHead) -> FaceAccess.Verdict {
        guard head.method == .GET, head.uri.split(separator: "?", maxSplits: 1).first == "/ws" else {
            return .forbidden("not the WebSocket path")
        }
        return verdict(head, checkOrigin: true)
    }

    func verdict(_ head: HTTPRequestHead, checkOrigin: Bool) -> FaceAccess.Verdict {
        access.verdict(
            host: head.headers.first(name: "host"), origin: head.headers.first(name: "origin"),
            authorization: head.headers["authorization"], cookies: head.headers["cookie"], checkOrigin: checkOrigin)
    }

    /// On every response: the page may load and connect only to the node itself.
    static let contentSecurityPolicy =
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"

    func securityHeaders() -> HTTPHeaders {
        [
            "Content-Security-Policy": Self.contentSecurityPolicy, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
        ]
    }

    /// The retained states as `GET /api/state` answers: `{topic: value}`.
    func stateJSON() -> JSONValue {
        .object(Dictionary(hub.snapshot.map { ($0.topic, $0.value) }) { _, last in last })
    }
}

/// The WebSocket clients, touched only on the event loop.
final class Clients: @unchecked Sendable {
    // @unchecked Sendable: every member is read and written on `loop` only (asserted).
    struct Client {
        let channel: any Channel
        var subscription: StateHub.Subscription?
        var unansweredPings = 0
    }

    let loop: any EventLoop
    private let changed: @Sendable (Int) -> Void
    private var byID: [ObjectIdentifier: Client] = [:]
    private var pinger: RepeatedTask?

    init(loop: any EventLoop, changed: @escaping @Sendable (Int) -> Void) {
        self.loop = loop
        self.changed = changed
    }

    var count: Int {
        loop.preconditionInEventLoop()
        return byID.count
    }

    /// Adds a client and subscribes it to the hub: every retained state now, then each change.
    func add(_ channel: any Channel, server: FaceServer) {
        loop.preconditionInEventLoop()
        let id = ObjectIdentifier(channel)
        byID[id] = Client(channel: channel)
        let outbox = server.outbox
        byID[id]?.subscription = server.hub.subscribe { change in outbox.post(id, FaceMessages.encode(change)) }
        if pinger == nil {
            let interval = server.options.pingInterval
            pinger = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in self?.pingAll() }
        }
        changed(byID.count)
    }

    func remove(_ channel: any Channel, hub: StateHub) {
        loop.preconditionInEventLoop()
        guard let client = byID.removeValue(forKey: ObjectIdentifier(channel)) else { return }
        if let subscription = client.subscription { hub.unsubscribe(subscription) }
        if byID.isEmpty {
            pinger?.cancel()
            pinger = nil
        }
        changed(byID.count)
    }

    func channel(_ id: ObjectIdentifier) -> (any Channel)? {
        loop.preconditionInEventLoop()
        return byID[id]?.channel
    }

    func ponged(_ channel: any Channel) {
        loop.preconditionInEventLoop()
        byID[ObjectIdentifier(channel)]?.unansweredPings = 0
    }

    /// How many clients have a ping unanswered (the liveness test looks between its pings).
    var awaitingPong: Int {
        loop.preconditionInEventLoop()
        return byID.values.count { $0.unansweredPings > 0 }
    }

    /// One timer for all clients: each gets a ping, and one that left two unanswered is closed.
    /// (The liveness test calls it itself, so it needs no timer.)
    func pingAll() {
        loop.preconditionInEventLoop()
        for (id, client) in byID {
            if client.unansweredPings >= 2 {
                client.channel.close(promise: nil)
                continue
            }
            byID[id]?.unansweredPings += 1
            client.channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer()), promise: nil)
        }
    }
}

/// State changes on their way from the hub's publishers to the clients: appended under a lock by
/// whichever thread publishes, drained on the event loop. The loop is woken once per burst (a
/// minute's `clock` and `alarm/next` for two clients is one wake-up, not four).
final class Outbox: Sendable {
    private struct Pending {
        var items: [(ObjectIdentifier, [UInt8])] = []
        var scheduled = false
    }

    private let pending = Mutex(Pending())
    private let loop: any EventLoop
    private let clients: Clients

    init(loop: any EventLoop, clients: Clients) {
        self.loop = loop
        self.clients = clients
    }

    func post(_ client: ObjectIdentifier, _ frame: [UInt8]) {
        let wake = pending.withLock { pending -> Bool in
            pending.items.append((client, frame))
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        if wake { loop.execute { self.drain() } }
    }

    private func drain() {
        let items = pending.withLock { pending -> [(ObjectIdentifier, [UInt8])] in
            pending.scheduled = false
            defer { pending.items.removeAll(keepingCapacity: true) }
            return pending.items
        }
        var touched: [ObjectIdentifier: any Channel] = [:]
        for (id, bytes) in items {
            guard let channel = clients.channel(id) else { continue }
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.write(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
            touched[id] = channel
        }
        for channel in touched.values {
            channel.flush()
            // A client that has not taken a megabyte of state is gone or stuck: let it reconnect.
            if !channel.isWritable { channel.close(promise: nil) }
        }
    }
}

import Foundation
import NIOCore
import NIOPosix
import NIOWebSocket
import NoiseClockCore
import Synchronization

/// A test client for the node's clock face, on SwiftNIO (FoundationNetworking's URLSession may be
/// missing): HTTP requests written byte for byte (so a test can send `/static/../x` unnormalized)
/// and a WebSocket client. Loopback addresses only.
public enum FaceHTTP {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
        public func headers(_ name: String) -> [String] { headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value) }
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: JSONValue? { try? JSONValue.parse(body) }
    }

    public struct NoResponse: Error, CustomStringConvertible {
        public var received: [UInt8]
        public var description: String { "no complete HTTP response; received: \(String(decoding: received.prefix(300), as: UTF8.self))" }
    }

    /// Sends one request with `Connection: close` and reads the response to the end. The timeout
    /// is long: it only matters when the node is slow, as when the whole suite starts its nodes at
    /// once on two cores (one request once waited over 10 s there), and no test waits it out on purpose.
    public static func request(
        _ method: String = "GET", host: String = "127.0.0.1", port: Int, path: String, headers: [(String, String)] = [],
        body: [UInt8] = [], timeout: Duration = .seconds(30)
    ) async throws -> Response {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        let bytes = try await exchange(host: host, port: port, Array((text + "\r\n").utf8) + body, timeout: timeout)
        guard let response = parse(bytes) else { throw NoResponse(received: bytes) }
        return response
    }

    /// Writes `bytes` and returns everything received until the server closes (or `timeout`).
    public static func exchange(host: String = "127.0.0.1", port: Int, _ bytes: [UInt8], timeout: Duration = .seconds(10)) async throws
        -> [UInt8]
    {
        try await exchangeUntilClosed(host: host, port: port, bytes, timeout: timeout).received
    }

    /// Writes `bytes` the moment the connection is up, on the connection's event loop (not after
    /// an `await`: a test task that waits its turn on a busy machine would otherwise let a
    /// server's request timeout run out before the request is written), and collects what comes
    /// until the server closes. `openFor` is how long the connection was open, timed on its event
    /// loop (so a test task that waits its turn does not lengthen it); nil when `timeout` ran out first.
    public static func exchangeUntilClosed(host: String = "127.0.0.1", port: Int, _ bytes: [UInt8], timeout: Duration) async throws
        -> (received: [UInt8], openFor: Duration?)
    {
        let collected = Collected()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(collected, sending: bytes)) }
            }
            .connect(host: host, port: port).get()
        let closed = await eventually(timeout: timeout) { collected.closed.withLock { $0 } }
        if !closed { try? await channel.close() }
        let openFor = collected.openFor.withLock { $0 }
        return (collected.bytes.withLock { $0 }, closed ? openFor : nil)
    }

    static func parse(_ bytes: [UInt8]) -> Response? {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[end.upperBound...])
        if let length = headers.first(where: { $0.0.lowercased() == "content-length" }).flatMap({ Int($0.1) }) {
            guard body.count >= length else { return nil }
            body = Array(body.prefix(length))
        }
        return Response(status: status, headers: headers, body: body)
    }

    final class Collected: Sendable {
        let bytes = Mutex<[UInt8]>([])
        let closed = Mutex(false)
        let openedAt = Mutex<ContinuousClock.Instant?>(nil)
        let openFor = Mutex<Duration?>(nil)
    }

    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let collected: Collected
        let sending: [UInt8]
        init(_ collected: Collected, sending: [UInt8]) {
            self.collected = collected
            self.sending = sending
        }

        // A server that closed first (a test of its timeouts) fails the write: what came is still the answer.
        func channelActive(context: ChannelHandlerContext) {
            collected.openedAt.withLock { $0 = .now }
            context.writeAndFlush(NIOAny(ByteBuffer(bytes: sending)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            collected.bytes.withLock { $0 += bytes }
        }

        func channelInactive(context: ChannelHandlerContext) {
            let now = ContinuousClock.now
            if let opened = collected.openedAt.withLock({ $0 }) { collected.openFor.withLock { $0 = now - opened } }
            collected.closed.withLock { $0 = true }
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}

/// A WebSocket client of the face: it keeps every text message (parsed) and the close code.
public final class FaceWebSocket: Sendable {
    public struct Refused: Error, CustomStringConvertible {
        public var response: FaceHTTP.Response?
        public var description: String { "WebSocket upgrade refused: \(response.map { "\($0.status) \($0.text)" } ?? "no response")" }
    }

    private let channel: any Channel
    private let inbox: Inbox
    /// Whether pings are answered (a test of the server's liveness check turns this off).
    public var answersPings: Bool {
        get { inbox.answersPings.withLock { $0 } }
        set { inbox.answersPings.withLock { $0 = newValue } }
    }

    final class Inbox: Sendable {
        let messages = Mutex<[JSONValue]>([])
        let arrivals = Mutex<[ContinuousClock.Instant]>([])
        let closeCode = Mutex<UInt16?>(nil)
        let closed = Mutex(false)
        /// Why the connection closed, as far as this side knows: the server's close frame, an
        /// error on this side, or the server's end of the stream (for a failing test's message).
        let closeReason = Mutex<String?>(nil)
        let pings = Mutex(0)
        let answersPings = Mutex(true)
        /// Commands waiting for their response, by id: resumed the moment it arrives (no polling,
        /// so the bench's round trips are the node's, not a poll interval).
        let waiting = Mutex<[String: CheckedContinuation<JSONValue?, Never>]>([:])

        /// Records why the connection closed; the first reason seen is the one kept.
        func noteClose(_ reason: String) {
            closeReason.withLock { if $0 == nil { $0 = reason } }
        }

        func received(_ value: JSONValue, at instant: ContinuousClock.Instant) {
            messages.withLock { $0.append(value) }
            arrivals.withLock { $0.append(instant) }
            if value["type"] == "response", let id = value["id"]?.stringValue {
                waiting.withLock { $0.removeValue(forKey: id) }?.resume(returning: value)
            }
        }

        func abandon(_ id: String) {
            waiting.withLock { $0.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    /// Connects and upgrades `/ws` with `headers` (e.g. Origin, Authorization, Cookie).
    public init(host: String = "127.0.0.1", port: Int, path: String = "/ws", headers: [(String, String)] = []) async throws {
        let inbox = Inbox()
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        // Written on connect, on the event loop (see `FaceHTTP.exchangeUntilClosed`).
        let handshake = Handshake(inbox: inbox, request: Array((request + "\r\n").utf8))
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handshake) } }
            .connect(host: host, port: port).get()
        self.inbox = inbox
        let settled = await eventually { handshake.outcome.withLock { $0 != nil } }
        guard settled, case .upgraded = handshake.outcome.withLock({ $0 }) else {
            try? await channel.close()
            if case .refused(let response) = handshake.outcome.withLock({ $0 }) { throw Refused(response: response) }
            throw Refused(response: nil)
        }
    }

    /// Sends a text frame (masked, as a browser does).
    public func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8], opcode: WebSocketOpcode = .text, fin: Bool = true) async throws {
        let frame = WebSocketFrame(fin: fin, opcode: opcode, maskKey: .random(), data: ByteBuffer(bytes: bytes))
        try await channel.writeAndFlush(frame)
    }

    /// Sends a command and waits for the response with its id; returns the response's payload.
    /// The wait is for the response (a stored command once took over 10 s at the start of a
    /// loaded run); `timeout` only ends a wait for one that never comes (then it throws).
    public func command(
        _ verb: String, payload: String? = nil, id: String = UUID().uuidString, timeout: Duration = eventHangGuard
    ) async throws -> JSONValue {
        let frame = #"{"type":"command","verb":"\#(verb)","id":"\#(id)""# + (payload.map { #","payload":\#($0)"# } ?? "") + "}"
        let inbox = self.inbox
        let timer = Task {
            try await Task.sleep(for: timeout)
            inbox.abandon(id)
        }
        defer { timer.cancel() }
        let response = await withCheckedContinuation { (continuation: CheckedContinuation<JSONValue?, Never>) in
            inbox.waiting.withLock { $0[id] = continuation }
            let channel = self.channel
            channel.eventLoop.execute {
                channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: frame)))
                    .whenFailure { _ in inbox.abandon(id) }
            }
        }
        guard let response else { throw FaceHTTP.NoResponse(received: []) }
        return response["payload"] ?? .null
    }

    public var messages: [JSONValue] { inbox.messages.withLock { $0 } }
    /// When each message arrived (same order as `messages`).
    public var arrivals: [ContinuousClock.Instant] { inbox.arrivals.withLock { $0 } }
    public var closeCode: UInt16? { inbox.closeCode.withLock { $0 } }
    public var isClosed: Bool { inbox.closed.withLock { $0 } }
    public var closeReason: String? { inbox.closeReason.withLock { $0 } }
    public var pingsReceived: Int { inbox.pings.withLock { $0 } }
    public func clear() {
        inbox.messages.withLock { $0.removeAll() }
        inbox.arrivals.withLock { $0.removeAll() }
    }

    /// The first message satisfying `predicate`, waiting up to `timeout`.
    public func waitFor(timeout: Duration = eventHangGuard, _ predicate: @escaping (JSONValue) -> Bool) async -> JSONValue? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = messages.first(where: predicate) { return found }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The latest state of `topic` received.
    public func state(_ topic: String) -> JSONValue? {
        messages.last { $0["type"] == "state" && $0["topic"] == .string(topic) }?["payload"]
    }

    public func waitUntilClosed(timeout: Duration = eventHangGuard) async -> Bool {
        await eventually(timeout: timeout) { isClosed }
    }

    public func close() async {
        inbox.noteClose("closed by the test")
        try? await channel.close()
    }

    /// Reads the 101 (or the refusal), then hands the connection to NIO's frame codec.
    final class Handshake: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
        // @unchecked Sendable: `buffer` is touched on the channel's event loop only; `outcome` is a Mutex.
        typealias InboundIn = ByteBuffer
        enum Outcome { case upgraded, refused(FaceHTTP.Response?) }
        let inbox: Inbox
        let request: [UInt8]
        let outcome = Mutex<Outcome?>(nil)
        private var buffer: [UInt8] = []

        init(inbox: Inbox, request: [UInt8]) {
            self.inbox = inbox
            self.request = request
        }

        func channelActive(context: ChannelHandlerContext) {
            context.writeAndFlush(NIOAny(ByteBuffer(bytes: request)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var chunk = unwrapInboundIn(data)
            buffer += chunk.readBytes(length: chunk.readableBytes) ?? []
            guard let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
            guard head.hasPrefix("HTTP/1.1 101") else {
                // A refusal: wait for its body, which the server ends by closing.
                if let response = FaceHTTP.parse(buffer) { outcome.withLock { $0 = .refused(response) } }
                return
            }
            let leftover = Array(buffer[end.upperBound...])
            do {
                let sync = context.pipeline.syncOperations
                try sync.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 20)), position: .after(self))
                try sync.addHandler(WebSocketFrameEncoder(), position: .after(self))
                try sync.addHandler(Frames(inbox: inbox))
            } catch {
                context.close(promise: nil)
                return
            }
            outcome.withLock { $0 = .upgraded }
            if !leftover.isEmpty { context.fireChannelRead(NIOAny(ByteBuffer(bytes: leftover))) }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            outcome.withLock { if $0 == nil { $0 = .refused(FaceHTTP.parse(buffer)) } }
            inbox.noteClose("closed during the handshake")
            inbox.closed.withLock { $0 = true }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            inbox.noteClose("error during the handshake: \(error)")
            context.close(promise: nil)
        }
    }

    final class Frames: ChannelInboundHandler, Sendable {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame
        let inbox: Inbox
        init(inbox: Inbox) { self.inbox = inbox }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            var payload = frame.unmaskedData
            switch frame.opcode {
            case .text:
                let bytes = payload.readBytes(length: payload.readableBytes) ?? []
                let now = ContinuousClock.now
                let value = (try? JSONValue.parse(bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
                inbox.received(value, at: now)
            case .ping:
                inbox.pings.withLock { $0 += 1 }
                guard inbox.answersPings.withLock({ $0 }) else { return }
                let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            case .connectionClose:
                let code = payload.readInteger(as: UInt16.self)
                inbox.closeCode.withLock { $0 = code }
                inbox.noteClose("the server's close frame (\(code.map(String.init) ?? "no code"))")
                context.close(promise: nil)
            default:
                break
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            inbox.noteClose("the connection ended")
            inbox.closed.withLock { $0 = true }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            inbox.noteClose("error on the client's side: \(error)")
            context.close(promise: nil)
        }
    }
}

/// A small face folder and the environment that turns a test node's face on.
public enum FaceFixture {
    /// A temporary face folder: index.html, css/face.css, js/app.js, and a symlink `outside` to
    /// `../secret.txt`, a file beside the folder that no request may read.
    public static func folder() throws -> String {
        let parent = try makeTemporaryDirectory("face")
        let directory = "\(parent)/face"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try secret.write(toFile: "\(parent)/secret.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "\(directory)/css", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(directory)/js", withIntermediateDirectories: true)
        try index.write(toFile: "\(directory)/index.html", atomically: true, encoding: .utf8)
        try "body { background: black; }\n".write(toFile: "\(directory)/css/face.css", atomically: true, encoding: .utf8)
        try "export const face = 1;\n".write(toFile: "\(directory)/js/app.js", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/outside", withDestinationPath: "../secret.txt")
        return directory
    }

    public static let secret = "SECRET-beside-the-face\n"

    public static let index = "<!doctype html><html><head><link rel=stylesheet href=/static/css/face.css></head><body>face</body></html>\n"

    /// The node's environment for a face on `bind:port` serving `folder`.
    public static func environment(port: Int, folder: String, bind: String = "127.0.0.1", tokenFile: String? = nil) -> [String: String] {
        var environment = [
            "NOISECLOCK_FACE_ENABLED": "true", "NOISECLOCK_FACE_BIND": bind, "NOISECLOCK_FACE_PORT": "\(port)",
            "NOISECLOCK_FACE_DIR": folder,
        ]
        if let tokenFile { environment["NOISECLOCK_FACE_TOKEN_FILE"] = tokenFile }
        return environment
    }
}

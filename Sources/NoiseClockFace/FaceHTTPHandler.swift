import NIOCore
import NIOHTTP1
import NIOWebSocket
import NoiseClockCore
import NoiseClockSystem

/// One HTTP connection of the face: the routes of SPEC §9 behind the access rules of §8.
///
/// `GET /` the face's index.html (`?token=T` once sets the cookie), `GET /static/…` its files,
/// `GET /api/state` every retained state, `GET /api/strings/LANG` the face's messages in a language
/// (SPEC §11), `POST /api/cmd/VERB` a command; `GET /ws` is upgraded
/// before it gets here, so a `/ws` request seen here was refused (403/401) or not an upgrade (400).
final class FaceHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let name = "face-http"

    private let server: FaceServer
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyBytes = 0
    /// Closes a connection that has not sent a whole request in time (a slow or idle client).
    private var requestTimer: Scheduled<Void>?

    init(server: FaceServer) {
        self.server = server
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armTimer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armTimer(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        requestTimer = nil
    }

    private func armTimer(_ context: ChannelHandlerContext) {
        requestTimer?.cancel()
        let channel = context.channel
        let logger = server.logger
        requestTimer = context.eventLoop.scheduleTask(in: server.options.requestTimeout) {
            logger.debug("face connection closed: no whole request in time", metadata: ["client": "\(channel.remoteAddress?.port ?? 0)"])
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
            bodyBytes = 0
        case .body(var chunk):
            bodyBytes += chunk.readableBytes
            // Past the limit the bytes are only counted, for the too_large answer.
            if body.count + chunk.readableBytes <= CommandPayload.maxBytes, let bytes = chunk.readBytes(length: chunk.readableBytes) {
                body += bytes
            }
        case .end:
            requestTimer?.cancel()
            requestTimer = nil
            guard let head else { return }
            self.head = nil
            handle(head, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A refused WebSocket upgrade is reported as an error, then the request comes here to be answered.
        if error is NIOWebSocketUpgradeError { return }
        server.logger.debug("face connection failed", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    private func handle(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first ?? ""
        let query = parts.count > 1 ? parts[1] : ""
        let isCommand = path.hasPrefix("/api/cmd/")
        // `GET /?token=T` is the one way in without a token: check it before the token rule.
        if path == "/", head.method == .GET, server.access.acceptsQueryToken(query) {
            var headers: HTTPHeaders = ["Location": "/"]
            if let cookie = server.access.setCookie { headers.add(name: "Set-Cookie", value: cookie) }
            return send(.seeOther, text: "signed in\n", headers: headers, head: head, context: context)
        }
        switch server.verdict(head, checkOrigin: isCommand || path == "/ws") {
        case .allowed: break
        case .unauthorized:
            return send(
                .unauthorized, text: "a token is needed: open /?token=YOUR_TOKEN once, or send Authorization: Bearer YOUR_TOKEN\n",
                headers: ["WWW-Authenticate": "Bearer"], head: head, context: context)
        case .forbidden(let reason):
            return send(.forbidden, text: reason + "\n", head: head, context: context)
        }
        let isRead = head.method == .GET || head.method == .HEAD
        switch path {
        case "/" where isRead:
            serveFile(["index.html"], head: head, context: context)
        case _ where path.hasPrefix("/static/") && isRead:
            guard let segments = FacePath.segments(path.dropFirst("/static/".count)) else {
                return send(.notFound, text: "not found\n", head: head, context: context)
            }
            serveFile(segments, head: head, context: context)
        case "/api/state" where isRead:
            send(.ok, json: server.stateJSON(), head: head, context: context)
        case _ where path.hasPrefix("/api/strings/") && isRead:
            guard let strings = server.strings(String(path.dropFirst("/api/strings/".count))) else {
                return send(.notFound, text: "no such language\n", head: head, context: context)
            }
            send(.ok, json: strings, head: head, context: context)
        case _ where isCommand && head.method == .POST:
            command(String(path.dropFirst("/api/cmd/".count)), head: head, context: context)
        case "/ws":
            send(.badRequest, text: "a WebSocket upgrade on a new connection is expected here\n", head: head, context: context)
        case _ where path == "/" || path == "/api/state" || path.hasPrefix("/api/strings/") || path.hasPrefix("/static/") || isCommand:
            let allow = isCommand ? "POST" : "GET, HEAD"
            send(.methodNotAllowed, text: "use \(allow)\n", headers: ["Allow": allow], head: head, context: context)
        default:
            send(.notFound, text: "not found\n", head: head, context: context)
        }
    }

    private func serveFile(_ segments: [String], head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard let folder = server.currentFolder else {
            return send(.serviceUnavailable, text: "the face's files are not installed (see face.dir)\n", head: head, context: context)
        }
        guard let file = folder.file(segments) else {
            return send(.notFound, text: "not found\n", head: head, context: context)
        }
        // No build step, no hashed names: the browser asks again each time and gets 304 while the
        // file is unchanged, so an update of the face shows at the next load.
        var headers: HTTPHeaders = ["ETag": file.etag, "Cache-Control": "no-cache"]
        if head.headers["if-none-match"].contains(where: { $0.split(separator: ",").contains { $0.trimmingSpaces() == file.etag } }) {
            return send(.notModified, body: [], contentType: nil, headers: headers, head: head, context: context)
        }
        headers.add(name: "Content-Type", value: file.contentType)
        send(.ok, body: file.bytes, contentType: file.contentType, headers: headers, head: head, context: context)
    }

    /// The body goes through the node's command router exactly as an MQTT payload does.
    private func command(_ rawVerb: String, head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard let decoded = FacePath.percentDecoded(Substring(rawVerb)), let verb = String(validating: decoded, as: UTF8.self),
            !verb.isEmpty
        else {
            return send(.notFound, text: "not found\n", head: head, context: context)
        }
        if bodyBytes > CommandPayload.maxBytes {
            // The router would say the same; the bytes past the limit were never kept.
            let error = CommandError(.tooLarge, "payload is \(bodyBytes) bytes; the limit is \(CommandPayload.maxBytes)", field: "payload")
            return send(.payloadTooLarge, json: CommandResponse(.failure(error), transaction: nil).json, head: head, context: context)
        }
        let payload = body
        body = []
        let respond = server.respond
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        NodeActor.task {
            let response = await respond(verb, payload)
            loop.execute {
                let (handler, context) = bound.value
                handler.send(
                    HTTPResponseStatus(statusCode: FaceMessages.httpStatus(of: response)), json: response, head: head, context: context)
            }
        }
    }

    private func send(_ status: HTTPResponseStatus, json: JSONValue, head: HTTPRequestHead, context: ChannelHandlerContext) {
        send(status, body: json.serializedBytes, contentType: "application/json", headers: ["Cache-Control": "no-store"], head: head, context: context)
    }

    private func send(
        _ status: HTTPResponseStatus, text: String, headers: HTTPHeaders = [:], head: HTTPRequestHead, context: ChannelHandlerContext
    ) {
        var headers = headers
        headers.add(name: "Cache-Control", value: "no-store")
        send(status, body: Array(text.utf8), contentType: "text/plain; charset=utf-8", headers: headers, head: head, context: context)
    }

    private func send(
        _ status: HTTPResponseStatus, body: [UInt8], contentType: String?, headers extra: HTTPHeaders, head: HTTPRequestHead,
        context: ChannelHandlerContext
    ) {
        guard context.channel.isActive else { return }
        var headers = server.securityHeaders()
        headers.add(contentsOf: extra)
        if let contentType, !headers.contains(name: "Content-Type") { headers.add(name: "Content-Type", value: contentType) }
        headers.add(name: "Content-Length", value: "\(status == .notModified ? 0 : body.count)")
        // A refused or failed request ends the connection: no reason to keep a stranger's socket.
        let keepAlive = head.isKeepAlive && status.code < 400
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD, status != .notModified, !body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
        if keepAlive { armTimer(context) }
    }
}

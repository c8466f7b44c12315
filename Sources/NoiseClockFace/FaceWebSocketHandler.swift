import NIOCore
import NIOWebSocket
import NoiseClockCore
import NoiseClockSystem

/// One WebSocket client of the face: it receives every retained state and then each change and
/// event (through `Clients` and the `Outbox`), and sends commands, answered one at a time in order.
final class FaceWebSocketHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let server: FaceServer
    /// What waits while the command before it is answered: a command, or the answer to a frame
    /// that was refused (sent in its turn, so answers always come in the order of the frames).
    private enum Pending {
        case command(FaceMessages.Command)
        case answer([UInt8])
    }

    private var queue: [Pending] = []
    private var answering = false
    private var closing = false
    /// More than this many commands waiting: the client is flooding; it is answered `unavailable`.
    static let maxQueued = 32

    init(server: FaceServer) {
        self.server = server
    }

    func handlerAdded(context: ChannelHandlerContext) {
        server.clients.add(context.channel, server: server)
        server.logger.debug("face WebSocket client added", metadata: ["client": "\(context.channel.remoteAddress?.port ?? 0)"])
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        server.clients.remove(context.channel, hub: server.hub)
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.logger.debug("face WebSocket client gone", metadata: ["client": "\(context.channel.remoteAddress?.port ?? 0)"])
        server.clients.remove(context.channel, hub: server.hub)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // Closing: what still comes is dropped; the client's close frame ends it.
        if closing {
            if frame.opcode == .connectionClose { context.close(promise: nil) }
            return
        }
        switch frame.opcode {
        case .text:
            var data = frame.unmaskedData
            let bytes = data.readBytes(length: data.readableBytes) ?? []
            switch FaceMessages.command(from: bytes) {
            case .success(let command): enqueue(.command(command), id: command.id, context: context)
            case .failure(let rejection): enqueue(.answer(rejection.frame), id: rejection.id, context: context)
            }
        case .binary:
            let rejection = FaceMessages.Rejection(id: .null, error: CommandError(.invalidJSON, "frames must be text (JSON)", field: "frame"))
            enqueue(.answer(rejection.frame), id: .null, context: context)
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            server.clients.ponged(context.channel)
        case .connectionClose:
            close(context: context, code: nil, echoing: frame)
        default:
            close(context: context, code: .protocolError, echoing: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Closing already: the decoder reports each read after its error (data received in its
        // error state); that data is dropped like any other, and the close ends as it began.
        guard !closing else { return }
        // A message over the limit, whole (the decoder sees its length) or pieced from fragments
        // (the aggregator adds them up): 1009. Any other broken framing: 1002.
        if let error = error as? NIOWebSocketFrameAggregator.Error {
            close(context: context, code: error == .accumulatedFrameSizeIsTooLarge ? .messageTooLarge : .protocolError, echoing: nil)
        } else if let error = error as? NIOWebSocketError {
            close(context: context, code: error == .invalidFrameLength ? .messageTooLarge : .protocolError, echoing: nil)
        } else {
            server.logger.debug("face WebSocket failed", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
    }

    private func enqueue(_ pending: Pending, id: JSONValue, context: ChannelHandlerContext) {
        guard queue.count < Self.maxQueued else {
            let error = CommandError(.unavailable, "more than \(Self.maxQueued) commands are waiting; send fewer at once")
            return write(FaceMessages.Rejection(id: id, error: error).frame, context: context)
        }
        queue.append(pending)
        answerNext(context: context)
    }

    /// Sends what is due in turn: a refusal at once, a command's answer once the node's executor
    /// has it (then the rest).
    private func answerNext(context: ChannelHandlerContext) {
        while !answering, !queue.isEmpty, case .answer(let frame) = queue[0] {
            queue.removeFirst()
            write(frame, context: context)
        }
        guard !answering, !queue.isEmpty, case .command(let command) = queue.removeFirst() else { return }
        answering = true
        let respond = server.respond
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        NodeActor.task {
            let response = await respond(command.verb, command.payload)
            loop.execute {
                let (handler, context) = bound.value
                handler.answering = false
                guard context.channel.isActive else { return }
                handler.write(FaceMessages.response(id: command.id, response), context: context)
                handler.answerNext(context: context)
            }
        }
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
    }

    /// How long a connection the server closes stays open for reading after its close frame.
    static let linger: TimeAmount = .seconds(2)

    /// Sends a close frame (the client's own code echoed, or `code`) and closes the connection.
    /// When the server closes (`code`), the client may still be sending (the rest of a message
    /// that was too large): closing the socket then would make the kernel answer that data with
    /// a reset, which can destroy the close frame before the client reads it. So the server ends
    /// only its side, reads and drops what still comes, and closes when the client has closed or
    /// after `linger`.
    private func close(context: ChannelHandlerContext, code: WebSocketErrorCode?, echoing frame: WebSocketFrame?) {
        guard !closing else { return }
        closing = true
        server.logger.debug(
            "face WebSocket closing",
            metadata: ["client": "\(context.channel.remoteAddress?.port ?? 0)", "code": "\(code.map { "\($0)" } ?? "the client's")"])
        var data = context.channel.allocator.buffer(capacity: 2)
        if let code {
            data.write(webSocketErrorCode: code)
        } else if var received = frame?.unmaskedData, let echoed = received.readSlice(length: 2) {
            data = echoed
        }
        let channel = context.channel
        let written = context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
        guard code != nil else {
            written.whenComplete { _ in channel.close(promise: nil) }
            return
        }
        written.whenComplete { _ in channel.close(mode: .output, promise: nil) }
        context.eventLoop.scheduleTask(in: Self.linger) { channel.close(promise: nil) }
    }
}

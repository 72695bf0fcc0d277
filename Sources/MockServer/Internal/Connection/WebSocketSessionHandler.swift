@_spi(AirlockTransport) import AirlockCore
import Foundation
import NIOCore
import NIOWebSocket

/// One mocked WebSocket, after the upgrade: plays the connection's script (the core's
/// `WebSocketScript.Player` decides, this handler sends, after the script's waits), answers pings and the client's close,
/// takes messages a test pushes, and records every message and close frame, both ways, in the
/// journal entry of the opening request.
final class WebSocketSessionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// How long the server waits for the client to answer its close frame before it closes the
    /// connection anyway.
    static let closeTimeout = TimeAmount.seconds(5)

    private var player: WebSocketScript.Player
    private let request: RecordedRequest
    private let recorder: ExchangeRecorder
    private let hub: WebSocketConnections
    /// The connection's id in the hub while it is open.
    private var id: UInt64?
    private var context: ChannelHandlerContext?
    /// Whether the server has sent its close frame: it sends nothing after it.
    private var closeSent = false
    /// Actions held back by a wait step, in order.
    private var pending: [WebSocketScript.Player.Action] = []
    /// Whether a wait step is under way.
    private var isWaiting = false

    init(script: WebSocketScript, request: RecordedRequest, recorder: ExchangeRecorder, hub: WebSocketConnections) {
        player = WebSocketScript.Player(script)
        self.request = request
        self.recorder = recorder
        self.hub = hub
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        id = hub.opened(WebSocketConnections.Connection(
            request: request,
            send: { message in eventLoop.execute { loopBound.value.send(message) } },
            close: { code, reason in eventLoop.execute { loopBound.value.close(code: code, reason: reason) } }
        ))
        perform(player.opened())
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        forget()
    }

    func channelInactive(context: ChannelHandlerContext) {
        forget()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            var data = frame.unmaskedData
            received(.text(data.readString(length: data.readableBytes) ?? ""))
        case .binary:
            var data = frame.unmaskedData
            received(.binary(Data(data.readBytes(length: data.readableBytes) ?? [])))
        case .ping:
            guard !closeSent else { return }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readInteger(as: UInt16.self)
            let reason = data.readString(length: data.readableBytes) ?? ""
            recorder.record(RecordedWebSocketFrame(direction: .fromClient, content: .close(code: code, reason: reason), date: Date()))
            if closeSent {
                context.close(promise: nil)
            } else {
                // Answer with the client's code (RFC 6455 §5.5.1), then close.
                let answer: UInt16 = code.map { WebSocketScript.isSendable(closeCode: $0) ? $0 : 1000 } ?? 1000
                writeClose(code: code == nil ? nil : answer, reason: "", context: context).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
        default:
            break
        }
    }

    // MARK: Sending

    private func received(_ message: WebSocketMessage) {
        recorder.record(RecordedWebSocketFrame(direction: .fromClient, content: .message(message), date: Date()))
        perform(player.received(message))
    }

    /// Performs actions in order; a wait holds back every action after it (those of later
    /// messages too) until it has passed.
    private func perform(_ actions: [WebSocketScript.Player.Action]) {
        pending.append(contentsOf: actions)
        guard !isWaiting else { return }
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .send(let message): send(message)
            case .close(let code, let reason): close(code: code, reason: reason)
            case .wait(let seconds):
                guard let context, seconds > 0 else { continue }
                isWaiting = true
                let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .saturatingSeconds(seconds)) {
                    loopBound.value.isWaiting = false
                    loopBound.value.perform([])
                }
                return
            }
        }
    }

    /// Sends a message, unless the connection is closing.
    func send(_ message: WebSocketMessage) {
        guard let context, !closeSent, context.channel.isActive else { return }
        let opcode: WebSocketOpcode
        switch message {
        case .text: opcode = .text
        case .binary: opcode = .binary
        }
        recorder.record(RecordedWebSocketFrame(direction: .toClient, content: .message(message), date: Date()))
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: opcode, data: ByteBuffer(bytes: message.bytes))), promise: nil)
    }

    /// Sends a close frame; the connection closes when the client answers it, or after
    /// ``closeTimeout``.
    func close(code: UInt16, reason: String) {
        guard let context, !closeSent, context.channel.isActive else { return }
        _ = writeClose(code: code, reason: reason, context: context)
        let channel = context.channel
        let deadline = context.eventLoop.scheduleTask(in: Self.closeTimeout) { channel.close(promise: nil) }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
    }

    private func writeClose(code: UInt16?, reason: String, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        closeSent = true
        recorder.record(RecordedWebSocketFrame(direction: .toClient, content: .close(code: code, reason: reason), date: Date()))
        var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        if let code {
            data.writeInteger(code)
            data.writeString(reason)
        }
        return context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
    }

    private func forget() {
        if let id { hub.closed(id) }
        id = nil
        context = nil
    }
}

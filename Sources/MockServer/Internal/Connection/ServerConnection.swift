import AirlockBase
import AirlockCore
import NIOCore
import NIOHTTP1

/// What the server knows about one connection from any thread: whether, and since when, it has
/// sat idle between requests — the connection to close first when the server is full.
final class ConnectionActivity: Sendable {
    /// When the connection became idle (waiting for a request, no byte of it yet, or closing);
    /// `nil` while a request is on its way in or being answered. A new connection is idle from
    /// the moment it is accepted.
    let idleSince = Locked<NIODeadline?>(.now())
}

/// One server connection: it holds the connection's ``StateMachine``, feeds it what the
/// connection's handlers see, and performs the actions it returns — the one timer, the `408`,
/// the graceful close. It lives on the channel's event loop.
///
/// Two handlers feed it: ``ByteArrivalObserver``, in front of the HTTP decoder (behind TLS),
/// which sees bytes as they arrive, and ``RequestHandler``, behind SwiftNIO's pipelining
/// handler, which sees requests and writes responses.
final class ServerConnection {
    private var machine: StateMachine
    /// What the server reads about this connection from other threads.
    let activity: ConnectionActivity
    /// Where a `408` is written from: in front of the HTTP decoder and encoder, behind TLS.
    private var byteContext: ChannelHandlerContext?
    private var timer: Scheduled<Void>?

    init(limits: StateMachine.Limits, activity: ConnectionActivity, now: NIODeadline) {
        machine = StateMachine(limits: limits, now: now)
        self.activity = activity
    }

    /// Whether a `CONNECT` made the connection a tunnel, whose requests name their own host.
    var isTunnel: Bool { machine.isTunnel }

    /// Whether the connection is closing: what the client still sends is dropped.
    var isClosing: Bool { machine.isClosing }

    // MARK: Events from the byte observer

    fileprivate func attached(_ context: ChannelHandlerContext) {
        byteContext = context
        if context.channel.isActive { update { $0.activated(now: context.eventLoop.now) } }
    }

    fileprivate func detached() {
        timer?.cancel()
        timer = nil
        machine.timerCancelled()
        byteContext = nil
    }

    /// Whether the bytes that just arrived go on to the decoder.
    fileprivate func bytesArrived(now: NIODeadline) -> Bool {
        update { $0.bytesArrived(now: now) } != .drop
    }

    fileprivate func readProcessed() {
        update { $0.readProcessed() }
    }

    // MARK: Events from the request handler

    /// Feeds one request part to the state machine; returns what the request handler does with it.
    func received(_ part: HTTPServerRequestPart, now: NIODeadline) -> StateMachine.Action {
        switch part {
        case .head(let head): update { $0.headReceived(head, now: now) }
        case .body(let buffer): update { $0.bodyReceived(buffer) }
        case .end: update { $0.endReceived() }
        }
    }

    /// Writes the end of a response from `context` (the request handler's), keeping the
    /// connection for the next request or closing it gracefully.
    func endResponse(keepAlive: Bool, in context: ChannelHandlerContext) {
        // Told before writing: ending the response lets the pipeline hand over the next request.
        let action = update { $0.responseEnding(keepAlive: keepAlive, now: context.eventLoop.now) }
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        if action == .closeGracefully {
            GracefulClose.closeOutput(of: context.channel)
        }
    }

    /// Writes a response of the server's own below the HTTP encoder (the encoder would drop the
    /// body of a response to `CONNECT`), then closes gracefully.
    func refuse(with response: ByteBuffer, in context: ChannelHandlerContext) {
        guard let encoder = GracefulClose.encoderContext(in: context) else { return context.close(promise: nil) }
        if update({ $0.closeRequested(now: context.eventLoop.now) }) == .closeGracefully {
            GracefulClose.writeRawThenClose(response, from: encoder)
        }
    }

    /// The pipeline answered a malformed request with `400`: the connection closes once it is out.
    func closeAfterBadRequest(in context: ChannelHandlerContext) {
        if update({ $0.closeRequested(now: context.eventLoop.now) }) == .closeGracefully {
            GracefulClose.closeOutput(of: context.channel)
        }
    }

    /// A `CONNECT` was accepted.
    func tunnelOpened() {
        machine.tunnelOpened()
    }

    // MARK: Performing actions

    /// Runs one event through the state machine, publishes the connection's idleness, and
    /// performs the actions that are the connection's own (the timer, the `408`, closing); the
    /// others go back to the caller.
    @discardableResult
    private func update(_ event: (inout StateMachine) -> StateMachine.Action) -> StateMachine.Action {
        let wasIdleSince = machine.idleSince
        let action = event(&machine)
        let idleSince = machine.idleSince
        if idleSince != wasIdleSince {
            activity.idleSince.withLock { $0 = idleSince }
        }
        switch action {
        case .armTimer(let deadline):
            arm(at: deadline)
        case .answerTimeout(let message):
            if let byteContext {
                GracefulClose.writeRawThenClose(GracefulClose.rawResponse(status: "408 Request Timeout", message: message), from: byteContext)
            }
        case .close:
            byteContext?.close(promise: nil)
        case .none, .drop, .deliver, .rejectOversizedBody, .closeGracefully:
            break
        }
        return action
    }

    private func arm(at deadline: NIODeadline) {
        guard let eventLoop = byteContext?.eventLoop else { return machine.timerCancelled() }
        timer?.cancel()
        let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
        timer = eventLoop.scheduleTask(deadline: deadline) {
            let connection = loopBound.value
            connection.timer = nil
            connection.update { $0.timerFired(now: eventLoop.now) }
        }
    }
}

/// Tells the ``ServerConnection`` when bytes arrive, and drops them once it is closing; in front
/// of the HTTP decoder, behind TLS.
final class ByteArrivalObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connection: ServerConnection

    init(_ connection: ServerConnection) {
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        connection.attached(context)
    }

    func channelActive(context: ChannelHandlerContext) {
        connection.attached(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connection.detached()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.detached()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A closing connection's requests are over: a head that completes now must not reach the mock.
        guard connection.bytesArrived(now: context.eventLoop.now) else { return }
        context.fireChannelRead(data)
        connection.readProcessed()
    }
}

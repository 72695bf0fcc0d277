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
/// connection's handlers see, and performs the actions it returns that are the connection's own —
/// the one timer, the `408`, the graceful close; what becomes of bytes and of a request goes back
/// to the handler that saw them. It lives on the channel's event loop.
///
/// Two handlers feed it: ``ByteArrivalObserver``, in front of the HTTP decoder (behind TLS),
/// which sees bytes as they arrive, and ``RequestHandler``, behind SwiftNIO's pipelining
/// handler, which sees requests and writes responses. An HTTP/2 stream has one of its own, fed by
/// an ``HTTP2StreamObserver`` (frames instead of bytes) and its ``RequestHandler``: the same
/// timers hold for a stream as for a request on HTTP/1.1.
final class ServerConnection {
    /// How the connection's requests are framed, which decides how a `408` is written.
    enum Framing {
        /// An HTTP/1.1 connection: the `408` goes out as raw bytes below the encoder, and the
        /// connection closes.
        case http1
        /// One HTTP/2 stream: the `408` goes out through the stream's codec, and the stream
        /// closes (the connection's other streams go on).
        case http2Stream
    }

    /// Only touched on the channel's event loop, one event at a time: Swift's run-time
    /// exclusivity check (per request, on every access) is skipped.
    @exclusivity(unchecked) private var machine: StateMachine
    /// What the server reads about this connection from other threads.
    let activity: ConnectionActivity
    /// Where a `408` is written from: in front of the HTTP decoder and encoder, behind TLS (an
    /// HTTP/2 stream's: in front of its codec).
    private var byteContext: ChannelHandlerContext?
    /// How the observer that attached frames the connection's requests.
    private var framing = Framing.http1
    private var timer: Scheduled<Void>?

    init(limits: StateMachine.Limits, activity: ConnectionActivity, now: NIODeadline) {
        machine = StateMachine(limits: limits, now: now)
        self.activity = activity
    }

    /// Whether a `CONNECT` made the connection a tunnel, whose requests name their own host.
    var isTunnel: Bool { machine.isTunnel }

    /// Whether the connection is closing: what the client still sends is dropped.
    var isClosing: Bool { machine.isClosing }

    /// Whether a request is being answered: from its end until its response ends.
    var isAnswering: Bool { machine.state == .answering }

    // MARK: Events from the byte observer

    /// The observer joined the pipeline, or the channel became active: the timers start.
    /// - Parameters:
    ///   - context: The observer's context, where a timeout's answer is written from.
    ///   - framing: How the requests are framed.
    func attached(_ context: ChannelHandlerContext, framing: Framing = .http1) {
        byteContext = context
        self.framing = framing
        if context.channel.isActive { perform(update { $0.activated(now: context.eventLoop.now) }) }
    }

    /// The observer left, or the channel closed: the timer is cancelled.
    func detached() {
        timer?.cancel()
        timer = nil
        machine.timerCancelled()
        byteContext = nil
    }

    /// What becomes of the bytes that just arrived: on to the decoder, or dropped.
    func bytesArrived(now: NIODeadline) -> StateMachine.ReadAction {
        update { $0.bytesArrived(now: now) }
    }

    /// What arrived has gone through the pipeline: the timer is set for the state's deadline.
    func readProcessed() {
        perform(update { $0.readProcessed() })
    }

    // MARK: Events from the request handler

    /// Feeds a request's head to the state machine; returns what the request handler does with it.
    func headReceived(_ head: HTTPRequestHead, now: NIODeadline) -> StateMachine.RequestPartAction {
        update { $0.headReceived(head, now: now) }
    }

    /// Feeds a part of a request's body to the state machine; returns what the request handler
    /// does with it.
    func bodyReceived(_ part: ByteBuffer) -> StateMachine.RequestPartAction {
        update { $0.bodyReceived(part) }
    }

    /// Feeds the end of a request to the state machine; returns the request to answer, if any.
    func endReceived() -> StateMachine.RequestEndAction {
        update { $0.endReceived() }
    }

    /// Writes the end of a response from `context` (the request handler's), with its trailer
    /// fields if it has any, keeping the connection for the next request or closing it gracefully.
    func endResponse(keepAlive: Bool, trailers: HTTPHeaders? = nil, in context: ChannelHandlerContext) {
        let end = NIOAny(HTTPServerResponsePart.end(trailers))
        // Told before writing: ending the response lets the pipeline hand over the next request,
        // so the timer is set before, and the connection closed after, the end is written.
        switch update({ $0.responseEnding(keepAlive: keepAlive, now: context.eventLoop.now) }) {
        case .armTimer(let deadline):
            arm(at: deadline)
            context.writeAndFlush(end, promise: nil)
        case .closeGracefully:
            context.writeAndFlush(end, promise: nil)
            GracefulClose.closeOutput(of: context.channel)
        case .none:
            context.writeAndFlush(end, promise: nil)
        }
    }

    /// Writes a response of the server's own below the HTTP encoder (the encoder would drop the
    /// body of a response to `CONNECT`), then closes gracefully.
    func refuse(with response: ByteBuffer, in context: ChannelHandlerContext) {
        guard let encoder = GracefulClose.encoderContext(in: context) else { return context.close(promise: nil) }
        switch update({ $0.closeRequested(now: context.eventLoop.now) }) {
        case .closeGracefully:
            GracefulClose.writeRawThenClose(response, from: encoder)
        case .none:
            break
        }
    }

    /// The pipeline answered a malformed request with `400`: the connection closes once it is out.
    func closeAfterBadRequest(in context: ChannelHandlerContext) {
        switch update({ $0.closeRequested(now: context.eventLoop.now) }) {
        case .closeGracefully:
            GracefulClose.closeOutput(of: context.channel)
        case .none:
            break
        }
    }

    /// A `CONNECT` was accepted.
    func tunnelOpened() {
        machine.tunnelOpened()
    }

    // MARK: Performing actions

    /// Runs one event through the state machine, publishes the connection's idleness, and
    /// returns the event's action.
    private func update<Action>(_ event: (inout StateMachine) -> Action) -> Action {
        let wasIdleSince = machine.idleSince
        let action = event(&machine)
        let idleSince = machine.idleSince
        if idleSince != wasIdleSince {
            activity.idleSince.withLock { $0 = idleSince }
        }
        return action
    }

    private func perform(_ action: StateMachine.TimerAction) {
        switch action {
        case .armTimer(let deadline):
            arm(at: deadline)
        case .none:
            break
        }
    }

    private func perform(_ action: StateMachine.TimerFiredAction) {
        switch action {
        case .armTimer(let deadline):
            arm(at: deadline)
        case .answerTimeout(let message):
            guard let byteContext else { break }
            switch framing {
            case .http1:
                GracefulClose.writeRawThenClose(GracefulClose.rawResponse(status: "408 Request Timeout", message: message), from: byteContext)
            case .http2Stream:
                HTTP2StreamObserver.answerTimeoutThenClose(message: message, from: byteContext)
            }
        case .close:
            byteContext?.close(promise: nil)
        case .none:
            break
        }
    }

    private func arm(at deadline: NIODeadline) {
        guard let eventLoop = byteContext?.eventLoop else { return machine.timerCancelled() }
        timer?.cancel()
        let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
        timer = eventLoop.scheduleTask(deadline: deadline) {
            let connection = loopBound.value
            connection.timer = nil
            connection.perform(connection.update { $0.timerFired(now: eventLoop.now) })
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
        switch connection.bytesArrived(now: context.eventLoop.now) {
        case .forward:
            context.fireChannelRead(data)
            connection.readProcessed()
        case .drop:
            // A closing connection's requests are over: a head that completes now must not reach the mock.
            break
        }
    }
}

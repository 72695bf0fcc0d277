import AirlockCore
import NIOCore
import NIOHTTP1

/// What the server knows about one connection from any thread: whether, and since when, it has
/// sat idle between requests — the connection to close first when the server is full.
final class ConnectionActivity: Sendable {
    /// When the connection became idle (waiting for a request, no byte of it yet); `nil` while a
    /// request is on its way in or being answered. A new connection is idle from the moment it is
    /// accepted.
    let idleSince = Locked<NIODeadline?>(.now())
}

/// Closes connections that hold the server without using it, the way a slow or hostile client
/// would (a byte a second, or nothing at all).
///
/// A connection is in one of four phases. **Waiting** for a request, it may stay
/// ``MockServer/ConnectionLimits/idleTimeout`` without a byte, then it is closed (what any
/// keep-alive server does). From the **first byte** of a request, the whole head must arrive
/// within ``MockServer/ConnectionLimits/headerTimeout`` however slowly it trickles, or the client
/// gets `408 Request Timeout` and the connection closes. While the **body** arrives, a pause
/// longer than the idle timeout does the same. While the request is **answered** nothing is timed:
/// a response the stub delays by an hour is still delivered.
///
/// Two handlers share it: ``ByteArrivalObserver``, which sits in front of the HTTP decoder and
/// sees bytes as they arrive, and ``RequestPhaseObserver``, which sits behind it and sees where
/// requests and responses begin and end.
final class ConnectionGuard {
    private enum Phase {
        case waitingForRequest
        case readingHead
        case readingBody
        case answering
    }

    let limits: MockServer.ConnectionLimits
    let activity: ConnectionActivity
    private var phase = Phase.waitingForRequest
    /// When the current phase's time runs out; `nil` while a request is answered.
    private var deadline: NIODeadline?
    /// The one timer, and when it fires. It is moved only when a deadline comes sooner than it:
    /// when it fires early it looks at the deadline again, so the many later deadlines of a busy
    /// keep-alive connection cost no timer operations at all.
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    /// Where a `408` is written from: in front of the HTTP encoder, behind TLS.
    private var byteContext: ChannelHandlerContext?
    /// Whether a `408` was sent: what the client still sends is dropped unread.
    fileprivate private(set) var isClosing = false

    init(limits: MockServer.ConnectionLimits, activity: ConnectionActivity) {
        self.limits = limits
        self.activity = activity
    }

    fileprivate func attached(_ context: ChannelHandlerContext) {
        byteContext = context
        if context.channel.isActive { becameIdle() }
    }

    fileprivate func detached() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        byteContext = nil
    }

    fileprivate func bytesArrived() {
        switch phase {
        case .waitingForRequest:
            phase = .readingHead
            activity.idleSince.withLock { $0 = nil }
            deadline = .now() + .saturatingSeconds(limits.headerTimeout)
        case .readingBody:
            deadline = .now() + .saturatingSeconds(limits.idleTimeout)
        case .readingHead, .answering:
            break
        }
    }

    /// The bytes of one read have gone through the pipeline — often a whole request, answered
    /// already: makes sure the timer fires by the deadline of the phase the connection is in now.
    fileprivate func readProcessed() {
        armIfSooner()
    }

    fileprivate func headReceived() {
        activity.idleSince.withLock { $0 = nil }
        phase = .readingBody
        deadline = .now() + .saturatingSeconds(limits.idleTimeout)
    }

    fileprivate func requestEnded() {
        // Nothing is timed while the request is answered; a pending timer finds no deadline.
        phase = .answering
        deadline = nil
    }

    fileprivate func responseEnded() {
        becameIdle()
    }

    private func becameIdle() {
        phase = .waitingForRequest
        let now = NIODeadline.now()
        activity.idleSince.withLock { $0 = now }
        deadline = now + .saturatingSeconds(limits.idleTimeout)
        armIfSooner()
    }

    /// Schedules the timer for the deadline unless it fires by then anyway.
    private func armIfSooner() {
        guard let deadline, let context = byteContext else { return }
        if timer != nil, let timerDeadline, timerDeadline <= deadline { return }
        timer?.cancel()
        schedule(at: deadline, on: context.eventLoop)
    }

    private func schedule(at deadline: NIODeadline, on eventLoop: any EventLoop) {
        let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
        timerDeadline = deadline
        timer = eventLoop.scheduleTask(deadline: deadline) { loopBound.value.fire() }
    }

    private func fire() {
        timer = nil
        timerDeadline = nil
        guard let context = byteContext, let deadline else { return }
        if deadline > .now() {
            // The connection moved on since the timer was set: wait for the new deadline.
            return schedule(at: deadline, on: context.eventLoop)
        }
        switch phase {
        case .waitingForRequest:
            // An idle keep-alive connection: closing it is what the client expects sooner or later.
            context.close(promise: nil)
        case .readingHead:
            refuse(context, "the request head did not arrive within \(Self.format(limits.headerTimeout)) of its first byte", option: "--header-timeout")
        case .readingBody:
            refuse(context, "the request body paused for more than \(Self.format(limits.idleTimeout))", option: "--idle-timeout")
        case .answering:
            break
        }
    }

    /// Answers `408 Request Timeout` below the HTTP encoder, then closes.
    private func refuse(_ context: ChannelHandlerContext, _ reason: String, option: String) {
        guard !isClosing else { return }
        isClosing = true
        let message = "Airlock MockServer: \(reason); the connection is closed. (Limits: MockServer.ConnectionLimits, or airlock serve \(option).)\n"
        let response = "HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain\r\nContent-Length: \(message.utf8.count)\r\nConnection: close\r\n\r\n" + message
        let channel = context.channel
        context.writeAndFlush(NIOAny(ByteBuffer(string: response))).whenComplete { _ in
            // Half-close so that the client reads the 408 before its own unread bytes could make
            // the kernel reset the connection; then close for good.
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: MockServerHandler.lingeringCloseTimeout) { channel.close(promise: nil) }
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

/// Tells the ``ConnectionGuard`` when bytes arrive; in front of the HTTP decoder, behind TLS.
final class ByteArrivalObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let guardian: ConnectionGuard

    init(_ guardian: ConnectionGuard) {
        self.guardian = guardian
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guardian.attached(context)
    }

    func channelActive(context: ChannelHandlerContext) {
        guardian.attached(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guardian.detached()
    }

    func channelInactive(context: ChannelHandlerContext) {
        guardian.detached()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After a 408 the request is over: a head that completes now must not reach the mock.
        guard !guardian.isClosing else { return }
        guardian.bytesArrived()
        context.fireChannelRead(data)
        guardian.readProcessed()
    }
}

/// Tells the ``ConnectionGuard`` where requests and responses begin and end; behind the HTTP
/// codec and the pipelining handler.
final class RequestPhaseObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let guardian: ConnectionGuard

    init(_ guardian: ConnectionGuard) {
        self.guardian = guardian
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: guardian.headReceived()
        case .body: break
        case .end: guardian.requestEnded()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            guardian.responseEnded()
        }
        context.write(data, promise: promise)
    }
}

/// Answers a request SwiftNIO's parser rejects with `400 Bad Request` and a line saying why,
/// then lets the connection close — SwiftNIO's own `HTTPServerProtocolErrorHandler` does the
/// same with an empty body. It takes that handler's place in the pipeline, and like it answers
/// only when no other response has begun (the pipelining handler holds the error back until the
/// response in flight has ended).
final class BadRequestResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var hasUnterminatedResponse = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError, !hasUnterminatedResponse {
            let message = "Airlock MockServer: bad request: \(Self.reason(error)). The connection is closed.\n"
            let headers = HTTPHeaders([("Connection", "close"), ("Content-Type", "text/plain"), ("Content-Length", "\(message.utf8.count)")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: message)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code / 100 == 1 && head.status.code != 101: break  // informational: another head follows
        case .head: hasUnterminatedResponse = true
        case .body: break
        case .end: hasUnterminatedResponse = false
        }
        context.write(data, promise: promise)
    }

    /// What the parser found wrong, in a few words a client's developer can act on.
    static func reason(_ error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: "the request head is too large (at most 80 KiB of headers)"
        case .invalidHeaderToken, .invalidCharactersUsed: "a header name or value contains a character HTTP does not allow (RFC 9110 §5)"
        case .invalidVersion: "the HTTP version is not HTTP/1.0 or HTTP/1.1"
        case .invalidMethod: "the method is not a valid token"
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidPort, .invalidHost:
            "the request target is not a valid origin-form path or absolute URL"
        case .invalidContentLength: "Content-Length is not a single non-negative number"
        case .unexpectedContentLength: "the request has both Content-Length and Transfer-Encoding"
        case .invalidChunkSize: "a chunk size of the chunked body is not a hexadecimal number"
        case .invalidConstant, .lfExpected, .strictModeAssertion, .invalidStatus: "the request line or a header line is malformed (each ends with CRLF)"
        case .closedConnection, .invalidEOFState: "the connection closed in the middle of the request"
        case .trailingGarbage: "bytes follow the request where none may"
        case .invalidInternalState, .paused, .unknown: "the request is not valid HTTP/1.1"
        }
    }
}

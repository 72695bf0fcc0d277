import NIOCore
import NIOHTTP1
import NIOHTTP2

extension ServerConnection {
    /// The most header bytes an HTTP/2 request may carry (`SETTINGS_MAX_HEADER_LIST_SIZE`): what
    /// SwiftNIO's HTTP/1.1 parser accepts, so that a request served on one is served on the other.
    static let http2MaxHeaderListSize = 80 * 1024

    /// Puts the HTTP/2 pipeline in place of the HTTP/1.1 one on a connection whose client speaks
    /// HTTP/2 (``HTTPVersionDetector`` decided): SwiftNIO's `NIOHTTP2Handler`, whose multiplexer
    /// gives each stream a child channel; an ``HTTP2IdleHandler``, which closes the connection with
    /// `GOAWAY` once it has had no stream for the idle timeout; an
    /// ``HTTP2ConnectionErrorHandler``, which closes it after a protocol error (a malformed request
    /// ends only its stream); and on each stream,
    /// `HTTP2FramePayloadToHTTP1ServerCodec` in front of the same ``RequestHandler`` an HTTP/1.1
    /// connection has — so that a stream is served like a request: the same registry, stubs,
    /// journal, admin API and traffic page.
    ///
    /// What belongs to an HTTP/1.1 connection goes: the decoder, encoder and pipelining handler,
    /// the ``ByteArrivalObserver`` (its header and idle timers: HTTP/2 frames a request's head
    /// itself, and the idle handler times the connection) and the `400` responder. Each stream has a
    /// ``ServerConnection`` of its own, for the body cap and for the timers, fed by an
    /// ``HTTP2StreamObserver`` in front of the codec: a request whose body pauses longer than the
    /// idle timeout gets `408` on its stream, which closes. An ``HTTP2EmptyBodyHandler`` behind the
    /// codec ends a response with no body on its `HEADERS` frame (gRPC's trailers-only answers). A
    /// stream ends with its response, never the connection (see ``ExchangeDelivery``).
    ///
    /// - Parameters:
    ///   - context: The detector's context.
    ///   - server: The server.
    ///   - activity: What the server reads about the connection: idle while no stream is open.
    /// - Returns: A future that succeeds once the HTTP/2 handlers are in place: SwiftNIO's HTTP/1.1
    ///   decoder leaves the pipeline on the event loop's next tick.
    static func switchToHTTP2(_ context: ChannelHandlerContext, server: ServerContext, activity: ConnectionActivity) -> EventLoopFuture<Void> {
        let pipeline = context.pipeline.syncOperations
        let removals = http1HandlerContexts(in: pipeline).map { handlerContext in
            let removed = context.eventLoop.makePromise(of: Void.self)
            pipeline.removeHandler(context: handlerContext, promise: removed)
            return removed.futureResult
        }
        return EventLoopFuture.andAllSucceed(removals, on: context.eventLoop).assumeIsolated().flatMapThrowing {
            try addHTTP2Handlers(after: context, server: server, activity: activity)
        }.nonisolated()
    }

    /// Adds the HTTP/2 handlers right behind `context` (the detector's).
    private static func addHTTP2Handlers(after context: ChannelHandlerContext, server: ServerContext, activity: ConnectionActivity) throws {
        let pipeline = context.pipeline.syncOperations
        let configuration = server.configuration
        let limits = StateMachine.Limits(configuration.limits, maxBodySize: configuration.maxRequestBodySize)
        let idle = HTTP2IdleHandler(idleTimeout: limits.idleTimeout, activity: activity)
        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        connectionConfiguration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .maxHeaderListSize, value: http2MaxHeaderListSize),
        ]
        let handler = NIOHTTP2Handler(
            mode: .server,
            eventLoop: context.eventLoop,
            connectionConfiguration: connectionConfiguration,
            streamConfiguration: .init(),
            streamDelegate: HTTP2IdleHandler.StreamDelegate(handler: NIOLoopBound(idle, eventLoop: context.eventLoop))
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                let streamPipeline = stream.pipeline.syncOperations
                let connection = ServerConnection(limits: limits, activity: ConnectionActivity(), now: stream.eventLoop.now)
                try streamPipeline.addHandler(HTTP2StreamObserver(connection))
                try streamPipeline.addHandler(HTTP2EmptyBodyHandler())
                try streamPipeline.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try streamPipeline.addHandler(RequestHandler(server: server, connection: connection))
            }
        }
        // Right behind the detector, which hands them the bytes it has read and leaves.
        try pipeline.addHandler(handler, position: .after(context.handler))
        try pipeline.addHandler(idle, position: .after(handler))
        try pipeline.addHandler(HTTP2ConnectionErrorHandler(), position: .after(idle))
    }

    /// The handlers ``configurePipeline(of:server:activity:)`` put in for HTTP/1.1 (SwiftNIO's
    /// `configureHTTPServerPipeline` with pipelining and header validation, and the server's own),
    /// to take out. None has seen a byte yet.
    private static func http1HandlerContexts(in pipeline: ChannelPipeline.SynchronousOperations) -> [ChannelHandlerContext] {
        let contexts = [
            try? pipeline.context(handlerType: ByteArrivalObserver.self),
            try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self),
            try? pipeline.context(handlerType: HTTPResponseEncoder.self),
            try? pipeline.context(handlerType: HTTPServerPipelineHandler.self),
            try? pipeline.context(handlerType: NIOHTTPResponseHeadersValidator.self),
            try? pipeline.context(handlerType: BadRequestResponder.self),
            try? pipeline.context(handlerType: RequestHandler.self),
        ]
        return contexts.compactMap { $0 }
    }
}

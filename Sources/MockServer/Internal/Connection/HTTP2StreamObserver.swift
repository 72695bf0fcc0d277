import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Tells an HTTP/2 stream's ``ServerConnection`` when a frame arrives, and drops the stream's
/// frames once it is closing: what ``ByteArrivalObserver`` is to an HTTP/1.1 connection, first in
/// the stream's pipeline, in front of SwiftNIO's `HTTP2FramePayloadToHTTP1ServerCodec`.
///
/// With it a stream keeps the limits an HTTP/1.1 request keeps: once its HEADERS are in, its
/// DATA may not pause longer than the idle timeout, or the client gets `408 Request Timeout` on
/// the stream, which then closes (`RST_STREAM`) while the connection's other streams go on.
/// Without it a client could open streams and never end them, holding each one — and the
/// connection, which is not idle while a stream is open — for as long as it likes.
final class HTTP2StreamObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    private let connection: ServerConnection

    /// An observer feeding `connection`, the stream's own.
    init(_ connection: ServerConnection) {
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        connection.attached(context, framing: .http2Stream)
    }

    func channelActive(context: ChannelHandlerContext) {
        connection.attached(context, framing: .http2Stream)
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
            // The stream was answered with a timeout and is closing: its request is over.
            break
        }
    }

    /// Answers the stream's request with `408 Request Timeout` and `message` through the stream's
    /// codec (written from the ``RequestHandler``'s place, so that it becomes HEADERS and DATA),
    /// then resets the stream with `RST_STREAM` `NO_ERROR` — RFC 9113 §8.1's way of telling a
    /// client to stop sending a request whose complete response it has — and closes it; the
    /// connection goes on.
    ///
    /// - Parameters:
    ///   - message: The text of the answer.
    ///   - context: The observer's context, on the stream channel.
    static func answerTimeoutThenClose(message: String, from context: ChannelHandlerContext) {
        guard let handler = try? context.pipeline.syncOperations.context(handlerType: RequestHandler.self) else {
            return context.close(promise: nil)
        }
        let fields = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "\(message.utf8.count)")])
        handler.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http2, status: .requestTimeout, headers: fields))), promise: nil)
        handler.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: message)))), promise: nil)
        handler.write(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        // From the observer's place, in front of the codec: a frame payload, after the response.
        let stream = context.channel
        context.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(.noError))).whenComplete { _ in stream.close(promise: nil) }
    }
}

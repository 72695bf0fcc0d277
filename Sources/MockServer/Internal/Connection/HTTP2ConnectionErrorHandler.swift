import NIOCore
import NIOHTTP2

/// Ends an HTTP/2 connection on which an error surfaced, last in the connection's pipeline.
///
/// SwiftNIO's `NIOHTTP2Handler` answers a client that breaks HTTP/2's rules on the connection (a
/// frame too large, bytes that are no frame, a bad preface) with `GOAWAY` and the error code, then
/// reports the error and leaves closing to its user: this handler closes the connection
/// gracefully (``GracefulClose``: the `GOAWAY` goes out first), once, and leaves. An error on one
/// stream (malformed headers) is reported here too, after its `RST_STREAM`: the client broke the
/// protocol, and the connection ends with it rather than live on in a state no test can rely on.
final class HTTP2ConnectionErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        GracefulClose.closeOutput(of: context.channel)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

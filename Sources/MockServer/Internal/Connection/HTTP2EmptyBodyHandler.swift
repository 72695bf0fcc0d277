import NIOCore
import NIOHTTP2

/// Ends a response with no body on its `HEADERS` frame (`END_STREAM` set), as HTTP/2 servers do,
/// instead of the `HEADERS` frame and an empty `DATA` frame SwiftNIO's HTTP/1 view of a stream
/// writes for a head and an end with nothing between them. Outbound, in front of
/// `HTTP2FramePayloadToHTTP1ServerCodec` on each stream.
///
/// One job: a response head is held until the next write or flush. When the next write is the
/// empty `DATA` frame that ends the stream, the two go as one `HEADERS` frame that ends it; anything
/// else sends the head first. gRPC needs it: an error without messages is a "trailers-only"
/// response, a single `HEADERS` frame with `grpc-status`, and a client that gets `grpc-status`
/// followed by an empty `DATA` frame reports the call as broken.
final class HTTP2EmptyBodyHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// A response head not yet written, with its promise.
    private var held: (headers: HTTP2Frame.FramePayload.Headers, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        if let (headers, heldPromise) = held {
            held = nil
            if case .data(let data) = payload, data.endStream, case .byteBuffer(let buffer) = data.data, buffer.readableBytes == 0 {
                var ending = headers
                ending.endStream = true
                // No body follows: a length of 0 says nothing more (a gRPC client would show it
                // among the call's trailing metadata).
                if ending.headers.first(name: "content-length") == "0" { ending.headers.remove(name: "content-length") }
                heldPromise?.futureResult.cascade(to: promise)
                return context.write(wrapOutboundOut(.headers(ending)), promise: heldPromise ?? promise)
            }
            context.write(wrapOutboundOut(.headers(headers)), promise: heldPromise)
        }
        if case .headers(let headers) = payload, !headers.endStream {
            held = (headers, promise)
            return
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        writeHeld(context: context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        writeHeld(context: context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        writeHeld(context: context)
    }

    private func writeHeld(context: ChannelHandlerContext) {
        guard let (headers, promise) = held else { return }
        held = nil
        context.write(wrapOutboundOut(.headers(headers)), promise: promise)
    }
}

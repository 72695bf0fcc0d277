import AirlockCore
import NIOCore
import NIOHTTP1
import NIOHTTP2

extension ExchangeDelivery {
    /// How a fault is acted out on an HTTP/2 stream, where the connection carries other streams
    /// and has no chunked encoding to break:
    ///
    /// | Fault | HTTP/1.1 | HTTP/2 |
    /// |---|---|---|
    /// | `connectionReset` | TCP reset | `RST_STREAM` `INTERNAL_ERROR`, no response |
    /// | `emptyResponse` | close, no response | `RST_STREAM` `NO_ERROR`, no response |
    /// | `malformedChunkedBody` | a `200` whose chunks do not parse | a `200` and a piece of body, then `RST_STREAM` `PROTOCOL_ERROR` |
    /// | `randomBytesThenClose` | random bytes, close | random bytes on the connection (below HTTP/2's framing), close: every stream on it fails |
    ///
    /// The resets end the stream only: the client's other streams on the connection go on, as a
    /// server's would when one request fails.
    enum HTTP2Fault: Equatable {
        /// Reset the stream with this code, after a `200` head and a piece of body when `body` is
        /// given.
        case resetStream(HTTP2ErrorCode, afterBody: String?)
        /// Write bytes below HTTP/2's framing, then close the connection.
        case garbageOnConnection

        init(_ kind: MockResponse.Fault.Kind) {
            switch kind {
            case .connectionReset: self = .resetStream(.internalError, afterBody: nil)
            case .emptyResponse: self = .resetStream(.noError, afterBody: nil)
            case .malformedChunkedBody: self = .resetStream(.protocolError, afterBody: "not a chunk")
            case .randomBytesThenClose: self = .garbageOnConnection
            }
        }
    }

    /// Misbehaves on the request's HTTP/2 stream as the fault says (already recorded and
    /// reported); see ``HTTP2Fault``.
    func misbehaveOnStream(_ fault: MockResponse.Fault) {
        // On the next tick: a fault answered at once would otherwise act on the stream while
        // SwiftNIO is still opening it (the HEADERS frame is being read), before the stream is
        // known to the connection's bookkeeping.
        let delivery = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute { delivery.value.actOut(HTTP2Fault(fault.kind)) }
    }

    private func actOut(_ fault: HTTP2Fault) {
        switch fault {
        case .resetStream(let code, let body):
            if let body {
                let head = HTTPResponseHead(version: head.version, status: .ok, headers: ["Content-Type": "text/plain"])
                context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
                context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
                context.flush()
            }
            // Written below the HTTP/1-to-HTTP/2 codec, straight to the stream channel.
            guard let codec = try? context.pipeline.syncOperations.context(handlerType: HTTP2FramePayloadToHTTP1ServerCodec.self) else {
                return context.close(promise: nil)
            }
            codec.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(code)), promise: nil)
        case .garbageOnConnection:
            guard let connection = context.channel.parent,
                let framing = try? connection.pipeline.syncOperations.context(handlerType: NIOHTTP2Handler.self)
            else {
                return context.close(promise: nil)
            }
            let bytes = ByteBuffer(bytes: (0..<64).map { _ in UInt8.random(in: 0...255) })
            framing.writeAndFlush(NIOAny(bytes)).whenComplete { _ in
                connection.close(promise: nil)
            }
        }
    }
}

import NIOCore
import NIOTLS

/// Tells HTTP/2 from HTTP/1.1 at the start of a connection, then steps out of the pipeline: one
/// port serves both. It sits first in the HTTP/1.1 pipeline (behind TLS when the connection has
/// it): the protocol TLS negotiated through ALPN decides (`h2` or `http/1.1`), and otherwise the
/// first bytes do — HTTP/2's connection preface (h2c with prior knowledge) or an HTTP/1.1 request.
///
/// An HTTP/1.1 connection costs it one look at its first read: it hands the bytes on and leaves.
/// For HTTP/2, ``ServerConnection/switchToHTTP2(_:server:activity:)`` puts the HTTP/2 pipeline in
/// place of HTTP/1.1's first. The choice is its ``StateMachine``'s.
///
/// One handler does what NIO's `ApplicationProtocolNegotiationHandler` does under TLS because the
/// same connection may have no TLS (the ``TLSDetector`` decides per connection) and then only the
/// bytes tell.
final class HTTPVersionDetector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var machine = StateMachine()
    /// Puts the HTTP/2 pipeline in place of HTTP/1.1's, behind the detector's context; the
    /// future succeeds once it is in place.
    private let switchToHTTP2: (ChannelHandlerContext) -> EventLoopFuture<Void>

    init(switchToHTTP2: @escaping (ChannelHandlerContext) -> EventLoopFuture<Void>) {
        self.switchToHTTP2 = switchToHTTP2
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(machine.bytesArrived(unwrapInboundIn(data)), in: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case TLSUserEvent.handshakeCompleted(let negotiated):
            context.fireUserInboundEventTriggered(event)
            perform(machine.handshakeCompleted(negotiated: negotiated), in: context)
        case ChannelEvent.inputClosed:
            perform(machine.inputEnded(), in: context)
            context.fireUserInboundEventTriggered(event)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func perform(_ action: StateMachine.Action, in context: ChannelHandlerContext) {
        switch action {
        case .wait, .none:
            break
        case .serveHTTP1(let bytes):
            if let bytes { context.fireChannelRead(wrapInboundOut(bytes)) }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        case .switchToHTTP2:
            switchToHTTP2(context).assumeIsolated().whenComplete { result in
                switch result {
                case .success: self.perform(self.machine.switchedToHTTP2(), in: context)
                case .failure: context.close(promise: nil)
                }
            }
        case .handOverToHTTP2(let bytes):
            if let bytes { context.fireChannelRead(wrapInboundOut(bytes)) }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}

import NIOCore
import NIOTLS

/// Fails a forward's connection that never finishes its TLS handshake: the handshake failed (a
/// certificate not trusted), the host closed the connection during it, or it took longer than the
/// forward's timeout. Until the handshake is done no relay is on the connection to report any of
/// these, so without this the forward would wait for ever.
///
/// It sits after the TLS handler and before ALPN's, and removes itself once the handshake is done.
final class TLSHandshakeWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var failed: ((any Error) -> Void)?
    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    /// - Parameters:
    ///   - timeout: How long the handshake may take, from the moment the handler is added.
    ///   - failed: Told, once, why the handshake did not finish (the connection is then closed).
    init(timeout: TimeAmount, failed: @escaping (any Error) -> Void) {
        self.timeout = timeout
        self.failed = failed
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let seconds = Double(timeout.nanoseconds) / 1e9
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            bound.value.handler.fail(Forwarder.Failure(description: "the TLS handshake took longer than \(seconds) s"), context: bound.value.context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let tlsEvent = event as? TLSUserEvent, case .handshakeCompleted = tlsEvent else {
            return context.fireUserInboundEventTriggered(event)
        }
        deadline?.cancel()
        deadline = nil
        // ALPN's handler, next, puts the protocol's handlers in as it takes the event.
        context.fireUserInboundEventTriggered(event)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(Forwarder.Failure(description: "the host closed the connection during the TLS handshake"), context: context)
        context.fireChannelInactive()
    }

    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        guard let failed else { return }
        self.failed = nil
        failed(error)
        context.close(promise: nil)
    }
}

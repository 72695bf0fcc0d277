import NIOCore

/// Runs `then` once, when what a forward relays has ended — the whole answer written, a stream
/// ended or left by its client, or the forward failed — after the handlers before it have
/// recorded and written it. A proxying stub's webhooks go from here.
///
/// The last handler of the forwarding connection's pipeline; its state is its own: no lock.
final class RelayEndHandler: ChannelInboundHandler {
    typealias InboundIn = Forwarder.Event

    private var then: (() -> Void)?

    init(then: @escaping () -> Void) {
        self.then = then
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        saw(unwrapInboundIn(data))
    }

    /// Takes one event (also called without a connection: the real host could not be reached).
    func saw(_ event: Forwarder.Event) {
        switch event {
        case .whole, .end, .cancelled, .failed:
            let then = self.then
            self.then = nil
            then?()
        case .streamHead, .piece:
            break
        }
    }
}

import AirlockCore
import Foundation
import NIOCore
import NIOHTTP1

/// The server's side of the core's delivery (``ResolvedExchange/deliver(to:)``): writes what it is
/// handed onto the connection — the head, the body's pieces, a `500` for what could not be
/// produced, a fault acted out on the socket — and reports each finished exchange to the
/// server's exchange handler. Timers run on the connection's event loop.
final class ExchangeWriter: ExchangeSink {
    typealias Kind = SocketTransport

    private let bound: NIOLoopBound<(handler: MockServerHandler, context: ChannelHandlerContext)>
    private let eventLoop: any EventLoop
    private let head: HTTPRequestHead
    private let incoming: IncomingRequest
    private let recorder: ExchangeRecorder

    init(handler: MockServerHandler, context: ChannelHandlerContext, head: HTTPRequestHead, incoming: IncomingRequest, recorder: ExchangeRecorder) {
        bound = NIOLoopBound((handler, context), eventLoop: context.eventLoop)
        eventLoop = context.eventLoop
        self.head = head
        self.incoming = incoming
        self.recorder = recorder
    }

    func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        if seconds > 0 {
            eventLoop.scheduleTask(in: .saturatingSeconds(seconds), work)
        } else {
            eventLoop.execute(work)
        }
    }

    /// A socket's client decides alone how long it waits.
    var idleTimeout: TimeInterval? { nil }

    var takesBodyInPieces: Bool { true }

    /// Closes the connection after `seconds`, as a client that gave up would find it (the driver
    /// asks only transports with an ``idleTimeout``, which a socket has not).
    func timeOut(after seconds: TimeInterval, because reason: String, recorder: ExchangeRecorder) {
        let channel = bound.value.context.channel
        schedule(after: seconds) {
            recorder.record(.failure(reason))
            channel.close(promise: nil)
        }
    }

    func begin(_ response: PlannedResponse, bodySize: Int) -> Bool {
        let (handler, context) = bound.value
        guard context.channel.isActive else { return false }
        let responseHead = handler.responseHead(status: response.status, headers: response.wireHeaders, bodySize: bodySize, for: head, keepAlive: head.isKeepAlive)
        context.write(handler.wrapOutboundOut(.head(responseHead)), promise: nil)
        return true
    }

    func send(_ piece: Data, isLast: Bool, of response: PlannedResponse) {
        let (handler, context) = bound.value
        guard context.channel.isActive else { return }
        handler.writeBody(piece, status: response.status, for: head, in: context)
        guard isLast else { return context.flush() }
        handler.report(head, status: response.status, fault: nil, recorder: recorder)
        handler.endResponse(keepAlive: head.isKeepAlive, in: context)
    }

    func fail(_ failure: ExchangeFailure) {
        let (handler, context) = bound.value
        handler.report(head, status: 500, fault: nil, recorder: recorder)
        handler.respond(status: 500, headers: [.contentType: "text/plain"], body: Data((failure.description + "\n").utf8), to: head, in: context)
    }

    func fail(carrying error: Never) {}

    func actOut(_ fault: MockResponse.Fault) {
        let (handler, context) = bound.value
        handler.actOut(fault, head: head, recorder: recorder, in: context)
    }

    func forward(recording: Bool, recorder: ExchangeRecorder) {
        let (handler, context) = bound.value
        handler.forward(incoming, head: head, recording: recording, recorder: recorder, in: context)
    }

    func stop(_ stop: Never) -> Never {}
}

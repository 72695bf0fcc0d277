@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Writes what a forward relays onto the client's connection, as it arrives: the whole answer (or
/// the core's answer to a failed forward: a `502` saying why, in the request's form), or a
/// stream's head, each piece — the `ByteBuffer` read from the real host, not a copy — flushed at
/// the end of the read that brought it, and its end
/// with any trailers; a stream that breaks after its head closes the connection, the only way the
/// client can tell.
///
/// Back-pressure: a piece that leaves the client's connection unwritable (the client reads slower
/// than the real host sends) turns reading off on the forwarding connection (`autoRead`) until
/// that piece has gone out, so what the real host sends waits in its own buffers, not in the
/// server's memory.
///
/// It passes each event on (to ``RelayEndHandler``). It writes through the client's request
/// handler, so it runs on the client connection's event loop, which the forward shares.
final class RelayWritingHandler: ChannelInboundHandler {
    typealias InboundIn = Forwarder.Event
    typealias InboundOut = Forwarder.Event

    private let delivery: ExchangeDelivery
    /// Where the request went, for the `502`'s message.
    private let url: String
    private let recorder: ExchangeRecorder
    /// What the core answers when the forward fails before the real host's answer began.
    private let failed: FailedForwardAnswer
    /// The status of the stream whose head went out.
    private var streamStatus: Int?

    /// A handler writing onto `delivery`'s connection.
    init(_ delivery: ExchangeDelivery, url: String, recorder: ExchangeRecorder, answeringFailure failed: FailedForwardAnswer) {
        self.delivery = delivery
        self.failed = failed
        self.url = url
        self.recorder = recorder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        write(unwrapInboundIn(data), upstream: context.channel)
        context.fireChannelRead(data)
    }

    /// What one read from the real host brought goes out together: a stream's head and its end,
    /// read from one HTTP/2 `HEADERS` frame (a gRPC error with no message), leave as one frame.
    func channelReadComplete(context: ChannelHandlerContext) {
        if streamStatus != nil, delivery.context.channel.isActive { delivery.context.flush() }
        context.fireChannelReadComplete()
    }

    /// Writes one event to the client (also called without a connection to the real host: it
    /// could not be reached).
    /// - Parameter upstream: The forwarding connection, paused while the client is not reading.
    func write(_ event: Forwarder.Event, upstream: (any Channel)?) {
        let client = delivery.context
        switch event {
        case .whole(let response):
            delivery.relayAnswer(
                status: Int(response.status.code), headers: ExchangeDelivery.relayedFields(response.headers), body: response.body, trailers: response.trailers, recorder: recorder
            )
        case .streamHead(let head):
            let status = Int(head.status.code)
            streamStatus = status
            guard client.channel.isActive else { return }
            let fields = ExchangeDelivery.relayedFields(head.headers)
            let responseHead = delivery.responseHead(status: status, headers: fields, bodySize: nil, keepAlive: delivery.keepsAlive(streaming: true))
            // Flushed at the end of the read that brought it (channelReadComplete).
            client.write(NIOAny(HTTPServerResponsePart.head(responseHead)), promise: nil)
        case .piece(let piece):
            guard client.channel.isActive, let written = delivery.writeBody(piece, status: 200) else { return }
            // Back-pressure: no more is read from the real host until the client has taken this.
            if let upstream, !client.channel.isWritable {
                upstream.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
                written.whenComplete { _ in
                    guard upstream.isActive else { return }
                    upstream.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
                }
            }
        case .end(let trailers):
            guard let status = streamStatus else { return }
            delivery.report(status: status, fault: nil, recorder: recorder)
            guard client.channel.isActive else { return }
            delivery.connection.endResponse(keepAlive: delivery.keepsAlive(streaming: true), trailers: trailers.map(ExchangeDelivery.relayedTrailers), in: client)
        case .cancelled:
            guard let status = streamStatus else { return }
            delivery.report(status: status, fault: nil, recorder: recorder)
            guard client.channel.isActive else { return }
            delivery.connection.endResponse(keepAlive: delivery.keepsAlive(streaming: true), in: client)
        case .failed(let failure):
            if let status = streamStatus {
                // The client has the head and part of the body: only a closed connection tells it.
                delivery.report(status: status, fault: nil, recorder: recorder)
                client.channel.close(promise: nil)
            } else {
                let answer = failed.response(to: failure.exchangeFailure(forwarding: url))
                delivery.relayAnswer(
                    status: answer.status.code, headers: answer.headerFields, body: ByteBuffer(bytes: answer.body.bytesInMemory ?? Data()),
                    trailers: ExchangeDelivery.trailers(of: answer), recorder: recorder
                )
            }
        }
    }
}

@_spi(AirlockTransport) import AirlockCore
import NIOCore

/// Records what a forward relays, through one ``StreamRecorder``, and passes every event on
/// untouched: a whole answer as it is, a stream with its pieces, their pace, and how it ended (the
/// real host ended it, or the client left), a failure as the failure it is.
///
/// It runs on the forwarding connection's event loop before the handler that writes to the
/// client, so the journal has each ending before the client sees it. Its state is its own: no
/// lock.
final class RelayRecordingHandler: ChannelInboundHandler {
    typealias InboundIn = Forwarder.Event
    typealias InboundOut = Forwarder.Event

    private let recorder: ExchangeRecorder
    /// Where the request went, for the failure's message.
    private let url: String
    private var stream: StreamRecorder

    /// A handler that records into `recorder` at most `limit` bytes of a stream's parts.
    init(recorder: ExchangeRecorder, url: String, limit: Int) {
        self.recorder = recorder
        self.url = url
        stream = StreamRecorder(limit: limit)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        record(unwrapInboundIn(data))
        context.fireChannelRead(data)
    }

    /// Records one event (also called without a connection: the real host could not be reached).
    func record(_ event: Forwarder.Event) {
        switch event {
        case .whole(let response):
            stream.head(
                status: Int(response.status.code), headers: ExchangeDelivery.relayedFields(response.headers), isStream: false, bodyIsEncoded: true,
                httpVersion: IncomingRequest.protocolName(response.version)
            )
            if response.body.readableBytes > 0 { stream.piece(response.body.readableBytesView) }
            if let trailers = response.trailers { stream.trailers(ExchangeDelivery.relayedFields(trailers)) }
            finish(.closed)
        case .streamHead(let head):
            stream.head(
                status: Int(head.status.code), headers: ExchangeDelivery.relayedFields(head.headers), isStream: true, bodyIsEncoded: true,
                httpVersion: IncomingRequest.protocolName(head.version)
            )
        case .piece(let buffer):
            stream.piece(buffer.readableBytesView)
        case .end(let trailers):
            if let trailers { stream.trailers(ExchangeDelivery.relayedFields(trailers)) }
            finish(.closed)
        case .cancelled:
            // A stream the client left is recorded as far as the client saw it, with when it left.
            finish(.clientLeft)
        case .failed(let failure):
            recorder.record(.failure(failure.exchangeFailure(forwarding: url)))
            _ = stream.end(.broken)
        }
    }

    /// Records the response once: its parts and its ending, or why they are not kept.
    private func finish(_ end: StreamRecorder.End) {
        guard let recording = stream.end(end) else { return }
        guard !recording.isOverLimit else {
            recorder.record(.failure(.notRecorded(.stream, limit: stream.limit)))
            return
        }
        recording.record(with: recorder)
    }
}

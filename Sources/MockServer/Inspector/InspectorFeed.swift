import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// The traffic page's live feed: one connection's stream of server-sent events, an `exchange`
/// event per exchange: the journal's entries when the page connects, then each exchange as it
/// ends.
///
/// It watches the journal as an exchange observer for as long as the connection is open. The
/// observer is called on the exchange's own thread; it only hands the values to this
/// connection's event loop, where the event is built and written — a page that is open costs
/// the traffic it watches one hop, and one that is closed costs nothing.
final class InspectorFeed: ExchangeObserver {
    private let delivery: NIOLoopBound<ExchangeDelivery>
    private let eventLoop: any EventLoop
    private let registry: MockRegistry

    private init(delivery: ExchangeDelivery, registry: MockRegistry) {
        self.delivery = NIOLoopBound(delivery, eventLoop: delivery.context.eventLoop)
        eventLoop = delivery.context.eventLoop
        self.registry = registry
    }

    /// Answers `GET /__admin/inspector/feed` on `delivery`'s connection: the stream's head, the
    /// journal so far, then every exchange as it ends, until the client goes away.
    static func open(on delivery: ExchangeDelivery, registry: MockRegistry) {
        let journal = registry.journal
        let feed = InspectorFeed(delivery: delivery, registry: registry)
        var fields: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        fields.append(contentsOf: InspectorRoute.protectiveFields.filter { $0.name != .cacheControl })
        let context = delivery.context
        context.write(NIOAny(HTTPServerResponsePart.head(delivery.responseHead(status: 200, headers: fields, bodySize: nil, keepAlive: delivery.keepsAlive(streaming: true)))), promise: nil)
        // Watch first, then send what the journal has: an exchange that ends in between comes
        // twice (the page keeps the later), none is missed.
        journal.addObserver(feed)
        context.channel.closeFuture.whenComplete { _ in journal.removeObserver(feed) }
        let redaction = journal.redaction
        var backlog = ByteBuffer()
        backlog.writeString(": Airlock traffic feed\n\n")
        for request in journal.all {
            feed.append(request, redaction: redaction, to: &backlog)
        }
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(backlog))), promise: nil)
    }

    func exchangeEnded(_ request: RecordedRequest, response: RecordedResponse, redaction: Redaction) -> ExchangeObservation? {
        nil
    }

    /// The exchange with its response and what the other observers found (a contract's
    /// violations), written on this connection's event loop.
    func exchangeRecorded(_ request: RecordedRequest, redaction: Redaction) {
        eventLoop.execute { [self] in
            let delivery = delivery.value
            guard delivery.context.channel.isActive else { return }
            var buffer = ByteBuffer()
            append(request, redaction: redaction, to: &buffer)
            delivery.context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
        }
    }

    /// Writes the `exchange` event of `request` (redacted here, as the journal shows it).
    private func append(_ request: RecordedRequest, redaction: Redaction, to buffer: inout ByteBuffer) {
        let shown = redaction.apply(to: request)
        let value = InspectorExchange.json(shown, original: request, registry: registry, redaction: redaction)
        guard let data = try? value.compactData() else { return }
        buffer.writeString("event: exchange\nid: \(request.sequence)\ndata: ")
        // Compact JSON has no raw line breaks (they are escaped in strings): one `data` line.
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
    }
}

import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// The traffic page's live feed: one connection's stream of server-sent events, an `exchange`
/// event per exchange — its row: ``InspectorExchange/summary(_:redaction:)`` — for the journal's
/// entries when the page connects, then for each exchange as it ends. The page asks for an
/// exchange's detail (`GET /__admin/inspector/exchanges/<sequence>`) when it opens one.
///
/// It watches the journal as an exchange observer for as long as the connection is open. The
/// observer is called on the exchange's own thread; it only hands the row to this connection's
/// event loop. A page that cannot keep up (the connection's buffer full) misses rows rather than
/// growing the server's memory: a `missed` event then says how many, and the page offers to
/// reload. A page that is closed costs nothing.
final class InspectorFeed: ExchangeObserver {
    /// What the event loop keeps: how many rows were not sent since the last one that was.
    private struct Backlog {
        var missed = 0
    }

    private let delivery: NIOLoopBound<ExchangeDelivery>
    private let backlog: NIOLoopBoundBox<Backlog>
    private let eventLoop: any EventLoop

    private init(delivery: ExchangeDelivery) {
        eventLoop = delivery.context.eventLoop
        self.delivery = NIOLoopBound(delivery, eventLoop: eventLoop)
        backlog = NIOLoopBoundBox(Backlog(), eventLoop: eventLoop)
    }

    /// Answers `GET /__admin/inspector/feed` on `delivery`'s connection: the stream's head, the
    /// journal so far, then every exchange as it ends, until the client goes away.
    static func open(on delivery: ExchangeDelivery, journal: RequestJournal) {
        let feed = InspectorFeed(delivery: delivery)
        var fields: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        fields.append(contentsOf: InspectorRoute.protectiveFields.filter { $0.name != .cacheControl })
        let context = delivery.context
        context.write(NIOAny(HTTPServerResponsePart.head(delivery.responseHead(status: 200, headers: fields, bodySize: nil, keepAlive: delivery.keepsAlive(streaming: true)))), promise: nil)
        // Watch first, then send what the journal has: an exchange that ends in between comes
        // twice (the page keeps the later), none is missed.
        journal.addObserver(feed)
        context.channel.closeFuture.whenComplete { _ in journal.removeObserver(feed) }
        let redaction = journal.redaction
        var buffer = ByteBuffer()
        buffer.writeString(": Airlock traffic feed\n\n")
        for request in journal.all {
            append(request, redaction: redaction, to: &buffer)
        }
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
    }

    func exchangeEnded(_ request: RecordedRequest, response: RecordedResponse, redaction: Redaction) -> ExchangeObservation? {
        nil
    }

    /// The exchange's row, with what the other observers found, written on this connection's
    /// event loop (or counted as missed while the connection cannot take more).
    func exchangeRecorded(_ request: RecordedRequest, redaction: Redaction) {
        eventLoop.execute { [self] in
            let delivery = delivery.value
            let channel = delivery.context.channel
            guard channel.isActive else { return }
            guard channel.isWritable else {
                backlog.value.missed += 1
                return
            }
            var buffer = ByteBuffer()
            if backlog.value.missed > 0 {
                buffer.writeString("event: missed\ndata: \(backlog.value.missed)\n\n")
                backlog.value.missed = 0
            }
            Self.append(request, redaction: redaction, to: &buffer)
            delivery.context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
        }
    }

    /// Writes the `exchange` event of `request`'s row.
    private static func append(_ request: RecordedRequest, redaction: Redaction, to buffer: inout ByteBuffer) {
        guard let data = try? InspectorExchange.summary(request, redaction: redaction).compactData() else { return }
        buffer.writeString("event: exchange\nid: \(request.sequence)\ndata: ")
        // Compact JSON has no raw line breaks (they are escaped in strings): one `data` line.
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
    }
}

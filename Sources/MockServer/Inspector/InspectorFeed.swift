import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// The traffic page's live feed: one connection's stream of server-sent events, an `exchange`
/// event per exchange — its row: ``InspectorExchange/summary(_:redaction:registry:)`` — for the journal's
/// entries when the page connects (the newest ``pendingLimit`` of them), then for each exchange
/// as it ends. The page asks for an
/// exchange's detail (`GET /__admin/inspector/exchanges/<sequence>`) when it opens one.
///
/// It watches the journal as an exchange observer for as long as the connection is open. An
/// exchange only adds its request to a list under a lock; every ``interval`` the connection's
/// event loop takes the list, builds the rows and writes them at once — no wake-up per exchange,
/// no work on the exchange's thread. At most ``rowsPerWrite`` rows go out per write (2,000 a
/// second, more than anyone reads): a page open while a load test drives the server thousands
/// of exchanges a second costs it the building of those rows, not of every exchange's. What is
/// not sent — beyond that rate, or while the connection's buffer is full — is counted: a `missed`
/// event says how many, and the page offers to reload (which lists the journal's newest
/// ``pendingLimit``). A page that is closed costs nothing.
final class InspectorFeed: ExchangeObserver {
    /// How often the rows of the exchanges that ended are written.
    static let interval: TimeAmount = .milliseconds(100)
    /// The most rows sent when a page connects: the journal's newest.
    static let pendingLimit = 10_000
    /// The most rows that wait for the next write; beyond, they are missed.
    static let rowsPerWrite = 200

    /// What waits for the next write: the requests that ended, the WebSockets with new frames
    /// (their rows, again, from the journal), and how many were missed.
    private struct Pending {
        var requests: [(request: RecordedRequest, redaction: Redaction)] = []
        var framed: Set<Int> = []
        var missed = 0
    }

    private let delivery: NIOLoopBound<ExchangeDelivery>
    private let registry: MockRegistry
    private var journal: RequestJournal { registry.journal }
    private let pending = Locked(Pending())

    private init(delivery: ExchangeDelivery, registry: MockRegistry) {
        self.delivery = NIOLoopBound(delivery, eventLoop: delivery.context.eventLoop)
        self.registry = registry
    }

    /// Answers `GET /__admin/inspector/feed` on `delivery`'s connection: the stream's head, the
    /// journal so far, then every exchange as it ends, until the client goes away.
    static func open(on delivery: ExchangeDelivery, registry: MockRegistry) {
        let feed = InspectorFeed(delivery: delivery, registry: registry)
        let journal = registry.journal
        var fields: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        fields.append(contentsOf: InspectorRoute.protectiveFields.filter { $0.name != .cacheControl })
        let context = delivery.context
        context.write(NIOAny(HTTPServerResponsePart.head(delivery.responseHead(status: 200, headers: fields, bodySize: nil, keepAlive: delivery.keepsAlive(streaming: true)))), promise: nil)
        // Watch first, then send what the journal has: an exchange that ends in between comes
        // twice (the page keeps the later), none is missed.
        journal.addObserver(feed)
        let redaction = journal.redaction
        var buffer = ByteBuffer()
        buffer.writeString(": Airlock traffic feed\n\n")
        // The newest of a long journal only: the rest is counted, as a page that fell behind.
        let kept = journal.all
        let sent = kept.suffix(pendingLimit)
        if sent.count < kept.count {
            buffer.writeString("event: missed\ndata: \(kept.count - sent.count)\n\n")
        }
        for request in sent {
            append(request, redaction: redaction, registry: registry, to: &buffer)
        }
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
        let writing = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in feed.write() }
        context.channel.closeFuture.whenComplete { _ in
            writing.cancel()
            journal.removeObserver(feed)
        }
    }

    func exchangeEnded(_ request: RecordedRequest, response: RecordedResponse, redaction: Redaction) -> ExchangeObservation? {
        nil
    }

    /// Keeps the exchange (with what the other observers found) for the next write.
    func exchangeRecorded(_ request: RecordedRequest, redaction: Redaction) {
        pending.withLock { pending in
            if pending.requests.count < Self.rowsPerWrite {
                pending.requests.append((request, redaction))
            } else {
                pending.missed += 1
            }
        }
    }

    /// Notes a WebSocket's new frame: its row goes out again at the next write, so that a page
    /// showing it asks for its frames anew.
    func webSocketFrameRecorded(sequence: Int) {
        pending.withLock { _ = $0.framed.insert(sequence) }
    }

    /// Notes that a webhook of an exchange ended: its row goes out again at the next write, as
    /// for a WebSocket's new frame, so that a page showing it asks for its webhooks anew.
    func webhookRecorded(_ request: RecordedRequest, redaction: Redaction) {
        pending.withLock { _ = $0.framed.insert(request.sequence) }
    }

    /// Writes the rows of the exchanges that ended since the last write (on the event loop).
    private func write() {
        let taken = pending.withLock { pending in
            defer { pending = Pending() }
            return pending
        }
        guard !taken.requests.isEmpty || !taken.framed.isEmpty || taken.missed > 0 else { return }
        let delivery = delivery.value
        let channel = delivery.context.channel
        guard channel.isActive else { return }
        guard channel.isWritable else {
            pending.withLock { $0.missed += taken.missed + taken.requests.count + taken.framed.count }
            return
        }
        var buffer = ByteBuffer()
        if taken.missed > 0 {
            buffer.writeString("event: missed\ndata: \(taken.missed)\n\n")
        }
        for (request, redaction) in taken.requests {
            Self.append(request, redaction: redaction, registry: registry, to: &buffer)
        }
        let redaction = journal.redaction
        for sequence in taken.framed.sorted() {
            if let request = journal.entry(sequence: sequence) {
                Self.append(request, redaction: redaction, registry: registry, to: &buffer)
            }
        }
        delivery.context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
    }

    /// Writes the `exchange` event of `request`'s row.
    private static func append(_ request: RecordedRequest, redaction: Redaction, registry: MockRegistry, to buffer: inout ByteBuffer) {
        guard let data = try? InspectorExchange.summary(request, redaction: redaction, registry: registry).compactData() else { return }
        buffer.writeString("event: exchange\nid: \(request.sequence)\ndata: ")
        // Compact JSON has no raw line breaks (they are escaped in strings): one `data` line.
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
    }
}

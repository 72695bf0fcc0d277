@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// The passthrough: a request no stub answers sent on to its real host (the `.passthrough`
/// policy, a stub that proxies, and recording), and the answer relayed to the client as it comes.
///
/// A response whose body has a `Content-Length` (or no body) is relayed whole. One without a
/// length — chunked or ended by the server closing: server-sent events, NDJSON, any stream — is
/// relayed live: its head at once, each piece as it arrives, so that an app being recorded streams
/// as it would without Airlock. Such a stream is recorded when it ends, with its pieces and the
/// time between them (``ResponseStream``, of kind `events` for `text/event-stream`), unless its
/// body is in a content coding (the pieces of a gzip stream mean nothing apart: the body is
/// recorded whole) or passes the body limit (it is relayed whole but not recorded, and the journal
/// says why). A stream may run any time as long as the real host sends something at least every
/// 60 seconds; it goes no faster than its client reads.
///
/// The forward runs on the client connection's event loop, and its connection's pipeline is the
/// relay, one job per handler, each passing every ``Forwarder/Event`` on:
///
/// ```
/// HTTP client codec → ResponseRelay → RelayRecordingHandler → RelayWritingHandler → RelayEndHandler
///   (the real host)    (events, timeouts)  (the StreamRecorder)   (the client's connection)  (a proxying stub's webhooks)
/// ```
///
/// A piece is the `ByteBuffer` read from the real host, written to the client as it is; it is
/// copied once, into the part the recording keeps. No lock is taken on the way.
extension ExchangeDelivery {
    /// How long a whole answer may take, and how long a stream may go without a piece.
    static let forwardTimeout: TimeAmount = .seconds(60)

    /// Sends `incoming` (the request this delivery answers) on to its real host, or to `target`,
    /// and relays the answer: a WebSocket frame by frame (``WebSocketRelay``), anything else as
    /// described above.
    ///
    /// - Parameters:
    ///   - recording: Whether a recording cassette keeps the exchange: the real host is then
    ///     offered only the content codings Airlock reads, so that secrets can be redacted.
    ///   - target: For a stub that proxies, the URL to send it to instead of its own and the
    ///     fields to send, as the core decided them.
    ///   - recorder: Where the exchange is recorded.
    ///   - webhooks: A proxying stub's webhooks, sent once the answer has been relayed (or failed).
    ///   - failed: What the core answers when the forward fails before the real host's answer
    ///     began (a `502`, in the request's form).
    func forward(
        _ incoming: IncomingRequest, recording: Bool, to target: ForwardTarget?, recorder: ExchangeRecorder, then webhooks: [WebhookRequest] = [],
        answeringFailure failed: FailedForwardAnswer
    ) {
        let url = target?.url ?? incoming.url
        if WebSocketUpgrade.problem(with: head) == nil {
            // A WebSocket: relayed frame by frame, and recorded when the conversation ends; a
            // proxying stub's webhooks go once the relay is set off (the conversation has no end
            // the stub waits for).
            WebSocketRelay.open(to: url, fields: target?.headers, recording: recording, recorder: recorder, on: self)
            return sendWebhooks(webhooks, recorder: recorder)
        }
        let limit = server.configuration.maxRequestBodySize
        let eventLoop = context.eventLoop
        let ended = RelayEndHandler { [self] in sendWebhooks(webhooks, recorder: recorder) }
        let stages = NIOLoopBound(
            (recording: RelayRecordingHandler(recorder: recorder, url: url, limit: limit), writing: RelayWritingHandler(self, url: url, recorder: recorder, answeringFailure: failed), ended: ended),
            eventLoop: eventLoop
        )
        let forward = server.forwarder.execute(
            method: head.method, url: url, headers: target.map { Self.sent($0.headers) } ?? forwardedFields(recording: recording), body: incoming.body, limit: limit,
            timeout: Self.forwardTimeout, streams: true, upstream: upstreamProtocol, on: eventLoop,
            relayTo: { pipeline in try pipeline.addHandlers(stages.value.recording, stages.value.writing, stages.value.ended) },
            unreachable: { failure in
                stages.value.recording.record(.failed(failure))
                stages.value.writing.write(.failed(failure), upstream: nil)
                stages.value.ended.saw(.failed(failure))
            }
        )
        // A client that goes away mid-stream stops the forward (and its recording).
        context.channel.closeFuture.whenComplete { _ in forward.cancel() }
    }

    /// The protocol the real host is asked in: HTTP/2 for a client that spoke it — by ALPN for an
    /// `https` host; with prior knowledge for gRPC, which has no HTTP/1.1 form — else HTTP/1.1.
    private var upstreamProtocol: Forwarder.UpstreamProtocol {
        guard isHTTP2 else { return .http1 }
        let contentType = head.headers["content-type"].first?.lowercased() ?? ""
        return contentType.hasPrefix("application/grpc") ? .http2 : .http2IfOffered
    }

    /// Sends an answer the relay has whole (recorded already): the real host's, or a `502`. With
    /// trailers, the body goes with no length (chunked on HTTP/1.1) so that they can follow it.
    func relayAnswer(status: Int, headers: HTTPFields, body: ByteBuffer, trailers: HTTPHeaders? = nil, recorder: ExchangeRecorder) {
        report(status: status, fault: nil, recorder: recorder)
        guard let trailers, !trailers.isEmpty else { return respond(status: status, headers: headers, body: body) }
        let keepAlive = keepsAlive(streaming: true)
        context.write(NIOAny(HTTPServerResponsePart.head(responseHead(status: status, headers: headers, bodySize: nil, keepAlive: keepAlive))), promise: nil)
        writeBody(body, status: status)
        connection.endResponse(keepAlive: keepAlive, trailers: Self.relayedTrailers(trailers), in: context)
    }

    /// Trailer fields as relayed: every one in order but those of the connection.
    static func relayedTrailers(_ trailers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(trailers.filter { !hopByHop.contains($0.name.lowercased()) && $0.name.lowercased() != "content-length" }.map { ($0.name, $0.value) })
    }

    /// The request's fields as sent on: every one in order but the connection's own, and — when
    /// recording — an `Accept-Encoding` cut to the codings Airlock reads.
    private func forwardedFields(recording: Bool) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for field in head.headers where !Self.hopByHop.contains(field.name.lowercased()) {
            if recording, field.name.lowercased() == "accept-encoding" {
                fields.append((field.name, ContentCoding.readable(acceptEncoding: field.value)))
                continue
            }
            fields.append((field.name, field.value))
        }
        return fields
    }

    /// The fields the core decided for a stub that proxies, less the connection's own.
    private static func sent(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        fields.filter { !hopByHop.contains($0.name.lowercased()) }
    }

    /// Every field in order, repeated ones apart, but those of the connection and the length: the
    /// body as received (still in any content coding the server applied) is framed anew.
    static func relayedFields(_ headers: HTTPHeaders) -> HTTPFields {
        HTTPFields(pairs: headers.lazy
            .filter { !hopByHop.contains($0.name.lowercased()) && $0.name.lowercased() != "content-length" }
            .map { (name: $0.name, value: $0.value) })
    }

    /// Connection-level fields that a proxy does not pass on.
    static let hopByHop: Set<String> = ["host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization"]
}

extension Forwarder.Failure {
    /// What the journal records, and the client's `502` says, when forwarding to `url` failed.
    func exchangeFailure(forwarding url: String) -> ExchangeFailure {
        .forwardFailed(target: url, error: description)
    }
}

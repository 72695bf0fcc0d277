import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Writes the answer to one request onto its connection: the server's side of the core's
/// exchange (``carry(_:incoming:recorder:)``, the one `switch` over what the exchange's state
/// machine asks for: a head and pieces, a `500` for what could not be produced, a fault acted out
/// on the wire, a passthrough relayed, a WebSocket opened), and the responses of the server's own
/// (`413`, `400`, the admin API's JSON).
///
/// It decides nothing: the exchange's states and timing are the core's `ExchangeStateMachine`,
/// and the connection's state is the ``ServerConnection``'s, which it tells when a response ends.
struct ExchangeDelivery {
    let server: ServerContext
    let connection: ServerConnection
    /// The request handler's context: responses go through the HTTP encoder from there.
    let context: ChannelHandlerContext
    /// The request answered.
    let head: HTTPRequestHead

    typealias Machine = ExchangeStateMachine<SocketTransport>

    /// Starts the exchange the core resolved for `incoming` and carries it out on this
    /// connection. An answer sent at once needs nothing more; one that waits (a delay, a
    /// dribble, a stream, a file) goes on in a ``Sink`` on the connection's event loop.
    func deliver(_ machine: consuming Machine, for incoming: IncomingRequest) {
        let action = machine.start(idleTimeout: nil, takesBodyInPieces: true)
        guard case .none = action.next else {
            return Sink(self, machine: machine, incoming: incoming).run(action)
        }
        if let delivery = action.delivery {
            carry(delivery, incoming: incoming, recorder: machine.recorder)
        }
    }

    /// Carries out what the exchange asks for. Returns `false` when the client has gone.
    @discardableResult
    func carry(_ delivery: Machine.Delivery, incoming: IncomingRequest, recorder: ExchangeRecorder) -> Bool {
        switch delivery {
        case .write(let write):
            return self.write(write, recorder: recorder)
        case .fail(let failure):
            report(status: 500, fault: nil, recorder: recorder)
            respond(status: 500, headers: [.contentType: "text/plain"], body: Data((failure.description + "\n").utf8))
        case .fault(let fault, let webhooks):
            misbehave(fault, recorder: recorder)
            sendWebhooks(webhooks, recorder: recorder)
        case .forward(let recording, let target, _, let webhooks, let failed):
            forward(incoming, recording: recording, to: target, recorder: recorder, then: webhooks, answeringFailure: failed)
        case .openWebSocket(let response, let script):
            WebSocketUpgrade.open(response, playing: script, for: incoming, recorder: recorder, on: self)
        case .follow:
            // A socket's client follows redirects itself: the core never asks a server to.
            break
        }
        return true
    }

    /// A response's trailer fields as SwiftNIO writes them; `nil` when it has none.
    static func trailers(of response: MockResponse) -> HTTPHeaders? {
        response.trailerFields.isEmpty ? nil : HTTPHeaders(response.trailerFields.map { ($0.name.rawName, $0.value) })
    }

    /// Writes a response's head and pieces; after the last, reports the exchange and ends the
    /// response. Returns `false` when the client has gone.
    private func write(_ write: Machine.Write, recorder: ExchangeRecorder) -> Bool {
        guard context.channel.isActive else { return false }
        let response = write.response
        let status = response.status.code
        // Trailers follow a body whose end the framing marks: a stream's end on HTTP/2, the last
        // chunk on HTTP/1.1 (so no `Content-Length`).
        let trailers = Self.trailers(of: response)
        if let (response, announcedSize) = write.head {
            let bodySize = trailers == nil ? announcedSize : nil
            if write.ends, let bodySize, let piece = write.pieces.only, piece.count == bodySize,
                let prepared = PreparedAnswer.of(response), prepared.bodySize == bodySize
            {
                // The whole body, in one piece: the head and buffer made once for the response.
                context.write(NIOAny(HTTPServerResponsePart.head(responseHead(prepared, keepAlive: keepsAlive(streaming: false)))), promise: nil)
                writeBody(prepared)
                report(status: status, fault: nil, recorder: recorder)
                connection.endResponse(keepAlive: keepsAlive(streaming: false), in: context)
                sendWebhooks(write.webhooks, recorder: recorder)
                return true
            }
            let head = responseHead(
                status: status,
                reasonPhrase: response.reasonPhrase,
                headers: response.wireHeaderFields,
                bodySize: bodySize,
                keepAlive: keepsAlive(streaming: bodySize == nil && trailers == nil)
            )
            context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        }
        // Each piece is a chunk of its own; what goes out together is flushed together.
        write.pieces.forEach { writeBody($0, status: status) }
        guard write.ends else {
            context.flush()
            return true
        }
        report(status: status, fault: nil, recorder: recorder)
        connection.endResponse(keepAlive: keepsAlive(streaming: response.stream != nil || trailers != nil), trailers: trailers, in: context)
        sendWebhooks(write.webhooks, recorder: recorder)
        return true
    }

    /// Sends the webhooks the core attached to the answer's end, now that it has gone.
    func sendWebhooks(_ webhooks: [WebhookRequest], recorder: ExchangeRecorder) {
        guard !webhooks.isEmpty else { return }
        WebhookDelivery.send(
            webhooks, recorder: recorder, forwarder: server.forwarder, redaction: server.registry.journal.redaction, waiting: server.waitingWebhooks, on: context.eventLoop
        )
    }

    /// An exchange that waits, on the connection's event loop: its machine, its timers, its
    /// writes.
    // @unchecked Sendable: `machine` is read and written only on the channel's event loop
    // (`withMachine` checks), where the timers run and the exchange started.
    final class Sink: ExchangeSink, @unchecked Sendable {
        typealias Kind = SocketTransport

        private let delivery: NIOLoopBound<ExchangeDelivery>
        private let eventLoop: any EventLoop
        private let incoming: IncomingRequest
        private var machine: Machine

        init(_ delivery: ExchangeDelivery, machine: Machine, incoming: IncomingRequest) {
            self.delivery = NIOLoopBound(delivery, eventLoop: delivery.context.eventLoop)
            eventLoop = delivery.context.eventLoop
            self.incoming = incoming
            self.machine = machine
        }

        func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
            if seconds > 0 {
                eventLoop.scheduleTask(in: .saturatingSeconds(seconds), work)
            } else {
                eventLoop.execute(work)
            }
        }

        func withMachine(_ event: (inout Machine) -> Machine.Action) -> Machine.Action {
            eventLoop.preconditionInEventLoop()
            return event(&machine)
        }

        func carry(_ delivery: Machine.Delivery) {
            if !self.delivery.value.carry(delivery, incoming: incoming, recorder: machine.recorder) {
                machine.clientLeft()
            }
        }
    }

    // MARK: Responses

    /// Writes a complete response and keeps or closes the connection.
    func respond(status: Int, headers: HTTPFields, body: Data, closing: Bool = false) {
        respond(status: status, headers: headers, body: ByteBuffer(bytes: body), closing: closing)
    }

    /// Writes a complete response whose body is in a buffer already (a relayed one: not copied).
    func respond(status: Int, headers: HTTPFields, body: ByteBuffer, closing: Bool = false) {
        // An HTTP/2 stream ends with its response: the connection is not the response's to close.
        let keepAlive = isHTTP2 || (head.isKeepAlive && !closing)
        context.write(NIOAny(HTTPServerResponsePart.head(responseHead(status: status, headers: headers, bodySize: body.readableBytes, keepAlive: keepAlive))), promise: nil)
        writeBody(body, status: status)
        connection.endResponse(keepAlive: keepAlive, in: context)
    }

    /// Writes a piece of a response's body, unless the response carries none: HEAD responses,
    /// 204 and 304 (their Content-Length still describes it).
    /// Returns when the piece has gone out, if one was written.
    @discardableResult
    func writeBody(_ piece: Data, status: Int) -> EventLoopFuture<Void>? {
        guard !piece.isEmpty else { return nil }
        return writeBody(ByteBuffer(bytes: piece), status: status)
    }

    /// Writes a piece of a response's body held in a buffer (a relayed one: not copied), unless
    /// the response carries none: HEAD responses, 204 and 304.
    @discardableResult
    func writeBody(_ piece: ByteBuffer, status: Int) -> EventLoopFuture<Void>? {
        guard piece.readableBytes > 0, head.method != .HEAD, status != 204, status != 304 else { return nil }
        return context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(piece))))
    }

    /// Writes a prepared body, unless the response carries none (as ``writeBody(_:status:)``).
    func writeBody(_ prepared: PreparedAnswer) {
        guard prepared.bodySize > 0, head.method != .HEAD else { return }
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(prepared.body))), promise: nil)
    }

    /// A request body over the cap: `413` with how to raise it, then the connection closes.
    func rejectOversizedBody(limit: Int) {
        let message = "Airlock: the request body is larger than this server accepts (\(limit) bytes). Raise the limit with "
            + "MockServer.Configuration(maxRequestBodySize:) or `airlock serve --max-body-size <bytes>`.\n"
        respond(status: 413, headers: [.contentType: "text/plain"], body: Data(message.utf8), closing: true)
    }

    /// Whether the connection stays open after the response: as the client asked, unless the
    /// response is a stream to an HTTP/1.0 client, whose end only a close can mark.
    func keepsAlive(streaming: Bool) -> Bool {
        isHTTP2 || (head.isKeepAlive && !(streaming && head.version == .http1_0))
    }

    /// Whether the request came on an HTTP/2 stream: its response ends the stream (the codec
    /// frames the body, a stream's end marks it), and the connection stays with its other streams.
    var isHTTP2: Bool { head.version.major == 2 }

    /// The head of a prepared answer: its fields as kept, `Connection: close` added when the
    /// connection closes after it.
    func responseHead(_ prepared: PreparedAnswer, keepAlive: Bool) -> HTTPResponseHead {
        // The usual case, an HTTP/1.1 connection kept alive: the head made with the answer.
        if keepAlive, head.version == .http1_1 { return prepared.keepAliveHead }
        var fields = prepared.fields
        if !keepAlive { fields.replaceOrAdd(name: "Connection", value: "close") }
        return HTTPResponseHead(version: head.version, status: prepared.status, headers: fields)
    }

    /// The response's head. `bodySize` `nil`: a stream, sent chunked to HTTP/1.1 clients (the
    /// encoder frames it) and ended by closing the connection for HTTP/1.0 ones.
    func responseHead(status: Int, reasonPhrase: String? = nil, headers: HTTPFields, bodySize: Int?, keepAlive: Bool) -> HTTPResponseHead {
        // Every field as given, in order, repeated names kept (two Set-Cookie stay two).
        var fields = HTTPHeaders(headers.map { ($0.name.rawName, $0.value) })
        if status == 204 || status == 304 || (100..<200).contains(status) {
            // No body follows, and a length would describe one that does not (RFC 9110 §8.6).
            fields.remove(name: "Content-Length")
        } else if let bodySize {
            fields.replaceOrAdd(name: "Content-Length", value: "\(bodySize)")
        } else {
            fields.remove(name: "Content-Length")
            fields.remove(name: "Transfer-Encoding")
        }
        if !keepAlive { fields.replaceOrAdd(name: "Connection", value: "close") }
        let line = reasonPhrase.map { HTTPResponseStatus.custom(code: UInt(status), reasonPhrase: $0) } ?? HTTPResponseStatus(statusCode: status)
        return HTTPResponseHead(version: head.version, status: line, headers: fields)
    }

    /// What a fixed answer looks like on the wire, made once per response and kept with it
    /// (``MockResponse/prepared(_:_:)``): its status line, its fields with the `Content-Length`,
    /// and its body in a `ByteBuffer`, and the whole head an HTTP/1.1 keep-alive connection gets. A
    /// response served again and again is then written without converting its fields, building
    /// its head or copying its body each time.
    ///
    /// Only for a body held in memory and sent whole (no dribble, no stream), and a status whose
    /// response has a body; every other response is written as ``responseHead(status:reasonPhrase:headers:bodySize:keepAlive:)``
    /// makes it.
    final class PreparedAnswer: Sendable {
        let status: HTTPResponseStatus
        let fields: HTTPHeaders
        let body: ByteBuffer
        let bodySize: Int
        /// The whole head for an HTTP/1.1 connection that stays open.
        let keepAliveHead: HTTPResponseHead

        private init(_ response: MockResponse, body: Data) {
            let code = response.status.code
            status = response.reasonPhrase.map { HTTPResponseStatus.custom(code: UInt(code), reasonPhrase: $0) } ?? HTTPResponseStatus(statusCode: code)
            var fields = HTTPHeaders(response.wireHeaderFields.map { ($0.name.rawName, $0.value) })
            fields.replaceOrAdd(name: "Content-Length", value: String(body.count))
            self.fields = fields
            self.body = ByteBuffer(bytes: body)
            bodySize = body.count
            keepAliveHead = HTTPResponseHead(version: .http1_1, status: status, headers: fields)
        }

        /// The response's prepared answer, made on first use; `nil` for a response that is not
        /// a fixed one.
        static func of(_ response: MockResponse) -> PreparedAnswer? {
            guard response.dribble == nil, response.stream == nil, let body = response.body.bytesInMemory else { return nil }
            let code = response.status.code
            guard code >= 200, code != 204, code != 304 else { return nil }
            return response.prepared { PreparedAnswer(response, body: body) }
        }
    }

    // MARK: Faults

    /// Misbehaves on the wire as the fault says (already recorded).
    func misbehave(_ fault: MockResponse.Fault, recorder: ExchangeRecorder) {
        report(status: nil, fault: fault.description, recorder: recorder)
        if isHTTP2 { return misbehaveOnStream(fault) }
        let channel = context.channel
        switch fault.kind {
        case .connectionReset:
            // SO_LINGER with a zero timeout turns close() into a TCP reset.
            guard let provider = channel as? any SocketOptionProvider else {
                channel.close(promise: nil)
                return
            }
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
                channel.close(promise: nil)
            }
        case .emptyResponse:
            channel.close(promise: nil)
        case .malformedChunkedBody:
            writeRawThenClose(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\nZZZ\r\nnot a chunk\r\n".utf8))
        case .randomBytesThenClose:
            writeRawThenClose(Data((0..<64).map { _ in UInt8.random(in: 0...255) }))
        }
    }

    /// Writes bytes as they are, below the HTTP encoder, then closes at once: a fault is a broken
    /// connection, not a graceful end.
    private func writeRawThenClose(_ bytes: Data) {
        let channel = context.channel
        guard let encoder = GracefulClose.encoderContext(in: context) else {
            return channel.close(promise: nil)
        }
        encoder.writeAndFlush(NIOAny(ByteBuffer(bytes: bytes))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    // MARK: Reporting

    func report(status: Int?, fault: String?, recorder: ExchangeRecorder) {
        guard let handler = server.configuration.exchangeHandler else { return }
        let duration = Date().timeIntervalSince(recorder.started)
        // The console and logs see the target through the mock's redaction.
        let target = server.registry.journal.redaction.url(head.uri)
        handler(MockServer.Exchange(method: head.method.rawValue, target: target, status: status, fault: fault, duration: duration))
    }
}

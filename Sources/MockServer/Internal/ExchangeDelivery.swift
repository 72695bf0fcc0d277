import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Writes the answer to one request onto its connection: the server's side of the core's
/// delivery (``Sink``, driven by `ResolvedExchange.deliver(to:)`: the head, the body's pieces, a
/// `500` for what could not be produced, a fault acted out on the wire, a passthrough relayed),
/// and the responses of the server's own (`413`, `400`, the admin API's JSON).
///
/// It decides nothing: the plan and its sequence are the core's, and the connection's state is
/// the ``ServerConnection``'s, which it tells when a response ends.
struct ExchangeDelivery {
    let server: ServerContext
    let connection: ServerConnection
    /// The request handler's context: responses go through the HTTP encoder from there.
    let context: ChannelHandlerContext
    /// The request answered.
    let head: HTTPRequestHead

    /// Has the core carry out what it resolved for `incoming`, writing onto this connection.
    func deliver(_ exchange: ResolvedExchange<SocketTransport>, for incoming: IncomingRequest) {
        exchange.deliver(to: Sink(self, incoming: incoming, recorder: exchange.recorder))
    }

    /// The core's delivery, onto this connection: timers on its event loop, writes through the
    /// HTTP encoder, each finished exchange reported to the server's exchange handler.
    // @unchecked Sendable: its one variable, `prepared`, is read and written only after
    // `delivery.value` has checked that the call runs on the channel's event loop.
    final class Sink: ExchangeSink, @unchecked Sendable {
        typealias Kind = SocketTransport

        private let delivery: NIOLoopBound<ExchangeDelivery>
        private let eventLoop: any EventLoop
        private let incoming: IncomingRequest
        private let recorder: ExchangeRecorder
        /// The prepared answer whose head ``begin(_:bodySize:)`` wrote, if it wrote one.
        private var prepared: PreparedAnswer?

        init(_ delivery: ExchangeDelivery, incoming: IncomingRequest, recorder: ExchangeRecorder) {
            self.delivery = NIOLoopBound(delivery, eventLoop: delivery.context.eventLoop)
            eventLoop = delivery.context.eventLoop
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

        /// Closes the connection after `seconds`, as a client that gave up would find it (the core
        /// asks only transports with an ``idleTimeout``, which a socket has not).
        func timeOut(after seconds: TimeInterval, because reason: String, recorder: ExchangeRecorder) {
            let channel = delivery.value.context.channel
            schedule(after: seconds) {
                recorder.record(.failure(reason))
                channel.close(promise: nil)
            }
        }

        func begin(_ planned: PlannedResponse, bodySize: Int?) -> Bool {
            let delivery = delivery.value
            guard delivery.context.channel.isActive else { return false }
            if let bodySize, let prepared = PreparedAnswer.of(planned.response), prepared.bodySize == bodySize {
                let keepAlive = delivery.keepsAlive(streaming: false)
                delivery.context.write(NIOAny(HTTPServerResponsePart.head(delivery.responseHead(prepared, keepAlive: keepAlive))), promise: nil)
                // Its body follows in one piece: `send` writes the buffer made with it.
                self.prepared = prepared
                return true
            }
            let head = delivery.responseHead(
                status: planned.response.status.code,
                reasonPhrase: planned.response.reasonPhrase,
                headers: planned.response.wireHeaderFields,
                bodySize: bodySize,
                keepAlive: delivery.keepsAlive(streaming: bodySize == nil)
            )
            delivery.context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
            if bodySize == nil { delivery.context.flush() }
            return true
        }

        func send(_ piece: Data, isLast: Bool, of planned: PlannedResponse) {
            let delivery = delivery.value
            guard delivery.context.channel.isActive else { return }
            if isLast, let prepared, prepared.bodySize == piece.count {
                // The whole body, in one piece: the buffer made once for the response.
                delivery.writeBody(prepared)
            } else {
                delivery.writeBody(piece, status: planned.response.status.code)
            }
            guard isLast else { return delivery.context.flush() }
            delivery.report(status: planned.response.status.code, fault: nil, recorder: recorder)
            delivery.connection.endResponse(keepAlive: delivery.keepsAlive(streaming: planned.response.stream != nil), in: delivery.context)
        }

        func fail(_ failure: ExchangeFailure) {
            let delivery = delivery.value
            delivery.report(status: 500, fault: nil, recorder: recorder)
            delivery.respond(status: 500, headers: [.contentType: "text/plain"], body: Data((failure.description + "\n").utf8))
        }

        func fail(carrying error: Never) {}

        func perform(_ fault: MockResponse.Fault) {
            delivery.value.misbehave(fault, recorder: recorder)
        }

        func forward(recording: Bool, to target: String?, recorder: ExchangeRecorder) {
            let delivery = delivery.value
            if WebSocketUpgrade.problem(with: delivery.head) == nil {
                // A WebSocket: relayed frame by frame, and recorded when the conversation ends.
                return WebSocketRelay.open(to: target ?? incoming.url, recording: recording, recorder: recorder, on: delivery)
            }
            let relay = PassthroughRelay(forwarder: delivery.server.forwarder, limit: delivery.server.configuration.maxRequestBodySize)
            let loopBound = self.delivery
            let control = Locked<Forwarder.UpstreamControl?>(nil)
            let forward = relay.relay(incoming, to: target, head: delivery.head, recording: recording, recorder: recorder, on: eventLoop, streams: true) { relayed in
                loopBound.value.relay(relayed, recorder: recorder, readingPausedBy: control.withLock { $0 })
            }
            control.withLock { $0 = forward }
            // A client that goes away mid-stream stops the forward (and its recording).
            delivery.context.channel.closeFuture.whenComplete { _ in forward.cancel() }
        }

        func stop(_ stop: Never) -> Never {}

        func openWebSocket(_ planned: PlannedResponse, playing script: WebSocketScript, recorder: ExchangeRecorder) {
            WebSocketUpgrade.open(planned, playing: script, for: incoming, recorder: recorder, on: delivery.value)
        }
    }

    // MARK: Responses

    /// Sends what a passthrough relay received as it arrives: the whole answer (or its `502`), or
    /// a stream's head, each piece flushed at once, and its end; the recorder has each ending.
    /// A piece that leaves the client's connection unwritable (the client reads slower than the
    /// real host sends) pauses `forward` until that piece has gone out.
    func relay(_ delivery: PassthroughRelay.Delivery, recorder: ExchangeRecorder, readingPausedBy forward: Forwarder.UpstreamControl? = nil) {
        switch delivery {
        case .answer(let answer):
            report(status: answer.status, fault: nil, recorder: recorder)
            respond(status: answer.status, headers: answer.headers, body: answer.body)
        case .streamHead(let status, let headers):
            guard context.channel.isActive else { return }
            context.write(NIOAny(HTTPServerResponsePart.head(responseHead(status: status, headers: headers, bodySize: nil, keepAlive: keepsAlive(streaming: true)))), promise: nil)
            context.flush()
        case .piece(let piece):
            guard context.channel.isActive else { return }
            let written = writeBody(piece, status: 200)
            context.flush()
            // Back-pressure: no more is read from the real host until the client has taken this.
            if let forward, let written, !context.channel.isWritable {
                forward.pauseReading()
                written.whenComplete { _ in forward.resumeReading() }
            }
        case .end(let status):
            report(status: status, fault: nil, recorder: recorder)
            guard context.channel.isActive else { return }
            connection.endResponse(keepAlive: keepsAlive(streaming: true), in: context)
        case .broken(let status):
            // The client has the head and part of the body: only a closed connection tells it.
            report(status: status, fault: nil, recorder: recorder)
            context.channel.close(promise: nil)
        }
    }

    /// Writes a complete response and keeps or closes the connection.
    func respond(status: Int, headers: HTTPFields, body: Data, closing: Bool = false) {
        let keepAlive = head.isKeepAlive && !closing
        context.write(NIOAny(HTTPServerResponsePart.head(responseHead(status: status, headers: headers, bodySize: body.count, keepAlive: keepAlive))), promise: nil)
        writeBody(body, status: status)
        connection.endResponse(keepAlive: keepAlive, in: context)
    }

    /// Writes a piece of a response's body, unless the response carries none: HEAD responses,
    /// 204 and 304 (their Content-Length still describes it).
    /// Returns when the piece has gone out, if one was written.
    @discardableResult
    func writeBody(_ piece: Data, status: Int) -> EventLoopFuture<Void>? {
        guard !piece.isEmpty, head.method != .HEAD, status != 204, status != 304 else { return nil }
        return context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: piece)))))
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
        head.isKeepAlive && !(streaming && head.version == .http1_0)
    }

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

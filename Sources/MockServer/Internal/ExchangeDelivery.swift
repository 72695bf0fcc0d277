import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Delivers the answer to one request onto its connection: what the core resolved (after its
/// delay: a response, its body loaded and dribbled as planned, a fault acted out on the wire), a
/// relayed passthrough answer, or a response of the server's own (`413`, the admin API's JSON).
///
/// It decides nothing: the plan is the core's, and the connection's state is the
/// ``ServerConnection``'s, which it tells when a response ends.
struct ExchangeDelivery {
    let server: ServerContext
    let connection: ServerConnection
    /// The request handler's context: responses go through the HTTP encoder from there.
    let context: ChannelHandlerContext
    /// The request answered.
    let head: HTTPRequestHead

    /// Carries out what the core resolved, after the delay it planned.
    func deliver(_ exchange: ResolvedExchange) {
        guard exchange.delay > 0 else { return answer(exchange) }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .saturatingSeconds(exchange.delay)) {
            loopBound.value.answer(exchange)
        }
    }

    private func answer(_ exchange: ResolvedExchange) {
        switch exchange.action {
        case .respond(let planned):
            if case .bytes(let body) = planned.body {
                // Bytes in memory are answered while the request is read: no task for the event
                // loop, and the pipelining handler never has to hold the connection's reads back.
                return send(planned, body: .success(body), recorder: exchange.recorder)
            }
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            // Files are read off the event loop.
            planned.body.load(for: exchange.stub) { result in
                eventLoop.execute {
                    loopBound.value.send(planned, body: result, recorder: exchange.recorder)
                }
            }
        case .fault(let fault):
            misbehave(fault, recorder: exchange.recorder)
        case .fail:
            // The core turns errors into faults for sockets; should one arrive, a reset is the closest.
            misbehave(.connectionReset, recorder: exchange.recorder)
        case .stop(let message):
            respond(status: 500, headers: [.contentType: "text/plain"], body: Data((message + "\n").utf8))
        case .forward:
            preconditionFailure("the request handler relays forwarded requests itself")
        }
    }

    // MARK: Responses

    private func send(_ planned: PlannedResponse, body: Result<Data, ExchangeFailure>, recorder: ExchangeRecorder) {
        switch body {
        case .failure(let failure):
            recorder.record(.failure(failure.description))
            report(status: 500, fault: nil, recorder: recorder)
            respond(status: 500, headers: [.contentType: "text/plain"], body: Data((failure.description + "\n").utf8))
        case .success(let body):
            recorder.record(.response(status: planned.status), headers: planned.headers, body: body, bodyIsEncoded: !planned.bodyIsDecoded)
            if let dribble = planned.dribble, body.count > 1 {
                return sendInPieces(body, planned: planned, plan: dribble, recorder: recorder)
            }
            report(status: planned.status, fault: nil, recorder: recorder)
            respond(status: planned.status, headers: planned.wireHeaders, body: body)
        }
    }

    /// Sends the answer a passthrough relay received (or its `502`), already recorded.
    func relay(_ answer: PassthroughRelay.Answer, recorder: ExchangeRecorder) {
        report(status: answer.status, fault: nil, recorder: recorder)
        respond(status: answer.status, headers: answer.headers, body: answer.body)
    }

    /// Writes a complete response and keeps or closes the connection.
    func respond(status: Int, headers: HTTPFields, body: Data, closing: Bool = false) {
        let keepAlive = head.isKeepAlive && !closing
        context.write(NIOAny(HTTPServerResponsePart.head(responseHead(status: status, headers: headers, bodySize: body.count, keepAlive: keepAlive))), promise: nil)
        // HEAD responses, 204 and 304 carry no body (the Content-Length still describes it).
        if !body.isEmpty, head.method != .HEAD, status != 204, status != 304 {
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        }
        connection.endResponse(keepAlive: keepAlive, in: context)
    }

    /// A request body over the cap: `413` with how to raise it, then the connection closes.
    func rejectOversizedBody(limit: Int) {
        let message = "Airlock: the request body is larger than this server accepts (\(limit) bytes). Raise the limit with "
            + "MockServer.Configuration(maxRequestBodySize:) or `airlock serve --max-body-size <bytes>`.\n"
        respond(status: 413, headers: [.contentType: "text/plain"], body: Data(message.utf8), closing: true)
    }

    private func responseHead(status: Int, headers: HTTPFields, bodySize: Int, keepAlive: Bool) -> HTTPResponseHead {
        // Every field as given, in order, repeated names kept (two Set-Cookie stay two).
        var fields = HTTPHeaders(headers.map { ($0.name.rawName, $0.value) })
        if status == 204 || status == 304 || (100..<200).contains(status) {
            // No body follows, and a length would describe one that does not (RFC 9110 §8.6).
            fields.remove(name: "Content-Length")
        } else {
            fields.replaceOrAdd(name: "Content-Length", value: "\(bodySize)")
        }
        if !keepAlive { fields.replaceOrAdd(name: "Connection", value: "close") }
        return HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: fields)
    }

    /// Sends the head, then the body in the plan's pieces.
    private func sendInPieces(_ body: Data, planned: PlannedResponse, plan: DribblePlan, recorder: ExchangeRecorder) {
        let keepAlive = head.isKeepAlive
        let responseHead = responseHead(status: planned.status, headers: planned.wireHeaders, bodySize: body.count, keepAlive: keepAlive)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.head(responseHead)), promise: nil)
        let (pieces, interval) = plan.pieces(of: body)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        for (index, piece) in pieces.enumerated() {
            let isLast = index == pieces.count - 1
            context.eventLoop.scheduleTask(in: .saturatingSeconds(interval * Double(index))) {
                let delivery = loopBound.value
                let context = delivery.context
                guard context.channel.isActive else { return }
                context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: piece)))), promise: nil)
                guard isLast else { return context.flush() }
                delivery.connection.endResponse(keepAlive: keepAlive, in: context)
                delivery.report(status: planned.status, fault: nil, recorder: recorder)
            }
        }
    }

    // MARK: Faults

    /// Misbehaves on the wire as the fault says.
    private func misbehave(_ fault: MockResponse.Fault, recorder: ExchangeRecorder) {
        recorder.record(.fault(fault))
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

    private func report(status: Int?, fault: String?, recorder: ExchangeRecorder) {
        guard let handler = server.configuration.exchangeHandler else { return }
        let duration = Date().timeIntervalSince(recorder.started)
        // The console and logs see the target through the mock's redaction.
        let target = server.registry.journal.redaction.url(head.uri)
        handler(MockServer.Exchange(method: head.method.rawValue, target: target, status: status, fault: fault, duration: duration))
    }
}

@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOSSL

/// Delivers what the core decides for each request of one connection onto the channel.
///
/// It sits behind SwiftNIO's standard server pipeline (`configureHTTPServerPipeline` with
/// pipelining assistance and error handling), which hands it one request at a time, holds
/// pipelined requests back until the previous response has ended, and answers malformed requests
/// with `400`. The handler collects the body (up to the configured cap), asks the registry to
/// resolve the request, and carries out the plan: every decision is the core's.
///
/// A connection that ends after a response ends gracefully (RFC 9112 §9.6): closing at once while
/// the client is still sending (a body over the cap, bytes after a malformed request, pipelined
/// requests after `Connection: close`) makes the kernel answer with a reset, which can destroy the
/// response before the client reads it. See ``closeAfterLastResponse(_:)``.
final class MockServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    enum State {
        case idle
        case receiving(HTTPRequestHead, ByteBuffer?)
        /// The last response is sent or on its way and the connection is closing: whatever the
        /// client still sends is read and dropped.
        case closing
    }

    /// How long a closing connection waits for the client to close its side before closing anyway.
    static let lingeringCloseTimeout = TimeAmount.seconds(5)

    private let context: ServerContext
    var state = State.idle
    /// Whether ``closeAfterLastResponse(_:)`` has begun closing the connection.
    private var isClosingOutput = false
    /// Whether the connection has become a CONNECT tunnel, whose requests name their own host.
    private var isTunnel = false

    init(context: ServerContext) {
        self.context = context
    }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (_, .closing):
            break
        case (.head(let head), _):
            let declared = head.headers.first(name: "Content-Length").flatMap(Int.init) ?? 0
            guard declared <= context.configuration.maxRequestBodySize else { return reject(head, in: channelContext) }
            state = .receiving(head, nil)
        case (.body(var chunk), .receiving(let head, var body)):
            guard (body?.readableBytes ?? 0) + chunk.readableBytes <= context.configuration.maxRequestBodySize else {
                return reject(head, in: channelContext)
            }
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
            state = .receiving(head, body)
        case (.end, .receiving(let head, let body)):
            state = .idle
            dispatch(head, body: body.map { Data($0.readableBytesView) }, in: channelContext)
        case (.body, _), (.end, _):
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch (error, state) {
        case (is HTTPParserError, _):
            // The pipeline's error handler has just written a 400; let the client read it.
            closeAfterLastResponse(context)
        case (is ByteToMessageDecoderError, .closing):
            // More bytes after a malformed request: read only to be dropped.
            break
        case (let error as NIOSSLError, _):
            // Most often a client that does not trust the CA: say which file to trust.
            if case .handshakeFailed = error, let authority = self.context.tls?.authority {
                self.context.configuration.logger.notice(
                    "Airlock: a TLS handshake failed (\(error)). If the client rejected the certificate, have it trust the Airlock CA at \(authority.certificateFile.path)."
                )
            }
            context.close(promise: nil)
        default:
            context.close(promise: nil)
        }
    }

    /// Ends the connection once the response in flight is out, without destroying it: closes the
    /// sending side (the client reads the response, then end of file), reads and drops whatever
    /// the client still sends, and closes completely when the client closes or after
    /// ``lingeringCloseTimeout``. Closing at once with the client's bytes unread would make the
    /// kernel send a reset instead (RFC 9112 §9.6, "Tear-down").
    func closeAfterLastResponse(_ channelContext: ChannelHandlerContext) {
        state = .closing
        guard !isClosingOutput else { return }
        isClosingOutput = true
        let channel = channelContext.channel
        // Shutting the output down waits for the writes already queued.
        let outputClosed = channelContext.eventLoop.makePromise(of: Void.self)
        channelContext.close(mode: .output, promise: outputClosed)
        outputClosed.futureResult.whenFailure { _ in channel.close(promise: nil) }
        let deadline = channel.eventLoop.scheduleTask(in: Self.lingeringCloseTimeout) { channel.close(promise: nil) }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
    }

    // MARK: Routing

    private func dispatch(_ head: HTTPRequestHead, body: Data?, in channelContext: ChannelHandlerContext) {
        if head.method == .CONNECT {
            return connect(head, in: channelContext)
        }
        if head.uri.hasPrefix(AdminAPI.prefix) {
            let answer = AdminAPI(context: context, localPort: channelContext.channel.localAddress?.port ?? 0).handle(head, body: body)
            return respond(status: answer.status, headers: [.contentType: "application/json"], body: answer.body, to: head, in: channelContext)
        }
        // A reverse proxy (`airlock record --target`) takes origin-form requests as addressed to
        // its upstream; absolute-form targets and tunnels keep the host they name.
        let upstream = isTunnel || !head.uri.hasPrefix("/") ? nil : context.configuration.upstream
        let hostHeader = upstream.map(Self.authority) ?? head.headers.first(name: "Host")
        let target = upstream.map { Self.basePath($0) + head.uri } ?? head.uri
        let scheme = upstream?.scheme ?? (isSecure(channelContext) ? "https" : "http")
        guard var incoming = IncomingRequest(method: head.method.rawValue, target: target, hostHeader: hostHeader, scheme: scheme) else {
            let message = "Airlock: cannot parse the request target \(head.uri) with Host \(head.headers.first(name: "Host") ?? "(none)")."
                + " Send an origin-form target (/path?query) with a Host header, or an absolute URL (proxy mode).\n"
            return respond(status: 400, headers: [.contentType: "text/plain"], body: Data(message.utf8), to: head, in: channelContext, closing: true)
        }
        incoming.headers = head.headers.map { field in
            (name: field.name, value: upstream != nil && field.name.lowercased() == "host" ? hostHeader ?? field.value : field.value)
        }
        incoming.body = body
        if upstream == nil, !isTunnel, head.uri.hasPrefix("/"), let local = channelContext.channel.localAddress {
            incoming.isAddressedToServer = IncomingRequest.isAddressedToServer(
                hostHeader: head.headers.first(name: "Host"),
                port: local.port ?? 0,
                boundAddress: local.ipAddress
            )
        }
        let exchange = context.registry.resolve(incoming, for: context.transport)
        exchange.deliver(to: ExchangeWriter(handler: self, context: channelContext, head: head, incoming: incoming, recorder: exchange.recorder))
    }

    // MARK: Writing responses

    /// Writes a complete response and keeps or closes the connection.
    func respond(
        status: Int,
        headers: HTTPFields,
        body: Data,
        to head: HTTPRequestHead,
        in channelContext: ChannelHandlerContext,
        closing: Bool = false
    ) {
        let keepAlive = head.isKeepAlive && !closing
        channelContext.write(wrapOutboundOut(.head(responseHead(status: status, headers: headers, bodySize: body.count, for: head, keepAlive: keepAlive))), promise: nil)
        writeBody(body, status: status, for: head, in: channelContext)
        endResponse(keepAlive: keepAlive, in: channelContext)
    }

    /// Writes a piece of a response's body, unless the response carries none: HEAD responses,
    /// 204 and 304 (their Content-Length still describes it).
    func writeBody(_ piece: Data, status: Int, for head: HTTPRequestHead, in channelContext: ChannelHandlerContext) {
        guard !piece.isEmpty, head.method != .HEAD, status != 204, status != 304 else { return }
        channelContext.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: piece)))), promise: nil)
    }

    /// Ends the response, then keeps the connection or closes it gracefully.
    func endResponse(keepAlive: Bool, in channelContext: ChannelHandlerContext) {
        // Set before writing: ending the response lets the pipeline hand over the next request.
        if !keepAlive { state = .closing }
        channelContext.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if !keepAlive {
            closeAfterLastResponse(channelContext)
        }
    }

    func responseHead(status: Int, headers: HTTPFields, bodySize: Int, for head: HTTPRequestHead, keepAlive: Bool) -> HTTPResponseHead {
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

    /// A request body over the cap: 413 with how to raise it, then the connection closes.
    private func reject(_ head: HTTPRequestHead, in channelContext: ChannelHandlerContext) {
        let limit = context.configuration.maxRequestBodySize
        let message = "Airlock: the request body is larger than this server accepts (\(limit) bytes). Raise the limit with "
            + "MockServer.Configuration(maxRequestBodySize:) or `airlock serve --max-body-size <bytes>`.\n"
        respond(status: 413, headers: [.contentType: "text/plain"], body: Data(message.utf8), to: head, in: channelContext, closing: true)
    }

    // MARK: Faults

    /// Misbehaves on the wire as the fault says.
    func actOut(_ fault: MockResponse.Fault, head: HTTPRequestHead, recorder: ExchangeRecorder, in channelContext: ChannelHandlerContext) {
        report(head, status: nil, fault: fault.description, recorder: recorder)
        let channel = channelContext.channel
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
            writeRaw(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\nZZZ\r\nnot a chunk\r\n".utf8), thenClose: channelContext)
        case .randomBytesThenClose:
            writeRaw(Data((0..<64).map { _ in UInt8.random(in: 0...255) }), thenClose: channelContext)
        }
    }

    /// Writes bytes as they are, below the HTTP encoder, then closes.
    private func writeRaw(_ bytes: Data, thenClose channelContext: ChannelHandlerContext) {
        let channel = channelContext.channel
        guard let encoder = try? channelContext.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
            return channel.close(promise: nil)
        }
        encoder.writeAndFlush(NIOAny(ByteBuffer(bytes: bytes))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func report(_ head: HTTPRequestHead, status: Int?, fault: String?, recorder: ExchangeRecorder) {
        guard let handler = context.configuration.exchangeHandler else { return }
        let duration = Date().timeIntervalSince(recorder.started)
        // The console and logs see the target through the mock's redaction.
        let target = context.registry.journal.redaction.url(head.uri)
        handler(MockServer.Exchange(method: head.method.rawValue, target: target, status: status, fault: fault, duration: duration))
    }

    // MARK: CONNECT tunnels

    /// Whether this connection's requests arrive over TLS (origin-mode HTTPS, or a tunnel whose
    /// TLS the server ends).
    private func isSecure(_ channelContext: ChannelHandlerContext) -> Bool {
        context.tls != nil && (try? channelContext.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)) != nil
    }

    /// A CONNECT tunnel. Clients such as AsyncHTTPClient tunnel even plain-HTTP requests through
    /// their proxy: the server accepts, and the requests that follow in the tunnel are served like
    /// any other (their `Host` header names the original host). With TLS on, a tunnel whose client
    /// starts TLS (to any port) gets it ended here with a certificate for the tunnel's host, and
    /// its requests are served as `https://host/…`. Without TLS, port 443 gets a 501 that says how
    /// to turn it on.
    private func connect(_ head: HTTPRequestHead, in channelContext: ChannelHandlerContext) {
        let (targetHost, port) = Self.connectTarget(head.uri)
        guard port != 443 || context.tls != nil else {
            let message = "Airlock MockServer: HTTPS through CONNECT (\(head.uri)) needs TLS, which is off. Start the server "
                + "with TLS (MockServer.Configuration(tls: .init()), or `airlock serve --tls`) and have the client trust "
                + "its CA (server.httpClientConfiguration(), or `curl --cacert \"$(airlock ca path)\"`)"
                + (CertificateAuthority.canMakeCertificates ? ".\n" : "; this build also needs the package's HTTPS trait (swift run --traits HTTPS airlock …).\n")
            // SwiftNIO's encoder drops the body of any response to CONNECT (RFC 9110 forbids one
            // only on a 2xx): write the refusal below the encoder so the explanation arrives.
            let refusal = "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/plain\r\nContent-Length: \(message.utf8.count)\r\n"
                + "Connection: close\r\n\r\n" + message
            return writeRaw(Data(refusal.utf8), thenClose: channelContext)
        }
        isTunnel = true
        let established = HTTPResponseHead(version: head.version, status: .custom(code: 200, reasonPhrase: "Connection Established"), headers: ["Content-Length": "0"])
        channelContext.write(wrapOutboundOut(.head(established)), promise: nil)
        channelContext.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        let pipeline = channelContext.pipeline.syncOperations
        if let tls = context.tls {
            // The tunnel's first bytes tell TLS from plain HTTP. Inside an HTTPS connection to the
            // server itself, the tunnel's bytes come out of that connection's TLS handler.
            let detector = TLSDetector(termination: tls, fallbackHost: targetHost, logger: context.configuration.logger)
            do {
                if let outer = try? pipeline.handler(type: NIOSSLServerHandler.self) {
                    try pipeline.addHandler(detector, position: .after(outer))
                } else {
                    try pipeline.addHandler(detector, position: .first)
                }
            } catch {
                return channelContext.close(promise: nil)
            }
        }
        // After CONNECT the request decoder stops parsing: give the tunnel a fresh one. A client
        // waits for the 200 before sending into the tunnel, so no request bytes arrive between the two.
        guard let old = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self),
            let pipelining = try? pipeline.handler(type: HTTPServerPipelineHandler.self)
        else { return channelContext.close(promise: nil) }
        let fresh = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes))
        let loopBound = NIOLoopBound((fresh, pipelining, channelContext.pipeline), eventLoop: channelContext.eventLoop)
        pipeline.removeHandler(old).whenComplete { _ in
            let (fresh, pipelining, pipeline) = loopBound.value
            try? pipeline.syncOperations.addHandler(fresh, position: .before(pipelining))
        }
    }

    /// The host and port of a CONNECT target (`host:port`, `[v6]:port`); 443 when no port is given.
    static func connectTarget(_ uri: String) -> (host: String, port: Int) {
        guard let colon = uri.lastIndex(of: ":"), !uri.hasSuffix("]"), let port = Int(uri[uri.index(after: colon)...]) else {
            return (CertificateAuthority.normalized(uri), 443)
        }
        return (CertificateAuthority.normalized(String(uri[..<colon])), port)
    }

    // MARK: Passthrough

    /// Sends an unmatched request to its real host (the `.passthrough` policy, and recording) and
    /// relays the answer.
    func forward(_ incoming: IncomingRequest, head: HTTPRequestHead, recording: Bool, recorder: ExchangeRecorder, in channelContext: ChannelHandlerContext) {
        var fields: [(name: String, value: String)] = []
        for field in head.headers where !Self.hopByHop.contains(field.name.lowercased()) {
            if recording, field.name.lowercased() == "accept-encoding" {
                // A recording keeps bodies as the server sends them, and must read them to redact
                // secrets: it offers the server only the codings Airlock reads (gzip, deflate).
                fields.append((field.name, ContentCoding.readable(acceptEncoding: field.value)))
                continue
            }
            fields.append((field.name, field.value))
        }
        let future = context.forwarder.execute(
            method: head.method,
            url: incoming.url,
            headers: fields,
            body: incoming.body,
            limit: context.configuration.maxRequestBodySize,
            timeout: .seconds(60)
        )
        let loopBound = NIOLoopBound((self, channelContext), eventLoop: channelContext.eventLoop)
        future.hop(to: channelContext.eventLoop).whenComplete { result in
            let (handler, channelContext) = loopBound.value
            switch result {
            case .success(let response):
                let (status, fields, buffer) = (response.status, response.headers, response.body)
                // Every field in order, repeated ones apart; the body as received (still in any
                // content coding the server applied), so the client gets what the server sent.
                let headers = HTTPFields(pairs: fields.lazy.filter { !Self.hopByHop.contains($0.name.lowercased()) && $0.name.lowercased() != "content-length" }.map { (name: $0.name, value: $0.value) })
                let body = Data(buffer.readableBytesView)
                recorder.record(.response(status: Int(status.code)), headers: headers, body: body, bodyIsEncoded: true)
                handler.report(head, status: Int(status.code), fault: nil, recorder: recorder)
                handler.respond(status: Int(status.code), headers: headers, body: body, to: head, in: channelContext)
            case .failure(let error):
                let message = "Airlock: passthrough to \(incoming.url) failed: \(error)\n"
                recorder.record(.failure(message))
                handler.report(head, status: 502, fault: nil, recorder: recorder)
                handler.respond(status: 502, headers: [.contentType: "text/plain"], body: Data(message.utf8), to: head, in: channelContext)
            }
        }
    }

    /// `host[:port]` of an upstream URL, as a `Host` header names it.
    private static func authority(_ url: URL) -> String {
        let host = url.host ?? "localhost"
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return url.port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// The upstream's path prefix without its trailing `/` (`https://host/v1/` → `/v1`).
    private static func basePath(_ url: URL) -> String {
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// Connection-level fields that a proxy does not pass on.
    private static let hopByHop: Set<String> = ["host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization"]
}

extension TimeAmount {
    /// A number of seconds as a time amount, without a conversion that could trap: the core caps
    /// delays at ``ResponseLimits/maximumSeconds``, and anything else still saturates instead of
    /// crashing.
    static func saturatingSeconds(_ seconds: Double) -> TimeAmount {
        let nanoseconds = (seconds * 1_000_000_000).rounded()
        guard nanoseconds.isFinite, nanoseconds > 0 else { return .zero }
        return nanoseconds < 9.0e18 ? .nanoseconds(Int64(nanoseconds)) : .nanoseconds(9_000_000_000_000_000_000)
    }
}

import Foundation
import HTTPMock
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers the requests of one connection from the served mock's registry: one request at a
/// time, keep-alive unless the client asks to close.
final class MockServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let context: ServerContext
    private let encoder: HTTPResponseEncoder
    private var decoder: ByteToMessageHandler<HTTPRequestDecoder>
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(context: ServerContext, encoder: HTTPResponseEncoder, decoder: ByteToMessageHandler<HTTPRequestDecoder>) {
        self.context = context
        self.encoder = encoder
        self.decoder = decoder
    }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            self.head = nil
            let bytes = body.readableBytes > 0 ? Data(body.readableBytesView) : nil
            handle(head, body: bytes, in: channelContext)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: Routing

    private func handle(_ head: HTTPRequestHead, body: Data?, in channelContext: ChannelHandlerContext) {
        let started = Date()
        if head.method == .CONNECT {
            return connect(head, in: channelContext)
        }
        if head.uri.hasPrefix(AdminAPI.prefix) {
            let answer = AdminAPI(context: context).handle(head, body: body)
            return respond(status: answer.status, headers: [("Content-Type", "application/json")], body: answer.body, head: head, in: channelContext)
        }
        guard let incoming = Self.incomingRequest(head, body: body) else {
            return respond(status: 400, headers: [("Content-Type", "text/plain")], body: Data("Airlock MockServer: cannot parse the request target \(head.uri)\n".utf8), head: head, in: channelContext)
        }
        let registry = context.mock.registry
        switch registry.respond(to: incoming, at: started) {
        case .matched(let response, _, let sequence):
            serve(response, head: head, journal: JournalEntry(registry: registry, sequence: sequence, started: started), in: channelContext)
        case .unmatched(.notFound, let message, let sequence):
            serve(.unmatched(message), head: head, journal: JournalEntry(registry: registry, sequence: sequence, started: started), in: channelContext)
        case .unmatched(.mock(let response), _, let sequence):
            serve(response, head: head, journal: JournalEntry(registry: registry, sequence: sequence, started: started), in: channelContext)
        case .unmatched(.fatalError, let message, let sequence):
            // A server stays up for its other clients: the strict policy answers 500 instead.
            let failure = MockResponse.plaintext(message + "\n(unmockedPolicy is .fatalError)\n", status: .internalServerError)
            serve(failure, head: head, journal: JournalEntry(registry: registry, sequence: sequence, started: started), in: channelContext)
        case .unmatched(.passthrough, _, let sequence):
            passthrough(incoming, head: head, body: body, journal: JournalEntry(registry: registry, sequence: sequence, started: started), in: channelContext)
        }
    }

    /// A CONNECT tunnel. Clients such as AsyncHTTPClient tunnel even plain-HTTP requests through
    /// their proxy: for a port other than 443 the server accepts, and the requests that follow
    /// in the tunnel are served like any other (their `Host` header names the original host).
    /// HTTPS would need TLS termination, which the server does not do yet: 443 gets a 501 that
    /// says so.
    private func connect(_ head: HTTPRequestHead, in channelContext: ChannelHandlerContext) {
        let port = head.uri.split(separator: ":").last.flatMap { Int($0) } ?? 443
        guard port != 443 else {
            var notImplemented = head
            notImplemented.headers.replaceOrAdd(name: "Connection", value: "close")
            return respond(
                status: 501,
                headers: [("Content-Type", "text/plain")],
                body: Data((
                    "Airlock MockServer: HTTPS through CONNECT (\(head.uri)) is not supported yet. Call the server "
                        + "in origin mode (its baseURL over plain HTTP) or proxy plain-HTTP URLs.\n"
                ).utf8),
                head: notImplemented,
                in: channelContext
            )
        }
        var fields = HTTPHeaders()
        fields.add(name: "Content-Length", value: "0")
        let established = HTTPResponseHead(version: head.version, status: .custom(code: 200, reasonPhrase: "Connection Established"), headers: fields)
        channelContext.write(wrapOutboundOut(.head(established)), promise: nil)
        channelContext.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        // After CONNECT the request decoder only forwards raw bytes: give the tunnel a fresh one.
        let fresh = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
        let old = decoder
        decoder = fresh
        let pipeline = channelContext.pipeline
        let loopBound = NIOLoopBound((fresh, self), eventLoop: channelContext.eventLoop)
        // A client waits for the 200 before sending into the tunnel, so no request bytes arrive
        // between the two decoders.
        pipeline.syncOperations.removeHandler(old).whenComplete { _ in
            let (fresh, handler) = loopBound.value
            try? pipeline.syncOperations.addHandler(fresh, position: .before(handler))
        }
    }

    /// The request as the core sees it: absolute-form targets (proxy mode) carry their host,
    /// origin-form targets take it from the `Host` header.
    static func incomingRequest(_ head: HTTPRequestHead, body: Data?) -> IncomingRequest? {
        let absolute = head.uri.hasPrefix("http://") || head.uri.hasPrefix("https://")
        let hostHeader = head.headers.first(name: "Host") ?? "localhost"
        let address = absolute ? head.uri : "http://\(hostHeader)\(head.uri.hasPrefix("/") ? "" : "/")\(head.uri)"
        guard let components = URLComponents(string: address), let host = components.host else { return nil }
        var request = IncomingRequest(
            method: head.method.rawValue,
            url: address,
            host: host,
            path: components.path,
            query: components.percentEncodedQuery
        )
        request.headers = head.headers.map { (name: $0.name, value: $0.value) }
        request.body = body
        return request
    }

    // MARK: Serving a mocked response

    private func serve(_ response: MockResponse, head: HTTPRequestHead, journal: JournalEntry, in channelContext: ChannelHandlerContext) {
        let delay = response.delivery.seconds
        let loopBound = NIOLoopBound((self, channelContext), eventLoop: channelContext.eventLoop)
        let act: @Sendable () -> Void = {
            let (handler, channelContext) = loopBound.value
            handler.act(response, head: head, journal: journal, in: channelContext)
        }
        if delay > 0 {
            channelContext.eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1_000_000_000))) { act() }
        } else {
            act()
        }
    }

    private func act(_ response: MockResponse, head: HTTPRequestHead, journal: JournalEntry, in channelContext: ChannelHandlerContext) {
        let body: Data
        switch response.body {
        case .data(let data):
            body = data
        case .file(let url):
            do {
                body = try Data(contentsOf: url)
            } catch {
                let message = "Airlock MockServer: the stub's file \(url.path) cannot be read: \(error.localizedDescription)\n"
                return respond(status: 500, headers: [("Content-Type", "text/plain")], body: Data(message.utf8), head: head, journal: journal, in: channelContext)
            }
        case .failure(let problem):
            return respond(status: 500, headers: [("Content-Type", "text/plain")], body: Data("Airlock MockServer: the stub cannot be served: \(problem)\n".utf8), head: head, journal: journal, in: channelContext)
        case .error:
            // A socket has no way to carry a Swift error: the closest is a reset connection.
            return actOut(.connectionReset, head: head, journal: journal, in: channelContext)
        case .fault(let fault):
            return actOut(fault, head: head, journal: journal, in: channelContext)
        }
        let headers = response.headers.map { ($0.key, $0.value) }
        if let dribble = response.dribble, body.count > 1 {
            return dribbleOut(body, status: response.status.code, headers: headers, chunks: dribble.chunks, over: dribble.seconds, head: head, journal: journal, in: channelContext)
        }
        respond(status: response.status.code, headers: headers, body: body, head: head, journal: journal, in: channelContext)
    }

    /// Writes a complete response and keeps or closes the connection.
    private func respond(
        status: Int,
        headers: [(String, String)],
        body: Data,
        head: HTTPRequestHead,
        journal: JournalEntry? = nil,
        in channelContext: ChannelHandlerContext
    ) {
        var fields = HTTPHeaders(headers)
        fields.replaceOrAdd(name: "Content-Length", value: "\(body.count)")
        let keepAlive = head.isKeepAlive
        if !keepAlive { fields.replaceOrAdd(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: fields)
        channelContext.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        // HEAD responses, 204 and 304 carry no body (the Content-Length still describes it).
        if !body.isEmpty, head.method != .HEAD, status != 204, status != 304 {
            channelContext.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        }
        let done = channelContext.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            done.whenComplete { [channel = channelContext.channel] _ in channel.close(promise: nil) }
        }
        journal?.record(status: status, headers: Dictionary(headers, uniquingKeysWith: { $1 }), body: body)
        report(head, status: status, fault: nil, journal: journal)
    }

    /// Sends the head, then the body in pieces spread over `seconds`.
    private func dribbleOut(
        _ body: Data,
        status: Int,
        headers: [(String, String)],
        chunks: Int,
        over seconds: TimeInterval,
        head: HTTPRequestHead,
        journal: JournalEntry,
        in channelContext: ChannelHandlerContext
    ) {
        var fields = HTTPHeaders(headers)
        fields.replaceOrAdd(name: "Content-Length", value: "\(body.count)")
        channelContext.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: fields))), promise: nil)
        let pieces = min(chunks, body.count)
        let size = (body.count + pieces - 1) / pieces
        let interval = pieces > 1 ? seconds / Double(pieces - 1) : 0
        let loopBound = NIOLoopBound((self, channelContext), eventLoop: channelContext.eventLoop)
        for index in 0..<pieces {
            let piece = body.subdata(in: index * size..<min(body.count, (index + 1) * size))
            let isLast = index == pieces - 1
            channelContext.eventLoop.scheduleTask(in: .nanoseconds(Int64(interval * Double(index) * 1_000_000_000))) {
                let (handler, channelContext) = loopBound.value
                guard channelContext.channel.isActive else { return }
                channelContext.write(handler.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: piece)))), promise: nil)
                if isLast {
                    channelContext.writeAndFlush(handler.wrapOutboundOut(.end(nil)), promise: nil)
                    journal.record(status: status, headers: Dictionary(headers, uniquingKeysWith: { $1 }), body: body)
                    handler.report(head, status: status, fault: nil, journal: journal)
                } else {
                    channelContext.flush()
                }
            }
        }
    }

    /// Misbehaves on the wire as the fault says.
    private func actOut(_ fault: MockResponse.Fault, head: HTTPRequestHead, journal: JournalEntry, in channelContext: ChannelHandlerContext) {
        journal.record(failure: "fault \(fault)")
        report(head, status: nil, fault: fault.description, journal: journal)
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

    /// Takes the HTTP encoder out of the pipeline and writes bytes as they are.
    private func writeRaw(_ bytes: Data, thenClose channelContext: ChannelHandlerContext) {
        let channel = channelContext.channel
        let loopBound = NIOLoopBound(channelContext, eventLoop: channelContext.eventLoop)
        channelContext.pipeline.syncOperations.removeHandler(encoder).whenComplete { _ in
            loopBound.value.writeAndFlush(NIOAny(ByteBuffer(bytes: bytes))).whenComplete { _ in
                channel.close(promise: nil)
            }
        }
    }

    private func report(_ head: HTTPRequestHead, status: Int?, fault: String?, journal: JournalEntry?) {
        guard let handler = context.configuration.exchangeHandler else { return }
        let duration = journal.map { Date().timeIntervalSince($0.started) } ?? 0
        handler(MockServer.Exchange(method: head.method.rawValue, target: head.uri, status: status, fault: fault, duration: duration))
    }

    // MARK: Passthrough

    private func passthrough(_ incoming: IncomingRequest, head: HTTPRequestHead, body: Data?, journal: JournalEntry, in channelContext: ChannelHandlerContext) {
        guard let url = URL(string: incoming.url) else {
            return respond(status: 400, headers: [], body: Data(), head: head, journal: journal, in: channelContext)
        }
        var request = URLRequest(url: url)
        request.httpMethod = incoming.method
        request.httpBody = body
        for field in head.headers where !["host", "content-length", "connection"].contains(field.name.lowercased()) {
            request.addValue(field.value, forHTTPHeaderField: field.name)
        }
        let session = context.mock.passthroughSession
        let loopBound = NIOLoopBound((self, channelContext), eventLoop: channelContext.eventLoop)
        let eventLoop = channelContext.eventLoop
        let task = session.dataTask(with: request) { data, response, error in
            eventLoop.execute {
                let (handler, channelContext) = loopBound.value
                guard let http = response as? HTTPURLResponse, error == nil else {
                    let message = "Airlock MockServer: passthrough to \(incoming.url) failed: \(error?.localizedDescription ?? "no response")\n"
                    return handler.respond(status: 502, headers: [("Content-Type", "text/plain")], body: Data(message.utf8), head: head, journal: journal, in: channelContext)
                }
                let headers = http.allHeaderFields.compactMap { name, value -> (String, String)? in
                    let name = "\(name)"
                    return ["content-length", "transfer-encoding", "connection"].contains(name.lowercased()) ? nil : (name, "\(value)")
                }
                handler.respond(status: http.statusCode, headers: headers, body: data ?? Data(), head: head, journal: journal, in: channelContext)
            }
        }
        task.resume()
    }
}

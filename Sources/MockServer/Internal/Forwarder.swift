import AirlockBase
import AirlockCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// Sends a request on to its real host — the `.passthrough` policy and recording — over SwiftNIO's
/// own HTTP/1.1 client pipeline: one connection per request, TLS with the system's trust roots —
/// and any certificates the server was told to trust besides (``init(trusting:)``) — for `https`
/// (the host's certificate and name verified), and the answer handed on as it arrives
/// (status, every field in order, the body's bytes in any content coding the server applied).
///
/// A body with a `Content-Length` (or none at all) is collected and handed on whole. A body
/// without one — chunked, or ended by the server closing — is a stream: its head is handed on at
/// once and each piece as it arrives, so that a client of server-sent events sees each event when
/// the real host sends it, not when the stream ends. A stream goes no faster than its client
/// reads: while the client's connection is not writable, the relay stops reading the real host
/// (`autoRead` off: ``RelayWritingHandler``), so a slow client never makes the server hold the
/// stream.
///
/// A request its client sent over HTTP/2 goes on over HTTP/2 when the real host speaks it: an
/// `https` host that picks `h2` by ALPN, or — for gRPC, which has no HTTP/1.1 form — an `http`
/// host with prior knowledge. The stream's channel carries SwiftNIO's HTTP/1 view of it
/// (`HTTP2FramePayloadToHTTP1ClientCodec`), so the relay behind it is the same, trailers included.
///
/// A mock server forwards a few requests, one at a time, to hosts that differ: a pool and
/// redirects would buy nothing, and a full HTTP client would cost every build of the server.
final class Forwarder: Sendable {
    /// Which protocol a forward speaks to the real host.
    enum UpstreamProtocol: Sendable {
        /// HTTP/1.1.
        case http1
        /// HTTP/2 where the host picks it by ALPN (`https`); HTTP/1.1 otherwise.
        case http2IfOffered
        /// HTTP/2: by ALPN for `https` (HTTP/1.1 if the host does not pick it), with prior
        /// knowledge for `http` (gRPC).
        case http2
    }

    /// What the real host answered, whole.
    struct Response: Sendable {
        /// The protocol the host answered over.
        let version: HTTPVersion
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let body: ByteBuffer
        /// The fields that followed the body, if any (gRPC's status).
        var trailers: HTTPHeaders? = nil
    }

    /// What arrives from the real host, in order, each on the forwarding connection's event loop;
    /// the last is `whole`, `end`, `failed` or `cancelled`.
    ///
    /// The one vocabulary of a relay: the forwarding connection's ``ResponseRelay`` fires each
    /// event down its pipeline, and each handler after it does one thing with it and passes it
    /// on (the mock server's: record it, then write it to the client), as SwiftNIO's
    /// `HTTPServerProtocolErrorHandler` watches `.head`, `.body` and `.end` and passes them on.
    /// A piece is the `ByteBuffer` the connection read, passed on as it is.
    enum Event: Sendable {
        /// The whole answer: a body with a length, or no body.
        case whole(Response)
        /// The head of a stream (a body without a length): its pieces follow as they arrive.
        case streamHead(HTTPResponseHead)
        /// A piece of a stream's body, as it arrived.
        case piece(ByteBuffer)
        /// The stream ended, with the fields that followed its body, if any (gRPC's status).
        case end(trailers: HTTPHeaders?)
        /// Forwarding failed: before the head, or in the middle of a stream.
        case failed(Failure)
        /// ``Forward/cancel()`` stopped it (the client went away).
        case cancelled
    }

    /// Why forwarding failed; the description is what the client's `502` says.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The last handler of a forward that calls a closure with each ``Event``, on the forward's
    /// event loop, in order (a cassette's live verification collects its answers so).
    final class EventCallback: ChannelInboundHandler {
        typealias InboundIn = Event

        private let events: @Sendable (Event) -> Void

        init(_ events: @escaping @Sendable (Event) -> Void) {
            self.events = events
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            events(unwrapInboundIn(data))
        }
    }

    /// One forwarded request, to stop when its client goes away. Only a stream is stopped: a whole
    /// answer is still collected (and recorded) when its client has left, as a recording proxy
    /// always did.
    struct Forward: Sendable {
        fileprivate let relay: NIOLoopBound<ResponseRelay>

        /// Closes the connection to the real host if it carries a stream (now, or as soon as one
        /// begins); from any thread.
        func cancel() {
            let relay = relay
            if relay.eventLoop.inEventLoop {
                relay.value.cancel()
            } else {
                relay.eventLoop.execute { relay.value.cancel() }
            }
        }
    }

    /// Made on first use (reading the system's trust roots takes a moment), then shared: one
    /// offering HTTP/1.1 alone, one offering h2 first.
    private let clientTLS = Locked<NIOSSLContext?>(nil)
    private let clientTLSOfferingHTTP2 = Locked<NIOSSLContext?>(nil)
    /// Trusted for `https` hosts besides the system's roots.
    private let additionalTrustRoots: [NIOSSLCertificate]

    /// A forwarder; each forward runs on the event loop its caller names.
    /// - Parameter certificates: Trusted for `https` hosts besides the system's roots (a staging
    ///   server's private CA).
    init(trusting certificates: [NIOSSLCertificate] = []) {
        additionalTrustRoots = certificates
    }

    /// A file of certificates to trust that cannot be used: which, and why.
    struct UnusableTrust: Error {
        let file: String
        let reason: String
    }

    /// The certificates of PEM files, to trust besides the system's roots; each file must hold at
    /// least one.
    /// - Throws: ``UnusableTrust``, naming the file that cannot be read or holds no certificate.
    static func certificates(in files: [URL]) throws(UnusableTrust) -> [NIOSSLCertificate] {
        var certificates: [NIOSSLCertificate] = []
        for file in files {
            let bytes: [UInt8]
            do {
                bytes = Array(try Data(contentsOf: file))
            } catch {
                throw UnusableTrust(file: file.path, reason: "it cannot be read (\(error.localizedDescription))")
            }
            let found = (try? NIOSSLCertificate.fromPEMBytes(bytes)) ?? []
            guard !found.isEmpty else {
                throw UnusableTrust(file: file.path, reason: "it holds no PEM certificate (a block from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----)")
            }
            certificates += found
        }
        return certificates
    }

    /// Sends `method` `url` with `headers` (the connection's own fields already removed) and
    /// `body` from `eventLoop`, and fires what arrives, as it arrives, down the forwarding
    /// connection's pipeline to the handlers `relayTo` adds after its ``ResponseRelay``.
    ///
    /// - Parameters:
    ///   - limit: The largest body collected whole, in bytes (a stream's pieces are only handed on).
    ///   - timeout: How long a whole answer may take; a stream may take any time as long as no
    ///     more than this passes without a piece (an idle timeout, which waits while the
    ///     connection's reading is paused: a handler after the relay turns `autoRead` off while
    ///     its client is not taking what it is sent).
    ///   - streams: Whether a body without a length is handed on in pieces (`false`: collected
    ///     whole, as any other).
    ///   - eventLoop: The loop the forward runs on: the client's, so that nothing a relay hands
    ///     on crosses threads or takes a lock.
    ///   - upstream: Which protocol to speak to the real host.
    ///   - relayTo: Adds the handlers that take the ``Event``s, on the connection's event loop.
    ///   - unreachable: Told, on `eventLoop`, why no connection could be made (no handler is then
    ///     added).
    /// - Returns: The forward, to cancel when its client leaves.
    @discardableResult
    func execute(
        method: HTTPMethod,
        url: String,
        headers: [(name: String, value: String)],
        body: Data?,
        limit: Int,
        timeout: TimeAmount,
        streams: Bool,
        upstream: UpstreamProtocol = .http1,
        on eventLoop: any EventLoop,
        relayTo: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void,
        unreachable: @escaping @Sendable (Failure) -> Void
    ) -> Forward {
        eventLoop.preconditionInEventLoop()
        let relay = NIOLoopBound(ResponseRelay(method: method, limit: limit, timeout: timeout, streams: streams, origin: ""), eventLoop: eventLoop)
        let forward = Forward(relay: relay)
        guard let endpoint = Endpoint(url) else {
            eventLoop.execute { unreachable(Failure(description: "\(url) is not an http or https URL")) }
            return forward
        }
        relay.value.origin = endpoint.origin

        var head = HTTPRequestHead(version: .http1_1, method: method, uri: endpoint.target)
        head.headers.add(name: "Host", value: endpoint.hostField)
        for field in headers where field.name.lowercased() != "content-length" {
            head.headers.add(name: field.name, value: field.value)
        }
        if let body {
            head.headers.add(name: "Content-Length", value: String(body.count))
        } else if headers.contains(where: { $0.name.lowercased() == "content-length" }) {
            head.headers.add(name: "Content-Length", value: "0")
        }
        head.headers.add(name: "Connection", value: "close")
        let requestHead = head
        let origin = endpoint.origin
        let wantsHTTP2 = upstream == .http2 || (upstream == .http2IfOffered && endpoint.isSecure)

        let addRelay: @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void = { pipeline in
            try pipeline.addHandler(relay.value)
            try relayTo(pipeline)
        }
        connect(to: endpoint, on: eventLoop, timeout: timeout, offeringHTTP2: wantsHTTP2) { channel, negotiatedHTTP2 in
            guard negotiatedHTTP2 ?? (wantsHTTP2 && !endpoint.isSecure) else {
                let pipeline = channel.pipeline.syncOperations
                try pipeline.addHTTPClientHandlers()
                try addRelay(pipeline)
                return channel.eventLoop.makeSucceededFuture(channel)
            }
            return try Self.openStream(on: channel, secure: endpoint.isSecure, addRelay: addRelay)
        }.whenComplete { result in
            switch result {
            case .failure(let error):
                unreachable(Failure(description: "could not connect to \(origin): \(error)"))
            case .success(let channel):
                var head = requestHead
                if channel.parent != nil {
                    // An HTTP/2 stream: no connection-specific fields (RFC 9113 §8.2.2); gRPC's
                    // `TE: trailers` is the one `TE` allowed, and gRPC servers ask for it.
                    head.headers.remove(name: "Connection")
                    if head.headers["content-type"].first?.lowercased().hasPrefix("application/grpc") == true {
                        head.headers.replaceOrAdd(name: "te", value: "trailers")
                    }
                }
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                if let body, !body.isEmpty {
                    channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
                }
                channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { error in
                    relay.value.fail(Failure(description: "could not send the request to \(origin): \(error)"))
                }
            }
        }
        return forward
    }

    /// Puts SwiftNIO's HTTP/2 client handler on a connection and opens the one stream a forward
    /// sends its request on, its relay behind SwiftNIO's HTTP/1 view of the stream. The
    /// connection closes when the stream does.
    private static func openStream(
        on connection: any Channel, secure: Bool, addRelay: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void
    ) throws -> EventLoopFuture<any Channel> {
        let multiplexer = try connection.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .client, connectionConfiguration: .init(), streamConfiguration: .init()
        ) { pushed in
            // A server's pushed or opened stream is never read.
            pushed.close()
        }
        let stream = connection.eventLoop.makePromise(of: (any Channel).self)
        multiplexer.createStreamChannel(promise: stream) { channel in
            channel.eventLoop.makeCompletedFuture {
                let pipeline = channel.pipeline.syncOperations
                try pipeline.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: secure ? .https : .http))
                try addRelay(pipeline)
                channel.closeFuture.whenComplete { _ in connection.close(promise: nil) }
            }
        }
        return stream.futureResult
    }

    /// Connects to `endpoint` on `eventLoop`, TLS first for `https` (the system's trust roots, the
    /// host's name verified), then the handlers `initialize` adds.
    func connect(
        to endpoint: Endpoint,
        on eventLoop: any EventLoop,
        timeout: TimeAmount,
        initialize: @escaping @Sendable (any Channel) throws -> Void
    ) -> EventLoopFuture<any Channel> {
        connect(to: endpoint, on: eventLoop, timeout: timeout, offeringHTTP2: false) { channel, _ in
            try initialize(channel)
            return channel.eventLoop.makeSucceededFuture(channel)
        }
    }

    /// Connects as ``connect(to:on:timeout:initialize:)`` does; with `offeringHTTP2`, TLS offers
    /// `h2` first, and `initialize` is told — once the handshake is done — whether the host picked
    /// it (`nil` without TLS). Its future's channel is the one to send the request on.
    private func connect(
        to endpoint: Endpoint,
        on eventLoop: any EventLoop,
        timeout: TimeAmount,
        offeringHTTP2: Bool,
        initialize: @escaping @Sendable (any Channel, Bool?) throws -> EventLoopFuture<any Channel>
    ) -> EventLoopFuture<any Channel> {
        let tls: NIOSSLContext?
        do {
            tls = endpoint.isSecure ? try clientContext(offeringHTTP2: offeringHTTP2) : nil
        } catch {
            return eventLoop.makeFailedFuture(Failure(description: "TLS could not be set up: \(error)"))
        }
        let serverName = endpoint.serverName
        // The channel to send on once its handlers are in (right away, or once TLS has said which
        // protocol the host picked); handed on only once the connection is made, so that nothing
        // is written to a socket still connecting.
        let ready = eventLoop.makePromise(of: (any Channel).self)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    guard let tls else {
                        return ready.completeWith(try initialize(channel, nil))
                    }
                    try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    guard offeringHTTP2 else {
                        return ready.completeWith(try initialize(channel, nil))
                    }
                    // What the host picked is known once the handshake is done; one that fails
                    // or never ends fails the forward (no relay is there yet to report it).
                    try pipeline.addHandler(TLSHandshakeWatch(timeout: timeout) { ready.fail($0) })
                    try pipeline.addHandler(ApplicationProtocolNegotiationHandler { result, channel in
                        let picked = if case .negotiated("h2") = result { true } else { false }
                        do {
                            let initialized = try initialize(channel, picked)
                            ready.completeWith(initialized)
                            return initialized.map { _ in }
                        } catch {
                            ready.fail(error)
                            return channel.eventLoop.makeFailedFuture(error)
                        }
                    })
                }
            }
        // An address needs no resolving: connecting by name would ask getaddrinfo on another
        // thread for every forward (a recorder in front of `127.0.0.1` paid that per request).
        let literal = endpoint.host.hasPrefix("[") && endpoint.host.hasSuffix("]") ? String(endpoint.host.dropFirst().dropLast()) : endpoint.host
        let connected = (try? SocketAddress(ipAddress: literal, port: endpoint.port)).map { bootstrap.connect(to: $0) }
            ?? bootstrap.connect(host: endpoint.host, port: endpoint.port)
        connected.whenFailure { ready.fail($0) }
        return connected.flatMap { _ in ready.futureResult }
    }

    private func clientContext(offeringHTTP2: Bool) throws -> NIOSSLContext {
        try (offeringHTTP2 ? clientTLSOfferingHTTP2 : clientTLS).withLock { context in
            if let context { return context }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.applicationProtocols = offeringHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
            if !additionalTrustRoots.isEmpty {
                configuration.additionalTrustRoots = [.certificates(additionalTrustRoots)]
            }
            let made = try NIOSSLContext(configuration: configuration)
            context = made
            return made
        }
    }

    /// Where a forwarded request goes: an `http` or `https` URL taken apart.
    struct Endpoint: Sendable {
        /// The host to connect to (an IPv6 address without brackets).
        let host: String
        let port: Int
        /// Whether the URL is `https`.
        let isSecure: Bool
        /// The `Host` field: the host (bracketed when IPv6), with the port unless it is the scheme's.
        let hostField: String
        /// `host:port`, for messages.
        let origin: String
        /// The request target: the path and query as the URL spells them (percent-encoding kept).
        let target: String
        /// The name TLS verifies: the host, unless it is an IP address.
        let serverName: String?

        /// `nil` unless `url` is an `http` or `https` URL with a host.
        init?(_ url: String) {
            guard let components = URLComponents(string: url),
                  let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = components.host, !host.isEmpty
            else { return nil }
            isSecure = scheme == "https"
            let defaultPort = isSecure ? 443 : 80
            port = components.port ?? defaultPort
            let bracketed = host.contains(":") ? "[\(host)]" : host
            hostField = port == defaultPort ? bracketed : "\(bracketed):\(port)"
            origin = "\(bracketed):\(port)"
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery {
                target += "?" + query
            }
            self.target = target
            serverName = Self.isIPAddress(host) ? nil : host
        }

        private static func isIPAddress(_ host: String) -> Bool {
            if host.contains(":") { return true }
            var address = in_addr()
            return inet_pton(AF_INET, host, &address) == 1
        }
    }
}

/// Turns one response from the real host into ``Forwarder/Event``s and fires them down the
/// pipeline: collected whole (head, body up to a limit, end), or — for a body without a length,
/// when the forward streams — its head at once and each piece as it arrives. Times the answer
/// out: the whole answer within the timeout, or a stream's next piece.
///
/// Its state is the handler's own, touched on the channel's event loop only (the forward holds
/// it through a `NIOLoopBound`): no lock on the path of a piece, and no timer set per piece (the
/// idle timer, when it fires, looks at when the last piece came).
final class ResponseRelay: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = Forwarder.Event

    private let method: HTTPMethod
    private let limit: Int
    private let timeout: TimeAmount
    private let streams: Bool
    /// `host:port`, for messages.
    fileprivate(set) var origin: String
    private var context: ChannelHandlerContext?
    private var head: HTTPResponseHead?
    /// The body collected so far, while the response is collected whole.
    private var body: ByteBuffer?
    private var isStream = false
    private var isFinished = false
    private var isCancelled = false
    /// The timer that fails the forward; `idleSince` set: a stream's idle timer.
    private var deadline: Scheduled<Void>?
    /// When a stream's head or last piece arrived.
    private var idleSince: NIODeadline?

    fileprivate init(method: HTTPMethod, limit: Int, timeout: TimeAmount, streams: Bool, origin: String) {
        self.method = method
        self.limit = limit
        self.timeout = timeout
        self.streams = streams
        self.origin = origin
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(in: timeout)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            isStream = streams && Self.isStream(head, method: method)
            guard isStream else {
                body = context.channel.allocator.buffer(capacity: 0)
                return
            }
            // From here on, a quiet stream times out, not a long one.
            idleSince = .now()
            arm(in: timeout)
            context.fireChannelRead(wrapInboundOut(.streamHead(head)))
            if isCancelled { context.close(promise: nil) }
        case .body(var part):
            if isStream {
                idleSince = .now()
                return context.fireChannelRead(wrapInboundOut(.piece(part)))
            }
            guard var collected = body else { return }
            body = nil
            guard collected.readableBytes + part.readableBytes <= limit else {
                return fail(Forwarder.Failure(description: "the response body is over the limit of \(limit) bytes"))
            }
            collected.writeBuffer(&part)
            body = collected
        case .end(let trailers):
            if isStream {
                finish(.end(trailers: trailers))
            } else if let head, let body {
                finish(.whole(Forwarder.Response(version: head.version, status: head.status, headers: head.headers, body: body, trailers: trailers)))
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(Forwarder.Failure(description: "\(error)"))
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A stream the relay stopped (its client left) ends (see `fail`); anything else that
        // closes early failed.
        fail(Forwarder.Failure(description: "the connection closed before the response was complete"))
        context.fireChannelInactive()
    }

    /// The client went away: a stream's connection closes (now, or as soon as the stream begins).
    fileprivate func cancel() {
        isCancelled = true
        if isStream, !isFinished { context?.close(promise: nil) }
    }

    /// Ends the forward with `failure`, unless it ended already, and closes the connection. A
    /// stream its relay cancelled (the client left) ends as cancelled whichever way the close
    /// shows first: the response decoder reports the cut chunked body as an error before the
    /// channel goes inactive.
    fileprivate func fail(_ failure: Forwarder.Failure) {
        finish(isCancelled && isStream ? .cancelled : .failed(failure))
    }

    /// Fires the last event once, and closes the connection.
    private func finish(_ event: Forwarder.Event) {
        guard !isFinished, let context else { return }
        isFinished = true
        deadline?.cancel()
        deadline = nil
        // The forward is held until its client's connection closes: it keeps no body.
        head = nil
        body = nil
        context.fireChannelRead(wrapInboundOut(event))
        context.close(promise: nil)
    }

    /// (Re)starts the timer that fails the forward: the whole answer's, or a stream's idle one.
    private func arm(in delay: TimeAmount) {
        guard let context else { return }
        deadline?.cancel()
        let relay = NIOLoopBound(self, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: delay) { relay.value.deadlinePassed() }
    }

    private func deadlinePassed() {
        deadline = nil
        guard !isFinished, let context else { return }
        let seconds = timeout.nanoseconds / 1_000_000_000
        guard let idleSince else {
            return fail(Forwarder.Failure(description: "no complete answer from \(origin) within \(seconds) s"))
        }
        // A stream paused for a client that reads slowly is not idle: it waits again.
        if context.channel.syncOptions.map({ (try? $0.getOption(ChannelOptions.autoRead)) == false }) == true {
            return arm(in: timeout)
        }
        let quiet = NIODeadline.now() - idleSince
        guard quiet >= timeout else { return arm(in: timeout - quiet) }
        fail(Forwarder.Failure(description: "the stream from \(origin) sent nothing for \(seconds) s"))
    }

    /// Whether the response's body is handed on as a stream: one is coming (not `HEAD`, not a
    /// status without a body) and no `Content-Length` says how long it is (chunked, or ended by
    /// the server closing).
    static func isStream(_ head: HTTPResponseHead, method: HTTPMethod) -> Bool {
        let status = head.status.code
        guard method != .HEAD, status != 204, status != 304, !(100..<200).contains(status) else { return false }
        return !head.headers.contains(name: "Content-Length")
    }
}

import AirlockBase
import AirlockCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Sends a request on to its real host — the `.passthrough` policy and recording — over SwiftNIO's
/// own HTTP/1.1 client pipeline: one connection per request, TLS with the system's trust roots for
/// `https` (the host's certificate and name verified), and the answer handed on as it arrives
/// (status, every field in order, the body's bytes in any content coding the server applied).
///
/// A body with a `Content-Length` (or none at all) is collected and handed on whole. A body
/// without one — chunked, or ended by the server closing — is a stream: its head is handed on at
/// once and each piece as it arrives, so that a client of server-sent events sees each event when
/// the real host sends it, not when the stream ends. A stream goes no faster than its client
/// reads: while the client's connection is not writable, the relay stops reading the real host
/// (``UpstreamControl/pauseReading()``), so a slow client never makes the server hold the stream.
///
/// A mock server forwards a few requests, one at a time, to hosts that differ: a pool, HTTP/2 and
/// redirects would buy nothing, and a full HTTP client would cost every build of the server.
final class Forwarder: Sendable {
    /// What the real host answered, whole.
    struct Response: Sendable {
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let body: ByteBuffer
    }

    /// What arrives from the real host, in order, each on the forwarding connection's event loop;
    /// the last is `whole`, `end`, `failed` or `cancelled`.
    enum Event: Sendable {
        /// The whole answer: a body with a length, or no body.
        case whole(Response)
        /// The head of a stream (a body without a length): its pieces follow as they arrive.
        case streamHead(HTTPResponseHead)
        /// A piece of a stream's body, as it arrived.
        case piece(ByteBuffer)
        /// The stream ended.
        case end
        /// Forwarding failed: before the head, or in the middle of a stream.
        case failed(Failure)
        /// ``UpstreamControl/cancel()`` stopped it (the client went away).
        case cancelled
    }

    /// Why forwarding failed; the description is what the client's `502` says.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The control of one forwarded request's connection to the real host: its relay cancels it
    /// when the client goes away, and pauses its reading while the client is not taking what it
    /// is sent. Only a stream is stopped: a whole answer is still collected (and recorded) when
    /// its client has left, as a recording proxy always did.
    final class UpstreamControl: Sendable {
        private let state = Locked<(channel: (any Channel)?, isCancelled: Bool, isStreaming: Bool, isPaused: Bool)>((nil, false, false, false))

        /// Whether ``cancel()`` was called.
        var isCancelled: Bool { state.withLock { $0.isCancelled } }

        /// Whether ``pauseReading()`` stopped reading the stream (its idle timeout waits then).
        var isPaused: Bool { state.withLock { $0.isPaused } }

        /// Stops reading the real host's stream: the client cannot take more for now (its
        /// connection is not writable), so what the host sends waits in its own buffers, not in
        /// the server's memory.
        func pauseReading() {
            setReading(false)
        }

        /// Reads the real host's stream again, once the client has taken what it was sent.
        func resumeReading() {
            setReading(true)
        }

        private func setReading(_ reads: Bool) {
            let channel = state.withLock { state -> (any Channel)? in
                guard state.isPaused == reads else { return nil }
                state.isPaused = !reads
                return state.channel
            }
            channel?.setOption(ChannelOptions.autoRead, value: reads).whenFailure { _ in }
        }

        /// Closes the connection to the real host if it carries a stream (now, or as soon as one
        /// begins).
        func cancel() {
            let channel = state.withLock { state -> (any Channel)? in
                state.isCancelled = true
                return state.isStreaming ? state.channel : nil
            }
            channel?.close(promise: nil)
        }

        /// Keeps the connection to close if a stream begins on it.
        fileprivate func connected(_ channel: any Channel) {
            state.withLock { $0.channel = channel }
        }

        /// A stream began: from now on a cancel closes the connection. Returns whether the relay
        /// cancelled already.
        fileprivate func streamBegan() -> Bool {
            state.withLock { state in
                state.isStreaming = true
                return state.isCancelled
            }
        }

        /// Lets go of the connection once the answer is complete.
        fileprivate func finished() {
            state.withLock { $0.channel = nil }
        }
    }

    private let group: any EventLoopGroup
    /// Made on first use (reading the system's trust roots takes a moment), then shared.
    private let clientTLS = Locked<NIOSSLContext?>(nil)

    init(group: any EventLoopGroup) {
        self.group = group
    }

    /// Sends `method` `url` with `headers` (the connection's own fields already removed) and
    /// `body`, and hands `events` what arrives, as it arrives.
    ///
    /// - Parameters:
    ///   - limit: The largest body collected whole, in bytes (a stream's pieces are only handed on).
    ///   - timeout: How long a whole answer may take; a stream may take any time as long as no
    ///     more than this passes without a piece (an idle timeout).
    ///   - streams: Whether a body without a length is handed on in pieces (`false`: collected
    ///     whole, as any other).
    ///   - events: Called on the forwarding connection's event loop, in order.
    /// - Returns: The control that cancels or pauses the forward.
    @discardableResult
    func execute(
        method: HTTPMethod,
        url: String,
        headers: [(name: String, value: String)],
        body: Data?,
        limit: Int,
        timeout: TimeAmount,
        streams: Bool,
        events: @escaping @Sendable (Event) -> Void
    ) -> UpstreamControl {
        let control = UpstreamControl()
        let eventLoop = group.next()
        guard let endpoint = Endpoint(url) else {
            eventLoop.execute { events(.failed(Failure(description: "\(url) is not an http or https URL"))) }
            return control
        }

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

        let relay = ResponseRelay(
            method: method, limit: limit, timeout: timeout, streams: streams, origin: origin, control: control, events: events
        )
        connect(to: endpoint, on: eventLoop, timeout: timeout) { channel in
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            try channel.pipeline.syncOperations.addHandler(relay)
        }.whenComplete { result in
            switch result {
            case .failure(let error):
                events(.failed(Failure(description: "could not connect to \(origin): \(error)")))
            case .success(let channel):
                control.connected(channel)
                channel.write(HTTPClientRequestPart.head(requestHead), promise: nil)
                if let body, !body.isEmpty {
                    channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
                }
                channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { error in
                    relay.fail(Failure(description: "could not send the request to \(origin): \(error)"), channel: channel)
                }
            }
        }
        return control
    }

    /// Connects to `endpoint` on `eventLoop`, TLS first for `https` (the system's trust roots, the
    /// host's name verified), then the handlers `initialize` adds.
    func connect(
        to endpoint: Endpoint,
        on eventLoop: any EventLoop,
        timeout: TimeAmount,
        initialize: @escaping @Sendable (any Channel) throws -> Void
    ) -> EventLoopFuture<any Channel> {
        let tls: NIOSSLContext?
        do {
            tls = endpoint.isSecure ? try clientContext() : nil
        } catch {
            return eventLoop.makeFailedFuture(Failure(description: "TLS could not be set up: \(error)"))
        }
        let serverName = endpoint.serverName
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    try initialize(channel)
                }
            }
            .connect(host: endpoint.host, port: endpoint.port)
    }

    private func clientContext() throws -> NIOSSLContext {
        try clientTLS.withLock { context in
            if let context { return context }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.applicationProtocols = ["http/1.1"]
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

/// Hands on one response: collected whole (head, body up to a limit, end), or — for a body
/// without a length, when the forward streams — its head at once and each piece as it arrives.
/// Times the answer out: the whole answer within the timeout, or a stream's next piece.
private final class ResponseRelay: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPClientResponsePart

    /// Where the response stands; read and written on the channel's event loop only.
    private struct State {
        var head: HTTPResponseHead?
        /// The body collected so far, while the response is collected whole.
        var body: ByteBuffer?
        var isStream = false
        var isFinished = false
        var deadline: Scheduled<Void>?
    }

    private let method: HTTPMethod
    private let limit: Int
    private let timeout: TimeAmount
    private let streams: Bool
    private let origin: String
    private let control: Forwarder.UpstreamControl
    private let events: @Sendable (Forwarder.Event) -> Void
    // Locked although only the channel's event loop touches it: the connect callback may fail the
    // forward from the loop too, and a lock keeps the handler Sendable without a loop-bound box.
    private let state = Locked(State())

    init(method: HTTPMethod, limit: Int, timeout: TimeAmount, streams: Bool, origin: String, control: Forwarder.UpstreamControl, events: @escaping @Sendable (Forwarder.Event) -> Void) {
        self.method = method
        self.limit = limit
        self.timeout = timeout
        self.streams = streams
        self.origin = origin
        self.control = control
        self.events = events
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(on: context.channel, message: "no complete answer from \(origin) within \(timeout.nanoseconds / 1_000_000_000) s")
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let isStream = streams && Self.isStream(head, method: method)
            state.withLock { state in
                state.head = head
                state.isStream = isStream
                state.body = isStream ? nil : context.channel.allocator.buffer(capacity: 0)
            }
            if isStream {
                // From here on, a quiet stream times out, not a long one.
                arm(on: context.channel, message: "the stream from \(origin) sent nothing for \(timeout.nanoseconds / 1_000_000_000) s")
                events(.streamHead(head))
                if control.streamBegan() { context.close(promise: nil) }
            }
        case .body(var part):
            let isStream = state.withLock { $0.isStream }
            if isStream {
                arm(on: context.channel, message: "the stream from \(origin) sent nothing for \(timeout.nanoseconds / 1_000_000_000) s")
                events(.piece(part))
                return
            }
            let overLimit = state.withLock { state -> Bool in
                guard var collected = state.body else { return false }
                guard collected.readableBytes + part.readableBytes <= limit else {
                    state.body = nil
                    return true
                }
                collected.writeBuffer(&part)
                state.body = collected
                return false
            }
            if overLimit {
                fail(Forwarder.Failure(description: "the response body is over the limit of \(limit) bytes"), channel: context.channel)
            }
        case .end:
            let (head, body, isStream) = state.withLock { ($0.head, $0.body, $0.isStream) }
            if isStream {
                finish(.end, channel: context.channel)
            } else if let head, let body {
                finish(.whole(Forwarder.Response(status: head.status, headers: head.headers, body: body)), channel: context.channel)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(Forwarder.Failure(description: "\(error)"), channel: context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A stream the relay stopped (its client left) ends (see `fail`); anything else that
        // closes early failed.
        fail(Forwarder.Failure(description: "the connection closed before the response was complete"), channel: context.channel)
        context.fireChannelInactive()
    }

    /// Ends the forward with `failure`, unless it ended already, and closes the connection. A
    /// stream its relay cancelled (the client left) ends as cancelled whichever way the close
    /// shows first: the response decoder reports the cut chunked body as an error before the
    /// channel goes inactive.
    func fail(_ failure: Forwarder.Failure, channel: any Channel) {
        if control.isCancelled, state.withLock({ $0.isStream }) {
            return finish(.cancelled, channel: channel)
        }
        finish(.failed(failure), channel: channel)
    }

    /// Hands on the last event once, and closes the connection.
    private func finish(_ event: Forwarder.Event, channel: any Channel) {
        let first = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            state.isFinished = true
            state.deadline?.cancel()
            state.deadline = nil
            return true
        }
        guard first else { return }
        control.finished()
        events(event)
        channel.close(promise: nil)
    }

    /// (Re)starts the timer that fails the forward with `message`.
    private func arm(on channel: any Channel, message: String) {
        let deadline = channel.eventLoop.scheduleTask(in: timeout) { [self] in
            // A stream paused for a client that reads slowly is not idle: it waits again.
            if control.isPaused { return arm(on: channel, message: message) }
            fail(Forwarder.Failure(description: message), channel: channel)
        }
        let previous = state.withLock { state -> Scheduled<Void>? in
            defer { state.deadline = deadline }
            return state.deadline
        }
        previous?.cancel()
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

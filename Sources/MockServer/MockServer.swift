import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves a mock over a real loopback socket, for clients no `URLProtocol` reaches:
/// AsyncHTTPClient, curl, a browser, another process.
///
/// A server is a `Mocking` mock: register stubs on it directly, or make it over an `HTTPMock`
/// to serve the very same stubs, queues, policy and journal as that mock's `urlSession`:
///
/// ```swift
/// let server = MockServer()
/// server.addResponses(forPath: "/users", host: "**") { MockResponse.plaintext("[]") }
/// try await server.start()
/// // GET server.baseURL/users → 200 "[]"
/// try await server.shutdown()
/// ```
///
/// ``whileServing(isolation:_:)`` starts it, runs a block and shuts it down even when the block
/// throws.
///
/// In **origin mode** the client calls ``baseURL``; host patterns match the request's `Host`
/// header, and a stub whose host is `**` (a stub file's stub without `host`) matches any. A
/// request to the server's own address (`Host: 127.0.0.1:<port>`) that none of those match is
/// answered by the stubs of every host, so a stub for `api.example.com` answers it. In
/// **proxy mode** the client sends absolute-form targets (`GET http://api.example.com/users`)
/// and the host comes from them; clients that tunnel plain HTTP through `CONNECT` (as
/// AsyncHTTPClient does) get a tunnel in which the `Host` header names the original host.
///
/// With ``Configuration/tls`` the server also speaks HTTPS, with certificates its
/// ``CertificateAuthority`` makes per host: ``baseURL`` is `https://…`, and TLS inside `CONNECT`
/// tunnels (to any port) is ended here, so `https://api.example.com/…` reaches the same stubs;
/// `server.httpClientConfiguration()` (the `MockServerHTTPClient` product) gives AsyncHTTPClient the
/// proxy and the CA in one line. Serving HTTPS needs the package's `HTTPS` trait. Without TLS,
/// `CONNECT` to port 443 is answered with `501` and how to turn TLS on.
///
/// The server uses SwiftNIO's standard HTTP/1.1 server pipeline: pipelined requests are answered
/// in order (even when an earlier response is delayed), malformed requests get a `400` and the
/// connection closes, and request bodies above ``Configuration/maxRequestBodySize`` get a `413`.
/// Unmatched requests that the `.passthrough` policy lets through are forwarded over SwiftNIO's
/// HTTP/1.1 client pipeline (TLS verified with the system's trust roots).
public final class MockServer: Mocking {
    /// The stubs, queues, policy and journal the server serves.
    @_spi(AirlockTransport) public let registry: MockRegistry
    /// How the server binds and reports.
    public let configuration: Configuration
    /// The WebSockets open on the server (`MockResponse.webSocket(_:lifetime:headers:)` stubs),
    /// to push a message to every connection whose opening request matches:
    ///
    /// ```swift
    /// server.webSockets.send(.text("news"), toConnectionsMatching: .path("/chat"))
    /// ```
    public let webSockets = WebSocketConnections()
    /// The webhooks waiting for their delay, cancelled by ``shutdown()``.
    let waitingWebhooks = WaitingWebhooks(notSent: "not sent: the server stopped before its delay had passed")

    let state = Locked(State())

    struct State {
        var channel: (any Channel)?
        var port = 0
        var connections = ConnectionSet()
        /// Set by ``start()`` when ``Configuration/tls`` is on.
        var tls: TLSTermination?
    }

    /// Creates a server with stubs of its own; call ``start()`` to bind.
    /// - Parameter configuration: Where to bind, and options.
    public convenience init(configuration: Configuration = Configuration()) {
        let registry = MockRegistry(snippetStyle: .json)
        let logger = configuration.logger
        registry.report { logger.warning("\($0)") }
        self.init(registry: registry, configuration: configuration)
    }

    /// Creates a server that serves another mock's stubs, queues, policy and journal — an
    /// `HTTPMock`'s, say, so that its `urlSession` and this socket answer from the same queues.
    /// - Parameters:
    ///   - mock: The mock to serve.
    ///   - configuration: Where to bind, and options.
    public convenience init(mock: some Mocking, configuration: Configuration = Configuration()) {
        self.init(registry: mock.registry, configuration: configuration)
    }

    /// Creates a server that replays a cassette and, while the cassette's mode records, forwards
    /// what it cannot answer to the real host and records the exchange — for any client.
    ///
    /// ```swift
    /// let cassette = try Cassette(contentsOf: URL(fileURLWithPath: "api.har"), mode: .newEpisodes)
    /// let server = MockServer(cassette: cassette, configuration: .init(upstream: URL(string: "https://api.example.com")))
    /// ```
    ///
    /// - Parameters:
    ///   - cassette: The cassette to replay and record into.
    ///   - configuration: Where to bind, and the upstream to record from.
    public convenience init(cassette: Cassette, configuration: Configuration = Configuration()) {
        self.init(configuration: configuration)
        insert(cassette)
    }

    private init(registry: MockRegistry, configuration: Configuration) {
        // WireMock's XML matchers, for the mappings this server (and the process) reads from now on.
        WireMockXML.install()
        self.registry = registry
        self.configuration = configuration
    }

    /// The bound port (0 before ``start()``).
    public var port: Int { state.withLock { $0.port } }

    /// `http://<host>:<port>` (`https://` with ``Configuration/tls``), the URL origin-mode
    /// clients call.
    public var baseURL: URL {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "\(configuration.tls == nil ? "http" : "https")://\(host):\(port)")!
    }

    /// The traffic page: every exchange live in a browser, why a request missed, and a stub from
    /// any request (`<baseURL>/__admin/inspector/`). It is behind the admin API's checks; with an
    /// ``Configuration/adminToken``, open it with the token in the URL's fragment
    /// (`…/__admin/inspector/#token=<token>`), which the browser keeps to the page.
    public var inspectorURL: URL {
        URL(string: baseURL.absoluteString + InspectorRoute.path)!
    }

    /// Binds and starts serving.
    /// - Throws: ``MockServerError`` when asked to bind beyond loopback without
    ///   ``Configuration/allowsNonLoopbackBinding``, or without an admin token then, or when the
    ///   address cannot be bound, or (with ``Configuration/tls``) when the certificate authority's
    ///   folder cannot be used, or when a file of ``Configuration/upstreamTrustedCertificates``
    ///   cannot be used.
    public func start() async throws {
        if let problem = configuration.limits.problem { throw MockServerError.invalidLimits(problem) }
        // The check is on the address the name resolves to, not on its spelling: a name such as
        // `127.evil.test` can resolve to 0.0.0.0, which would listen on every interface.
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(configuration.host, port: configuration.port)
        } catch {
            throw MockServerError.bindFailed(host: configuration.host, port: configuration.port, underlying: error)
        }
        if !Self.isLoopback(address) {
            guard configuration.allowsNonLoopbackBinding else { throw MockServerError.nonLoopbackBindingRefused(host: configuration.host, address: address) }
            guard configuration.adminToken?.isEmpty == false else { throw MockServerError.adminTokenRequired(host: configuration.host) }
        }
        let tls = try configuration.tls.map { TLSTermination(authority: try CertificateAuthority.loadOrCreate(in: $0.certificateAuthorityDirectory)) }
        let forwarder = try Self.forwarder(trusting: configuration.upstreamTrustedCertificates)
        let context = ServerContext(server: self, forwarder: forwarder, tls: tls)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: configuration.eventLoopGroup)
                .serverChannelOption(.backlog, value: 4096)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try Self.accept(channel, server: context) }
                }
                .bind(to: address)
                .get()
        } catch {
            throw MockServerError.bindFailed(host: configuration.host, port: configuration.port, underlying: error)
        }
        state.withLock {
            $0.channel = channel
            $0.port = channel.localAddress?.port ?? 0
            $0.tls = tls
        }
    }

    /// Stops accepting connections, closes the open ones, cancels the webhooks still waiting for
    /// their delay (the journal records each as not sent), and waits for the listening socket to
    /// close.
    public func shutdown() async throws {
        let (channel, connections) = state.withLock { state in
            defer {
                state.channel = nil
                state.connections = ConnectionSet()
            }
            return (state.channel, state.connections.all)
        }
        // A stopped server sends no more webhooks (each is recorded as not sent).
        waitingWebhooks.cancelAll()
        do {
            try await channel?.close()
        } catch ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed {
            // Closed already (an error on the listening socket closes it): what shutdown wants.
        }
        for connection in connections {
            try? await connection.close()
        }
    }

    /// How many open connections are receiving or being answered a request (not idle).
    package var busyConnectionCount: Int {
        state.withLock { $0.connections.busyCount }
    }

    /// Takes a new connection in, making room at the connection limit by closing the connection
    /// idle the longest; `nil` when every connection is busy.
    private func admit(_ channel: any Channel) -> ConnectionActivity? {
        let identifier = ObjectIdentifier(channel)
        let activity = ConnectionActivity()
        let (admitted, evicted) = state.withLock { state -> (Bool, (any Channel)?) in
            var evicted: (any Channel)?
            if state.connections.count >= configuration.limits.maxConnections {
                guard let idlest = state.connections.longestIdle() else { return (false, nil) }
                evicted = state.connections.remove(idlest)
            }
            state.connections.insert(channel, activity: activity)
            return (true, evicted)
        }
        guard admitted else { return nil }
        evicted?.close(promise: nil)
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { _ = $0.connections.remove(identifier) }
        }
        return activity
    }

    /// Takes a connection in: admits it (making room at the limit) and sets up its pipeline, or
    /// answers `503` when every connection is busy.
    private static func accept(_ channel: any Channel, server context: ServerContext) throws {
        guard let activity = context.server?.admit(channel) else {
            return refuseConnection(channel, limit: context.configuration.limits.maxConnections)
        }
        try ServerConnection.configurePipeline(of: channel, server: context, activity: activity)
    }

    /// Takes a connection in as ``start()`` does for each one it accepts, on a channel the caller
    /// made: tests drive the server's real pipeline on an `EmbeddedChannel`. Call it on the
    /// channel's event loop; passthrough requests are forwarded on that loop.
    package func acceptConnection(_ channel: any Channel) throws {
        let forwarder = try Self.forwarder(trusting: configuration.upstreamTrustedCertificates)
        let context = ServerContext(server: self, forwarder: forwarder, tls: state.withLock { $0.tls })
        try Self.accept(channel, server: context)
    }

    /// The forwarder of a server that trusts the certificates of `files` for upstreams.
    private static func forwarder(trusting files: [URL]) throws(MockServerError) -> Forwarder {
        do {
            return Forwarder(trusting: try Forwarder.certificates(in: files))
        } catch {
            throw MockServerError.upstreamTrustUnusable(file: error.file, reason: error.reason)
        }
    }

    /// Answers a connection over the limit with `503` and closes it.
    private static func refuseConnection(_ channel: any Channel, limit: Int) {
        let message = "Airlock MockServer: \(limit) connections are open and none is idle; try again later, "
            + "or raise the limit (MockServer.ConnectionLimits.maxConnections, airlock serve --max-connections).\n"
        GracefulClose.writeRawThenClose(
            GracefulClose.rawResponse(status: "503 Service Unavailable", message: message, extraFields: ["Retry-After: 1"]),
            on: channel
        )
    }

    /// Whether an address is loopback: 127.0.0.0/8, `::1`, or an IPv4-mapped 127.x.
    package static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes == Array(repeating: 0, count: 15) + [1] { return true }
            return bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] && bytes[12] == 127
        case .unixDomainSocket:
            return true
        }
    }
}

/// The connections a server has open, so that shutdown can close them and a full server can
/// close the one idle the longest.
struct ConnectionSet {
    private var channels: [ObjectIdentifier: (channel: any Channel, activity: ConnectionActivity)] = [:]

    var all: [any Channel] { channels.values.map(\.channel) }

    var count: Int { channels.count }

    mutating func insert(_ channel: any Channel, activity: ConnectionActivity) {
        channels[ObjectIdentifier(channel)] = (channel, activity)
    }

    @discardableResult
    mutating func remove(_ identifier: ObjectIdentifier) -> (any Channel)? {
        channels.removeValue(forKey: identifier)?.channel
    }

    /// How many connections are not idle.
    var busyCount: Int {
        channels.values.filter { $0.activity.idleSince.withLock { $0 } == nil }.count
    }

    /// The connection that has waited for a request the longest, if any is waiting.
    func longestIdle() -> ObjectIdentifier? {
        var best: (ObjectIdentifier, NIODeadline)?
        for (identifier, entry) in channels {
            guard let since = entry.activity.idleSince.withLock({ $0 }) else { continue }
            if best == nil || since < best!.1 { best = (identifier, since) }
        }
        return best?.0
    }
}

/// What the per-connection handlers need from their server, without keeping it alive.
final class ServerContext: Sendable {
    weak let server: MockServer?
    let registry: MockRegistry
    let configuration: MockServer.Configuration
    /// Sends `.passthrough` requests on.
    let forwarder: Forwarder
    /// What the core is told about this server: a token-protected one shows no stubs in messages.
    let transport: Transport<SocketTransport>
    /// Ends TLS (origin-mode HTTPS and inside CONNECT tunnels); `nil` without TLS.
    let tls: TLSTermination?
    /// The open WebSockets, for pushes.
    let webSockets: WebSocketConnections
    /// The webhooks waiting for their delay, cancelled when the server shuts down.
    let waitingWebhooks: WaitingWebhooks

    init(server: MockServer, forwarder: Forwarder, tls: TLSTermination?) {
        self.server = server
        self.tls = tls
        self.registry = server.registry
        self.configuration = server.configuration
        self.forwarder = forwarder
        webSockets = server.webSockets
        waitingWebhooks = server.waitingWebhooks
        transport = server.configuration.adminToken?.isEmpty == false ? .protectedSocket : .socket
    }
}

import Foundation
import HTTPMock
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves an `HTTPMock` over a real loopback socket, for clients no `URLProtocol` reaches:
/// AsyncHTTPClient, curl, a browser, another process.
///
/// The server answers from the very same registry as the mock's `urlSession` — same stubs,
/// queues, lifetimes, delays, policies and journal:
///
/// ```swift
/// let mock = HTTPMock()
/// mock.addResponses(forPath: "/users", host: "api.example.com") { MockResponse.plaintext("[]") }
/// let server = MockServer(mock: mock)
/// try await server.start()
/// defer { Task { try await server.shutdown() } }
/// // Origin mode: call server.baseURL with "Host: api.example.com" — or
/// // proxy mode: configure the client to use 127.0.0.1:server.port as its HTTP proxy.
/// ```
///
/// In **origin mode** the client calls ``baseURL``; host patterns match the request's `Host`
/// header, and a stub whose host is `**` (a stub file's stub without `host`) matches any. In
/// **proxy mode** the client sends absolute-form targets (`GET http://api.example.com/users`)
/// and the host comes from them; clients that tunnel plain HTTP through `CONNECT` (as
/// AsyncHTTPClient does) get a tunnel in which the `Host` header names the original host. HTTPS
/// through `CONNECT` (port 443) is answered with `501` and an explanation.
public final class MockServer: Sendable {
    /// The mock whose registry the server serves.
    public let mock: HTTPMock
    /// How the server binds and reports.
    public let configuration: Configuration

    private let state = Locked(State())

    private struct State {
        var channel: (any Channel)?
        var port = 0
        var connections = ConnectionSet()
    }

    /// Creates a server for a mock; call ``start()`` to bind.
    /// - Parameters:
    ///   - mock: The mock to serve. Defaults to a new one.
    ///   - configuration: Where to bind, and options.
    public init(mock: HTTPMock = HTTPMock(), configuration: Configuration = Configuration()) {
        self.mock = mock
        self.configuration = configuration
    }

    /// The bound port (0 before ``start()``).
    public var port: Int { state.withLock { $0.port } }

    /// `http://<host>:<port>`, the URL origin-mode clients call.
    public var baseURL: URL {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return URL(string: "http://\(host):\(port)")!
    }

    /// Binds and starts serving.
    /// - Throws: ``MockServerError`` when asked to bind beyond loopback without
    ///   ``Configuration/allowsNonLoopbackBinding``, or without an admin token then; or the bind error.
    public func start() async throws {
        if !Self.isLoopback(configuration.host) {
            guard configuration.allowsNonLoopbackBinding else {
                throw MockServerError(
                    "refusing to bind \(configuration.host): only loopback addresses are allowed by default. "
                        + "Set allowsNonLoopbackBinding (airlock serve --allow-remote) to serve other machines."
                )
            }
            guard configuration.adminToken?.isEmpty == false else {
                throw MockServerError(
                    "binding \(configuration.host) exposes the admin API beyond this machine: set an adminToken "
                        + "(airlock serve --admin-token …)."
                )
            }
        }
        let context = ServerContext(server: self)
        let channel = try await ServerBootstrap(group: configuration.eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let encoder = HTTPResponseEncoder()
                    let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
                    try channel.pipeline.syncOperations.addHandler(encoder)
                    try channel.pipeline.syncOperations.addHandler(decoder)
                    try channel.pipeline.syncOperations.addHandler(MockServerHandler(context: context, encoder: encoder, decoder: decoder))
                    context.server?.track(channel)
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        state.withLock {
            $0.channel = channel
            $0.port = channel.localAddress?.port ?? 0
        }
    }

    /// Stops accepting connections, closes the open ones, and waits for the listening socket to
    /// close.
    public func shutdown() async throws {
        let (channel, connections) = state.withLock { state in
            defer {
                state.channel = nil
                state.connections = ConnectionSet()
            }
            return (state.channel, state.connections.all)
        }
        try await channel?.close()
        for connection in connections {
            try? await connection.close()
        }
    }

    /// Registers the stubs of a stub file with the served mock.
    /// - Returns: The stubs rejected (an empty array when all were registered).
    @discardableResult
    public func register(_ file: StubFile) -> [RegistrationError] {
        mock.registerStubs(file)
    }

    private func track(_ channel: any Channel) {
        let identifier = ObjectIdentifier(channel)
        state.withLock { $0.connections.insert(channel) }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { $0.connections.remove(identifier) }
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// The connections a server has open, so that shutdown can close them.
struct ConnectionSet {
    private var channels: [ObjectIdentifier: any Channel] = [:]

    var all: [any Channel] { Array(channels.values) }

    mutating func insert(_ channel: any Channel) { channels[ObjectIdentifier(channel)] = channel }

    mutating func remove(_ identifier: ObjectIdentifier) { channels[identifier] = nil }
}

/// What the per-connection handlers need from their server, without keeping it alive.
final class ServerContext: Sendable {
    weak let server: MockServer?
    let mock: HTTPMock
    let configuration: MockServer.Configuration

    init(server: MockServer) {
        self.server = server
        self.mock = server.mock
        self.configuration = server.configuration
    }
}

/// Why a server did not start.
public struct MockServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and how to fix it.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

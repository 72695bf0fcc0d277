import Foundation
import Logging
import NIOCore
import NIOPosix

extension MockServer {
    /// Where a server binds and what it reports.
    public struct Configuration: Sendable {
        /// The address to bind. Defaults to `127.0.0.1`; anything but loopback needs
        /// ``allowsNonLoopbackBinding`` and an ``adminToken``.
        public var host: String
        /// The port; 0 (the default) picks a free one.
        public var port: Int
        /// Whether binding an address other than loopback is allowed.
        public var allowsNonLoopbackBinding: Bool
        /// When set, admin requests must carry `Authorization: Bearer <token>`.
        public var adminToken: String?
        /// Called after each exchange (not admin requests), for logs such as the CLI's.
        public var exchangeHandler: (@Sendable (Exchange) -> Void)?
        /// The event loops that serve connections. Defaults to SwiftNIO's shared singleton group.
        public var eventLoopGroup: any EventLoopGroup
        /// The largest request body accepted, in bytes; larger ones get `413` with how to raise
        /// the limit. Defaults to 64 MiB.
        public var maxRequestBodySize: Int
        /// Where rejected stubs and registration warnings go. Defaults to a logger labelled
        /// `airlock.server`.
        public var logger: Logger
        /// Makes the server a reverse proxy for this origin (`https://api.example.com`): requests
        /// to ``MockServer/baseURL`` are taken as requests to it — matched, forwarded and recorded
        /// under its URLs. `nil` (the default) keeps the `Host` header's host.
        public var upstream: URL?
        /// The folder that `file` responses added through the admin API must stay in (`airlock
        /// serve` uses the stub file's folder, or `--files`). `nil` (the default) refuses them:
        /// otherwise any local process could have the server read any file the user can.
        public var adminFileRoot: URL?
        /// Serves HTTPS too, with certificates from a certificate authority kept in a folder (see
        /// ``MockServer/TLS``). `nil` (the default) serves plain HTTP only.
        public var tls: TLS?

        /// Creates a configuration; every argument has a default.
        /// - Parameters:
        ///   - host: The address to bind.
        ///   - port: The port; 0 picks a free one.
        ///   - allowsNonLoopbackBinding: Whether a non-loopback address may be bound.
        ///   - adminToken: The token the admin API then requires.
        ///   - exchangeHandler: Called after each exchange.
        ///   - eventLoopGroup: The event loops to serve on.
        ///   - maxRequestBodySize: The largest request body accepted, in bytes.
        ///   - logger: Where rejected stubs and warnings go.
        ///   - upstream: The origin the server stands in for, as a reverse proxy.
        ///   - adminFileRoot: The folder admin-added `file` responses must stay in.
        ///   - tls: HTTPS options; `nil` serves plain HTTP only.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            allowsNonLoopbackBinding: Bool = false,
            adminToken: String? = nil,
            exchangeHandler: (@Sendable (Exchange) -> Void)? = nil,
            eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
            maxRequestBodySize: Int = 64 * 1024 * 1024,
            logger: Logger = Logger(label: "airlock.server"),
            upstream: URL? = nil,
            adminFileRoot: URL? = nil,
            tls: TLS? = nil
        ) {
            self.tls = tls
            self.upstream = upstream
            self.adminFileRoot = adminFileRoot
            self.maxRequestBodySize = maxRequestBodySize
            self.logger = logger
            self.eventLoopGroup = eventLoopGroup
            self.host = host
            self.port = port
            self.allowsNonLoopbackBinding = allowsNonLoopbackBinding
            self.adminToken = adminToken
            self.exchangeHandler = exchangeHandler
        }
    }

    /// One request the server answered, for logging.
    public struct Exchange: Sendable, CustomStringConvertible {
        /// The method.
        public let method: String
        /// The request target as sent (a path, or an absolute URL in proxy mode), with secret query
        /// items, fragment items and URL passwords hidden by the mock's redaction.
        public let target: String
        /// The status sent; `nil` for a fault.
        public let status: Int?
        /// The fault acted out instead of a response, if any.
        public let fault: String?
        /// From the request's end to the response's end.
        public let duration: TimeInterval

        /// `GET /users → 200 (3 ms)`.
        public var description: String {
            let outcome = status.map(String.init) ?? "fault \(fault ?? "?")"
            return "\(method) \(target) → \(outcome) (\(Int((duration * 1000).rounded())) ms)"
        }
    }
}

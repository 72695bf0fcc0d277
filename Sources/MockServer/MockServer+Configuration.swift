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
        /// The WireMock root folder (`mappings/` and `__files/`) of the mappings this server
        /// serves: `POST /__admin/mappings/reset` and `POST /__admin/reset` load its mappings
        /// again, `POST /__admin/mappings/save` writes the mappings added since into its
        /// `mappings/`, and mappings added through the admin API name files in its `__files/`.
        /// `nil` (the default): those resets remove every mapping, save is refused, and
        /// admin-added mappings serve no files. `airlock serve --wiremock DIR` sets it.
        public var wireMockRoot: URL?
        /// Which WireMock the mappings added through the admin API (and those `wireMockRoot`'s
        /// resets load) are read as, where WireMock 2.35 and 3 differ (`WireMockVersion`:
        /// template escaping, `equalToXml`'s namespaces). WireMock 2.35 by default; `airlock serve
        /// --wiremock-version 3` sets it. Read the folder itself with the same version.
        public var wireMockVersion: WireMockVersion = .wireMock2
        /// Called on `POST /__admin/shutdown` (WireMock's way to stop a server), after the answer
        /// is sent. `nil` (the default) refuses that request: a server your code started stops
        /// when your code calls ``MockServer/shutdown()``. `airlock serve` sets it to stop.
        public var shutdownRequestHandler: (@Sendable () -> Void)?
        /// Serves HTTPS too, with certificates from a certificate authority kept in a folder (see
        /// ``MockServer/TLS``). `nil` (the default) serves plain HTTP only.
        public var tls: TLS?
        /// How long a client may take to send a request, how long an idle connection stays open,
        /// and how many connections the server holds. See ``ConnectionLimits``.
        public var limits: ConnectionLimits
        /// PEM files of certificates to trust, besides the system's roots, when the server
        /// forwards to an `https` host (the `.passthrough` policy, recording, a reverse proxy's
        /// ``upstream``): the private CA of a staging server, or of a test's own. Each file may
        /// hold several certificates; a file that cannot be read or holds none stops
        /// ``MockServer/start()`` with ``MockServerError/Code/upstreamTrustUnusable``.
        /// Empty (the default): only the system's roots. `airlock serve` and `airlock record
        /// --upstream-ca FILE` set it.
        public var upstreamTrustedCertificates: [URL] = []

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
        ///   - limits: Timeouts and the connection cap.
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
            tls: TLS? = nil,
            limits: ConnectionLimits = ConnectionLimits()
        ) {
            self.tls = tls
            self.limits = limits
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

    /// What keeps slow, silent or too many clients from holding the server: the defaults suit a
    /// development backend and a test suite alike, and every one can be changed (`airlock serve
    /// --header-timeout`, `--idle-timeout`, `--max-connections`).
    ///
    /// - A connection waiting for its next request is closed after ``idleTimeout`` without a
    ///   byte (keep-alive clients reconnect, as they do with any server).
    /// - From the first byte of a request, its head must arrive within ``headerTimeout``, and its
    ///   body may not pause longer than ``idleTimeout``; otherwise the client gets
    ///   `408 Request Timeout` and the connection closes. A response the stub delays is never
    ///   cut short.
    /// - At ``maxConnections`` open connections, a new one takes the place of the connection
    ///   idle the longest; when none is idle, it gets `503 Service Unavailable` and is closed.
    public struct ConnectionLimits: Sendable, Equatable {
        /// The time from a request's first byte to the end of its head, in seconds. Defaults to 30.
        public var headerTimeout: TimeInterval
        /// How long a connection may wait for a request, or a request body pause, in seconds.
        /// Defaults to 75 (longer than the idle time clients such as AsyncHTTPClient keep
        /// connections for, so that the client closes first).
        public var idleTimeout: TimeInterval
        /// The most connections open at once. Defaults to the process's open-file limit less 64
        /// (kept for files, outgoing connections and the listening socket), and at least 16, so
        /// that the server never runs out of descriptors and locks every new client out.
        public var maxConnections: Int

        /// Creates limits; every argument has a default.
        /// - Parameters:
        ///   - headerTimeout: Seconds from a request's first byte to the end of its head.
        ///   - idleTimeout: Seconds a connection may wait for a request, or a body pause.
        ///   - maxConnections: The most connections open at once.
        public init(headerTimeout: TimeInterval = 30, idleTimeout: TimeInterval = 75, maxConnections: Int = ConnectionLimits.defaultMaxConnections) {
            self.headerTimeout = headerTimeout
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
        }

        /// The open-file limit (`RLIMIT_NOFILE`, soft) less 64, and at least 16.
        public static var defaultMaxConnections: Int {
            var limit = rlimit()
            guard getrlimit(Self.openFilesResource, &limit) == 0 else { return 960 }
            let files = Int(clamping: limit.rlim_cur)  // RLIM_INFINITY clamps to Int.max
            return max(16, min(files, 1_000_000) - 64)
        }

        #if os(Linux)
        private static let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        private static let openFilesResource = RLIMIT_NOFILE
        #endif

        /// Why these limits cannot be used, if they cannot.
        package var problem: (limit: String, text: String)? {
            for (seconds, limit, name) in [(headerTimeout, "headerTimeout", "the header timeout"), (idleTimeout, "idleTimeout", "the idle timeout")] {
                if let problem = ResponseLimits.durationProblem(seconds, named: name) { return (limit, problem) }
                if seconds == 0 { return (limit, "\(name) is 0 seconds: every connection would be closed at once") }
            }
            if maxConnections < 1 { return ("maxConnections", "the connection limit \(maxConnections) is not at least 1") }
            return nil
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

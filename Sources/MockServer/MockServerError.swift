import AirlockCore
import NIOCore

/// Why a server did not start: what kind of failure it is, what happened and how to fix it.
///
/// Switch on ``code`` to tell failures apart; show ``description`` to people:
///
/// ```swift
/// do { try await server.start() } catch let error as MockServerError where error.code == .addressInUse { … }
/// ```
public struct MockServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure a ``MockServerError`` is.
    ///
    /// An opaque value with a static member for each failure, so that kinds can be added without
    /// breaking a `switch`: compare with `==`, or switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case nonLoopbackBindingRefused, adminTokenRequired, addressInUse, bindFailed
            case certificateAuthorityUnavailable, certificateAuthorityInvalid, invalidLimits, httpsUnavailable
            case upstreamTrustUnusable
        }

        private let base: Base

        /// A non-loopback address without `allowsNonLoopbackBinding`.
        public static let nonLoopbackBindingRefused = Code(base: .nonLoopbackBindingRefused)
        /// A non-loopback address without an admin token.
        public static let adminTokenRequired = Code(base: .adminTokenRequired)
        /// The port is taken by another process.
        public static let addressInUse = Code(base: .addressInUse)
        /// Binding failed for another reason.
        public static let bindFailed = Code(base: .bindFailed)
        /// The certificate authority's folder or files cannot be created or read (TLS).
        public static let certificateAuthorityUnavailable = Code(base: .certificateAuthorityUnavailable)
        /// The certificate authority's key file is not a usable Airlock CA (TLS).
        public static let certificateAuthorityInvalid = Code(base: .certificateAuthorityInvalid)

        /// HTTPS was asked for (``MockServer/Configuration/tls``, `airlock … --tls`) in a build of the
        /// package without its `HTTPS` trait.
        public static let httpsUnavailable = Code(base: .httpsUnavailable)

        /// A timeout or the connection limit is not usable (``MockServer/ConnectionLimits``).
        public static let invalidLimits = Code(base: .invalidLimits)

        /// A file of ``MockServer/Configuration/upstreamTrustedCertificates`` (`airlock …
        /// --upstream-ca`) cannot be read or holds no PEM certificate.
        public static let upstreamTrustUnusable = Code(base: .upstreamTrustUnusable)

        /// The code's name, such as `addressInUse`.
        public var description: String { "\(base)" }
    }

    /// What kind of failure a ``MockServerError`` is.
    @available(*, deprecated, renamed: "Code")
    public typealias Kind = Code

    /// What kind of failure this is.
    public var code: Code
    /// The input the failure concerns, as the configuration gave it: the host or `host:port` to
    /// listen on, the certificate authority's file, the limit that is not usable
    /// (`ConnectionLimits.maxConnections`), `tls` for HTTPS in a build without it, or the file of
    /// upstream certificates that cannot be used.
    public let input: String
    /// What went wrong and how to fix it.
    public let description: String

    /// What kind of failure this is.
    @available(*, deprecated, renamed: "code")
    public var kind: Code { code }

    private init(_ code: Code, input: String, description: String) {
        self.code = code
        self.input = input
        self.description = description
    }

    static func nonLoopbackBindingRefused(host: String, address: SocketAddress) -> MockServerError {
        let resolved = address.ipAddress.map { $0 == host ? "" : " (which resolves to \($0))" } ?? ""
        return MockServerError(
            .nonLoopbackBindingRefused,
            input: host,
            description: "refusing to bind \(host)\(resolved): only loopback addresses are allowed by default. "
                + "Set allowsNonLoopbackBinding (airlock serve --allow-remote) to serve other machines."
        )
    }

    static func adminTokenRequired(host: String) -> MockServerError {
        MockServerError(
            .adminTokenRequired,
            input: host,
            description: "binding \(host) exposes the admin API beyond this machine: set an adminToken (airlock serve --admin-token …)."
        )
    }

    static func bindFailed(host: String, port: Int, underlying error: any Error) -> MockServerError {
        let text = "\(error)"
        if text.contains("Address already in use") || text.contains("errno: 98") || text.contains("errno: 48") {
            return MockServerError(
                .addressInUse,
                input: "\(host):\(port)",
                description: "cannot listen on \(host):\(port): another process is using the port. Choose another "
                    + "(--port N, or --port 0 for a free one), or stop the other process (`lsof -i :\(port)` names it)."
            )
        }
        return MockServerError(.bindFailed, input: "\(host):\(port)", description: "cannot listen on \(host):\(port): \(text)")
    }

    static func invalidLimits(_ problem: (limit: String, text: String)) -> MockServerError {
        MockServerError(
            .invalidLimits,
            input: "ConnectionLimits.\(problem.limit)",
            description: "cannot start: \(problem.text). Give timeouts above 0 and at most \(Int(ResponseLimits.maximumSeconds)) seconds and at least one connection "
                + "(MockServer.ConnectionLimits; airlock serve --header-timeout, --idle-timeout, --max-connections)."
        )
    }

    static func certificateAuthorityUnavailable(file: String, reason: String, fix: String) -> MockServerError {
        MockServerError(.certificateAuthorityUnavailable, input: file, description: "cannot use the Airlock CA at \(file): \(reason). \(fix)")
    }

    static func certificateAuthorityInvalid(file: String, directory: String, reason: String) -> MockServerError {
        MockServerError(
            .certificateAuthorityInvalid,
            input: file,
            description: "\(file) is not a usable Airlock CA: \(reason). Delete the folder \(directory) to have a new CA made "
                + "(clients that trusted the old one must then trust the new one), or point the CA folder elsewhere "
                + "(MockServer.TLS(certificateAuthorityDirectory:), airlock --ca-dir, AIRLOCK_CA_DIR)."
        )
    }

    static func upstreamTrustUnusable(file: String, reason: String) -> MockServerError {
        MockServerError(
            .upstreamTrustUnusable,
            input: file,
            description: "cannot trust the certificates of \(file) for upstreams: \(reason). Give a PEM file of the certificates "
                + "to trust, such as the private CA of the server forwarded to (MockServer.Configuration.upstreamTrustedCertificates, airlock --upstream-ca)."
        )
    }

    static func httpsUnavailable() -> MockServerError {
        MockServerError(
            .httpsUnavailable,
            input: "tls",
            description: "HTTPS needs the Airlock package's HTTPS trait, which this build was made without. "
                + "In your manifest: .package(path: \"../Airlock\", traits: [\"HTTPS\"]) (or url:…, traits: [\"HTTPS\"]); "
                + "for the command: swift run --traits HTTPS airlock … --tls (in a clone of Airlock)."
        )
    }
}

import AirlockCore
import NIOCore

/// Why a server did not start: each case says what happened and how to fix it.
///
/// ```swift
/// do { try await server.start() } catch let error as MockServerError where error.kind == .addressInUse { … }
/// ```
public struct MockServerError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case nonLoopbackBindingRefused, adminTokenRequired, addressInUse, bindFailed
            case certificateAuthorityUnavailable, certificateAuthorityInvalid, invalidLimits, httpsUnavailable
        }

        private let base: Base

        /// A non-loopback address without `allowsNonLoopbackBinding`.
        public static let nonLoopbackBindingRefused = Kind(base: .nonLoopbackBindingRefused)
        /// A non-loopback address without an admin token.
        public static let adminTokenRequired = Kind(base: .adminTokenRequired)
        /// The port is taken by another process.
        public static let addressInUse = Kind(base: .addressInUse)
        /// Binding failed for another reason.
        public static let bindFailed = Kind(base: .bindFailed)
        /// The certificate authority's folder or files cannot be created or read (TLS).
        public static let certificateAuthorityUnavailable = Kind(base: .certificateAuthorityUnavailable)
        /// The certificate authority's key file is not a usable Airlock CA (TLS).
        public static let certificateAuthorityInvalid = Kind(base: .certificateAuthorityInvalid)

        /// HTTPS was asked for (``MockServer/Configuration/tls``, `airlock … --tls`) in a build of the
        /// package without its `HTTPS` trait.
        public static let httpsUnavailable = Kind(base: .httpsUnavailable)

        /// A timeout or the connection limit is not usable (``MockServer/ConnectionLimits``).
        public static let invalidLimits = Kind(base: .invalidLimits)

        /// The kind's name.
        public var description: String { "\(base)" }
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// What went wrong and how to fix it.
    public let description: String

    static func nonLoopbackBindingRefused(host: String, address: SocketAddress) -> MockServerError {
        let resolved = address.ipAddress.map { $0 == host ? "" : " (which resolves to \($0))" } ?? ""
        return MockServerError(
            kind: .nonLoopbackBindingRefused,
            description: "refusing to bind \(host)\(resolved): only loopback addresses are allowed by default. "
                + "Set allowsNonLoopbackBinding (airlock serve --allow-remote) to serve other machines."
        )
    }

    static func adminTokenRequired(host: String) -> MockServerError {
        MockServerError(
            kind: .adminTokenRequired,
            description: "binding \(host) exposes the admin API beyond this machine: set an adminToken (airlock serve --admin-token …)."
        )
    }

    static func bindFailed(host: String, port: Int, underlying error: any Error) -> MockServerError {
        let text = "\(error)"
        if text.contains("Address already in use") || text.contains("errno: 98") || text.contains("errno: 48") {
            return MockServerError(
                kind: .addressInUse,
                description: "cannot listen on \(host):\(port): another process is using the port. Choose another "
                    + "(--port N, or --port 0 for a free one), or stop the other process (`lsof -i :\(port)` names it)."
            )
        }
        return MockServerError(kind: .bindFailed, description: "cannot listen on \(host):\(port): \(text)")
    }

    static func invalidLimits(_ problem: String) -> MockServerError {
        MockServerError(
            kind: .invalidLimits,
            description: "cannot start: \(problem). Give timeouts above 0 and at most \(Int(ResponseLimits.maximumSeconds)) seconds and at least one connection "
                + "(MockServer.ConnectionLimits; airlock serve --header-timeout, --idle-timeout, --max-connections)."
        )
    }

    static func certificateAuthorityUnavailable(file: String, reason: String, fix: String) -> MockServerError {
        MockServerError(kind: .certificateAuthorityUnavailable, description: "cannot use the Airlock CA at \(file): \(reason). \(fix)")
    }

    static func certificateAuthorityInvalid(file: String, directory: String, reason: String) -> MockServerError {
        MockServerError(
            kind: .certificateAuthorityInvalid,
            description: "\(file) is not a usable Airlock CA: \(reason). Delete the folder \(directory) to have a new CA made "
                + "(clients that trusted the old one must then trust the new one), or point the CA folder elsewhere "
                + "(MockServer.TLS(certificateAuthorityDirectory:), airlock --ca-dir, AIRLOCK_CA_DIR)."
        )
    }

    static func httpsUnavailable() -> MockServerError {
        MockServerError(
            kind: .httpsUnavailable,
            description: "HTTPS needs the Airlock package's HTTPS trait, which this build was made without. "
                + "In your manifest: .package(path: \"../Airlock\", traits: [\"HTTPS\"]) (or url:…, traits: [\"HTTPS\"]); "
                + "for the command: swift run --traits HTTPS airlock … --tls (in a clone of Airlock)."
        )
    }
}

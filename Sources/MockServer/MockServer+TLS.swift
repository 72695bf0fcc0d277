import Foundation
import NIOSSL

extension MockServer {
    /// HTTPS for a server: a certificate authority kept in a folder signs a certificate for each
    /// host a client asks for.
    ///
    /// With TLS on, the server takes HTTPS and plain HTTP on the same port (it tells them apart by
    /// the first byte a client sends): ``MockServer/baseURL`` is `https://…` (origin mode), and
    /// `CONNECT` tunnels to any port carry TLS that the server ends with a certificate for the
    /// tunnel's host (proxy mode), so `https://api.example.com/…` is served from the same stubs:
    ///
    /// ```swift
    /// let server = MockServer(configuration: .init(tls: .init()))
    /// server.addResponses(forPath: "/users", host: "api.example.com") { MockResponse.plaintext("[]") }
    /// try await server.start()
    /// let client = HTTPClient(configuration: server.httpClientConfiguration())   // import MockServerHTTPClient
    /// // client.get(url: "https://api.example.com/users") → 200 "[]", certificates checked
    /// ```
    public struct TLS: Sendable {
        /// The folder the certificate authority is kept in; made on first use, reused after.
        /// Defaults to ``CertificateAuthority/defaultDirectory`` (`.build/airlock-ca`).
        public var certificateAuthorityDirectory: URL

        /// Creates TLS options.
        /// - Parameter certificateAuthorityDirectory: The folder the CA is kept in.
        public init(certificateAuthorityDirectory: URL = CertificateAuthority.defaultDirectory) {
            self.certificateAuthorityDirectory = certificateAuthorityDirectory
        }
    }

    /// The certificate authority the server's certificates are signed with; `nil` before
    /// ``start()`` or without ``Configuration/tls``.
    public var certificateAuthority: CertificateAuthority? {
        state.withLock { $0.tls?.authority }
    }
}

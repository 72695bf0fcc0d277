import AsyncHTTPClient
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
    /// let client = HTTPClient(configuration: server.httpClientConfiguration())
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

    /// An AsyncHTTPClient configuration that sends every request through this server (as its
    /// proxy) and trusts the server's certificate authority, so that a client made with it is
    /// served the stubs for its real URLs, with certificate verification on:
    ///
    /// ```swift
    /// let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: server.httpClientConfiguration())
    /// let response = try await client.execute(HTTPClientRequest(url: "https://api.example.com/users"), timeout: .seconds(5))
    /// ```
    ///
    /// Call it after ``start()`` (the port is known then).
    ///
    /// - Parameter configuration: The configuration to start from (timeouts, redirects…); its TLS
    ///   configuration, if any, keeps its own trust roots and gains the CA.
    /// - Returns: The configuration with `proxy` set to this server and, with TLS on, the CA in
    ///   `tlsConfiguration.additionalTrustRoots`.
    public func httpClientConfiguration(_ configuration: HTTPClient.Configuration = HTTPClient.Configuration()) -> HTTPClient.Configuration {
        var configuration = configuration
        configuration.proxy = .server(host: self.configuration.host, port: port)
        if let authority = certificateAuthority, let certificate = try? authority.nioSSLCertificate {
            var tls = configuration.tlsConfiguration ?? .makeClientConfiguration()
            tls.additionalTrustRoots.append(.certificates([certificate]))
            configuration.tlsConfiguration = tls
        }
        return configuration
    }
}

import AsyncHTTPClient
import MockServer
import NIOSSL

extension MockServer {
    /// An AsyncHTTPClient configuration that sends every request through this server (as its
    /// proxy) and trusts the server's certificate authority, so that a client made with it is
    /// served the stubs for its real URLs, with certificate verification on:
    ///
    /// ```swift
    /// let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: server.httpClientConfiguration())
    /// let response = try await client.execute(HTTPClientRequest(url: "https://api.example.com/users"), timeout: .seconds(5))
    /// ```
    ///
    /// Call it after the server's `start()` (the port is known then).
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

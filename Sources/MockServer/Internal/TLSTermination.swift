import AirlockBase
import AirlockCore
import Foundation
import Logging
import NIOCore
import NIOSSL

/// Ends TLS for a server: one SSL context per host name, each with a certificate the CA makes
/// the first time a client asks for that host, kept until it nears its end. ALPN offers `h2`
/// and `http/1.1` on the server's own connections, `http/1.1` alone inside a `CONNECT` tunnel: a
/// context for each, per host.
final class TLSTermination: Sendable {
    let authority: CertificateAuthority
    private let contexts = Locked([Key: (context: NIOSSLContext, renewAfter: Date)]())

    private struct Key: Hashable {
        var host: String
        var offersHTTP2: Bool
    }

    init(authority: CertificateAuthority) {
        self.authority = authority
    }

    /// The SSL context that shows a certificate for `host`.
    ///
    /// - Parameters:
    ///   - host: The host the client named (SNI), or the address it reached.
    ///   - offeringHTTP2: Whether ALPN offers `h2` before `http/1.1` (the connection's pipeline
    ///     can serve either), or `http/1.1` alone.
    func context(for host: String, offeringHTTP2: Bool) throws -> NIOSSLContext {
        let host = CertificateAuthority.normalized(host)
        let key = Key(host: host, offersHTTP2: offeringHTTP2)
        let now = Date()
        if let cached = contexts.withLock({ $0[key] }), cached.renewAfter > now {
            return cached.context
        }
        let identity = try authority.serverIdentity(for: host, now: now)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(identity.certificate)],
            privateKey: .privateKey(identity.privateKey)
        )
        configuration.minimumTLSVersion = .tlsv12
        // Saying which protocols the pipeline serves: a client that offers h2 where only HTTP/1.1
        // is served (a tunnel) stays on HTTP/1.1.
        configuration.applicationProtocols = offeringHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
        let context = try NIOSSLContext(configuration: configuration)
        contexts.withLock { $0[key] = (context, identity.renewAfter) }
        return context
    }
}

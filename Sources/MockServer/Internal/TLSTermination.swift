import AirlockBase
import AirlockCore
import Foundation
import Logging
import NIOCore
import NIOSSL

/// Ends TLS for a server: one SSL context per host name, each with a certificate the CA makes
/// the first time a client asks for that host, kept until it nears its end.
final class TLSTermination: Sendable {
    let authority: CertificateAuthority
    private let contexts = Locked([String: (context: NIOSSLContext, renewAfter: Date)]())

    init(authority: CertificateAuthority) {
        self.authority = authority
    }

    /// The SSL context that shows a certificate for `host`.
    func context(for host: String) throws -> NIOSSLContext {
        let host = CertificateAuthority.normalized(host)
        let now = Date()
        if let cached = contexts.withLock({ $0[host] }), cached.renewAfter > now {
            return cached.context
        }
        let identity = try authority.serverIdentity(for: host, now: now)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(identity.certificate)],
            privateKey: .privateKey(identity.privateKey)
        )
        configuration.minimumTLSVersion = .tlsv12
        // The server speaks HTTP/1.1 only; saying so keeps clients that offer h2 on HTTP/1.1.
        configuration.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: configuration)
        contexts.withLock { $0[host] = (context, identity.renewAfter) }
        return context
    }
}

import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// Looks at the first bytes of a connection, or of a `CONNECT` tunnel, and steps out of the
/// pipeline: a TLS handshake record (first byte `0x16`) gets TLS ended here, with a certificate
/// for the host the client names in SNI (or `fallbackHost` when it names none); anything else is
/// plain HTTP and passes on untouched. A plain HTTP request never starts with `0x16`, so one port
/// serves both.
///
/// For TLS it puts NIOTLS's `SNIHandler` behind itself; that handler reads the client hello,
/// and once the server name is known a `NIOSSLServerHandler` for that host goes in its place.
final class TLSDetector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The content type of a TLS handshake record, the first byte of every TLS connection.
    static let handshakeRecord: UInt8 = 0x16

    private let termination: TLSTermination
    private let offersHTTP2: Bool
    private let fallbackHost: String
    private let logger: Logger

    /// - Parameters:
    ///   - termination: Makes the SSL context for a host.
    ///   - offersHTTP2: Whether ALPN offers `h2` before `http/1.1`: on the server's own connections
    ///     (whose ``HTTPVersionDetector`` serves either), not inside a `CONNECT` tunnel (HTTP/1.1 only).
    ///   - fallbackHost: The host whose certificate is shown to a client that sends no SNI (an
    ///     IP-address host): the `CONNECT` target, or the server's own address.
    ///   - logger: Where failures to make a certificate are reported.
    init(termination: TLSTermination, offersHTTP2: Bool, fallbackHost: String, logger: Logger) {
        self.termination = termination
        self.offersHTTP2 = offersHTTP2
        self.fallbackHost = fallbackHost
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if buffer.readableBytesView.first == Self.handshakeRecord {
            let sni = ByteToMessageHandler(SNIHandler(sniCompleteHandler: Self.startTLS(on: context.channel, termination: termination, offersHTTP2: offersHTTP2, fallbackHost: fallbackHost, logger: logger)))
            do {
                try context.pipeline.syncOperations.addHandler(sni, position: .after(self))
            } catch {
                context.close(promise: nil)
                return
            }
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// What `SNIHandler` calls with the server name: puts a `NIOSSLServerHandler` for that host
    /// right behind it (it then leaves, handing over the client hello).
    private static func startTLS(
        on channel: any Channel,
        termination: TLSTermination,
        offersHTTP2: Bool,
        fallbackHost: String,
        logger: Logger
    ) -> (SNIResult) -> EventLoopFuture<Void> {
        { result in
            let host: String
            switch result {
            case .hostname(let name): host = name
            case .fallback: host = fallbackHost
            }
            let started = channel.eventLoop.makeCompletedFuture {
                let sslContext = try termination.context(for: host, offeringHTTP2: offersHTTP2)
                let pipeline = channel.pipeline.syncOperations
                let sniContext = try pipeline.context(handlerType: ByteToMessageHandler<SNIHandler>.self)
                try pipeline.addHandler(NIOSSLServerHandler(context: sslContext), position: .after(sniContext.handler))
            }
            started.whenFailure { error in
                logger.error("Airlock: cannot serve HTTPS for \(host): \(error)")
                channel.close(promise: nil)
            }
            return started
        }
    }
}

import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// A `CONNECT` tunnel. Clients such as AsyncHTTPClient tunnel even plain-HTTP requests through
/// their proxy: the server accepts, and the requests that follow in the tunnel are served like
/// any other (their `Host` header names the original host). With TLS on, a tunnel whose client
/// starts TLS (to any port) gets it ended here with a certificate for the tunnel's host, and its
/// requests are served as `https://host/…`. Without TLS, port 443 gets a `501` that says how to
/// turn it on.
struct ConnectTunnel {
    /// The host the client asked for, normalized.
    let host: String
    /// The port the client asked for; 443 when it named none.
    let port: Int

    /// The tunnel a `CONNECT` request's target (`host:port`, `[v6]:port`) names.
    init(target uri: String) {
        (host, port) = Self.target(uri)
    }

    /// The host and port of a CONNECT target (`host:port`, `[v6]:port`); 443 when no port is given.
    static func target(_ uri: String) -> (host: String, port: Int) {
        guard let colon = uri.lastIndex(of: ":"), !uri.hasSuffix("]"), let port = Int(uri[uri.index(after: colon)...]) else {
            return (CertificateAuthority.normalized(uri), 443)
        }
        return (CertificateAuthority.normalized(String(uri[..<colon])), port)
    }

    /// The `501` for HTTPS through a tunnel when TLS is off, with how to turn it on; `nil` when
    /// the tunnel can be served. SwiftNIO's encoder drops the body of any response to `CONNECT`
    /// (RFC 9110 forbids one only on a 2xx): the refusal is written below the encoder, as bytes,
    /// so that the explanation arrives.
    func refusal(for uri: String, tlsIsOn: Bool) -> ByteBuffer? {
        guard port == 443, !tlsIsOn else { return nil }
        let message = "Airlock MockServer: HTTPS through CONNECT (\(uri)) needs TLS, which is off. Start the server "
            + "with TLS (MockServer.Configuration(tls: .init()), or `airlock serve --tls`) and have the client trust "
            + "its CA (server.httpClientConfiguration(), or `curl --cacert \"$(airlock ca path)\"`)"
            + (CertificateAuthority.canMakeCertificates ? ".\n" : "; this build also needs the package's HTTPS trait (swift run --traits HTTPS airlock …).\n")
        return GracefulClose.rawResponse(status: "501 Not Implemented", message: message)
    }

    /// The response that opens the tunnel.
    static func established(version: HTTPVersion) -> HTTPResponseHead {
        HTTPResponseHead(version: version, status: .custom(code: 200, reasonPhrase: "Connection Established"), headers: ["Content-Length": "0"])
    }

    /// Reshapes the connection's pipeline for the tunnel, once its `200` is written: with TLS, a
    /// ``TLSDetector`` in front (the tunnel's first bytes tell TLS from plain HTTP); and a fresh
    /// request decoder, because SwiftNIO's stops parsing after `CONNECT`. Closes the connection
    /// when the pipeline cannot be reshaped.
    ///
    /// - Parameters:
    ///   - context: A context in the connection's pipeline.
    ///   - tls: Ends TLS inside the tunnel; `nil` without TLS.
    ///   - logger: Where failures to make a certificate are reported.
    func open(in context: ChannelHandlerContext, tls: TLSTermination?, logger: Logger) {
        let pipeline = context.pipeline.syncOperations
        if let tls {
            // Inside an HTTPS connection to the server itself, the tunnel's bytes come out of that
            // connection's TLS handler.
            // The tunnel's pipeline is HTTP/1.1's: ALPN offers only that.
            let detector = TLSDetector(termination: tls, offersHTTP2: false, fallbackHost: host, logger: logger)
            do {
                if let outer = try? pipeline.handler(type: NIOSSLServerHandler.self) {
                    try pipeline.addHandler(detector, position: .after(outer))
                } else {
                    try pipeline.addHandler(detector, position: .first)
                }
            } catch {
                return context.close(promise: nil)
            }
        }
        // A client waits for the 200 before sending into the tunnel, so no request bytes arrive
        // between the old decoder's removal and the fresh one's arrival.
        guard let old = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self),
            let pipelining = try? pipeline.handler(type: HTTPServerPipelineHandler.self)
        else { return context.close(promise: nil) }
        let fresh = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes))
        let loopBound = NIOLoopBound((fresh, pipelining, context.pipeline), eventLoop: context.eventLoop)
        pipeline.removeHandler(old).whenComplete { _ in
            let (fresh, pipelining, pipeline) = loopBound.value
            try? pipeline.syncOperations.addHandler(fresh, position: .before(pipelining))
        }
    }
}

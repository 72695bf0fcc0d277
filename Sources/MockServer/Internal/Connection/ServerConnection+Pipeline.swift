import NIOCore
import NIOHTTP1

extension ServerConnection {
    /// Sets up the pipeline of a connection the server took in: SwiftNIO's standard HTTP/1.1
    /// server pipeline (with its `400` responder replaced by one that says why), the
    /// ``RequestHandler`` behind it and the ``ByteArrivalObserver`` in front, both feeding one
    /// ``ServerConnection``; in front of them an ``HTTPVersionDetector``, which puts the HTTP/2
    /// pipeline in their place when the client speaks HTTP/2 (``switchToHTTP2(_:server:activity:)``);
    /// with TLS, a ``TLSDetector`` first, so that HTTPS and plain HTTP (proxy requests, `CONNECT`)
    /// share the port, and ALPN offers `h2` beside `http/1.1`.
    ///
    /// ``MockServer/start()`` calls it for every connection it accepts, and tests for an
    /// `EmbeddedChannel`. It must run on the channel's event loop.
    static func configurePipeline(of channel: any Channel, server: ServerContext, activity: ConnectionActivity) throws {
        let limits = StateMachine.Limits(server.configuration.limits, maxBodySize: server.configuration.maxRequestBodySize)
        let connection = ServerConnection(limits: limits, activity: activity, now: channel.eventLoop.now)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: false)
        try pipeline.addHandler(BadRequestResponder(connection: connection))
        try pipeline.addHandler(RequestHandler(server: server, connection: connection))
        try pipeline.addHandler(ByteArrivalObserver(connection), position: .first)
        try pipeline.addHandler(HTTPVersionDetector { switchToHTTP2($0, server: server, activity: activity) }, position: .first)
        if let tls = server.tls {
            // A client that sends no SNI called an address: the one it reached.
            let address = channel.localAddress?.ipAddress ?? server.configuration.host
            let detector = TLSDetector(termination: tls, offersHTTP2: true, fallbackHost: address, logger: server.configuration.logger)
            try pipeline.addHandler(detector, position: .first)
        }
    }
}

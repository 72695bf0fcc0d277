import NIOCore
import NIOHTTP1

extension ServerConnection {
    /// Sets up the pipeline of a connection the server took in: SwiftNIO's standard HTTP/1.1
    /// server pipeline (with its `400` responder replaced by one that says why), the
    /// ``RequestHandler`` behind it and the ``ByteArrivalObserver`` in front, both feeding one
    /// ``ServerConnection``; with TLS, a ``TLSDetector`` first, so that HTTPS and plain HTTP
    /// (proxy requests, `CONNECT`) share the port.
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
        if let tls = server.tls {
            // A client that sends no SNI called an address: the one it reached.
            let address = channel.localAddress?.ipAddress ?? server.configuration.host
            try pipeline.addHandler(TLSDetector(termination: tls, fallbackHost: address, logger: server.configuration.logger), position: .first)
        }
    }
}

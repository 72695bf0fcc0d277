import NIOCore

extension MockServer {
    /// Sets up on `channel` the pipeline every connection this server accepts gets, without a
    /// socket: for measuring what the server's own handlers cost per request on an
    /// `EmbeddedChannel` (`Benchmarks/ServerPipeline`), beside SwiftNIO's bare pipeline.
    ///
    /// The channel answers from this server's registry as an accepted connection would; the
    /// server need not be started. Call it on the channel's event loop.
    @_spi(Benchmarks)
    public func configureConnectionPipeline(of channel: any Channel) throws {
        let context = ServerContext(server: self, forwarder: Forwarder(), tls: nil)
        try ServerConnection.configurePipeline(of: channel, server: context, activity: ConnectionActivity())
    }
}

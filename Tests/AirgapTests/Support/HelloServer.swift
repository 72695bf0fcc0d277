import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP server on a loopback address and an ephemeral port. Answers every request with
/// `200 hello`. Tests bind it to 127.0.0.2 (which Linux routes to loopback) when they need an
/// address that is *not* in the allowed list, so blocking it cannot disturb other tests.
final class HelloServer: Sendable {
    private let channel: any Channel
    let host: String
    let port: Int

    private init(channel: any Channel, host: String) {
        self.channel = channel
        self.host = host
        self.port = channel.localAddress?.port ?? 0
    }

    /// Runs `body` with a started server and always shuts it down.
    static func with<T>(host: String = "127.0.0.2", _ body: (HelloServer) async throws -> T) async throws -> T {
        let channel = try await ServerBootstrap(group: airgapTestEventLoops)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(HelloHandler())
                }
            }
            .bind(host: host, port: 0)
            .get()
        let server = HelloServer(channel: channel, host: host)
        do {
            let result = try await body(server)
            try? await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// `host:port`, with brackets for IPv6.
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    func url(_ path: String = "/") -> String { "http://\(authority)\(path)" }
}

private final class HelloHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "5")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "hello")))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            bound.value.close(promise: nil)
        }
    }
}

/// Event loops of Airgap's tests' own: a violation on one of their threads symbolicates a stack,
/// which must not stall the event loops other suites in the process use.
let airgapTestEventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP server on 127.0.0.1 and an ephemeral port, standing in for "the network" in
/// passthrough tests. It answers every request with `200` and the body
/// `real <METHOD> <URI>`, and echoes the `X-Probe` request header as `X-Probe-Echo`.
final class LoopbackServer: Sendable {
    private let channel: any Channel
    let port: Int

    private init(channel: any Channel) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    static func start() async throws -> LoopbackServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(EchoHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return LoopbackServer(channel: channel)
    }

    /// Runs `body` with a started server and always shuts it down.
    static func with(_ body: (LoopbackServer) async throws -> Void) async throws {
        let server = try await start()
        do {
            try await body(server)
            try await server.channel.close()
        } catch {
            try? await server.channel.close()
            throw error
        }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}

private final class EchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let body = "real \(head.method.rawValue) \(head.uri)"
        var headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "\(body.utf8.count)")])
        if let probe = head.headers.first(name: "X-Probe") {
            headers.add(name: "X-Probe-Echo", value: probe)
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

import AirlockBase
import AirlockCore
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP server on 127.0.0.1 and an ephemeral port, standing in for "the network" in
/// passthrough and logging tests. It answers every request with `200` and the body
/// `real <METHOD> <URI>` (plus ` body=<body>` when the request had one), echoes the `X-Probe`
/// request header as `X-Probe-Echo`, numbers its responses (`X-Request-Number: 1`, 2, …), and
/// counts the requests it received.
package final class LoopbackServer: Sendable {
    private let channel: any Channel
    private let counter: RequestCounter
    package let port: Int

    private init(channel: any Channel, counter: RequestCounter) {
        self.channel = channel
        self.counter = counter
        self.port = channel.localAddress?.port ?? 0
    }

    /// Event loops of these tests' own, never stalled by other suites in the process.
    private static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// How many requests the server has received.
    package var requestCount: Int { counter.count }

    package static func start() async throws -> LoopbackServer {
        let counter = RequestCounter()
        let channel = try await ServerBootstrap(group: Self.eventLoops)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(EchoHandler(counter: counter))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return LoopbackServer(channel: channel, counter: counter)
    }

    /// Runs `body` with a started server and always shuts it down.
    package static func with(_ body: (LoopbackServer) async throws -> Void) async throws {
        let server = try await start()
        do {
            try await body(server)
            try await server.channel.close()
        } catch {
            try? await server.channel.close()
            throw error
        }
    }

    /// Stops the server: nothing answers on its port afterwards.
    package func stop() async throws {
        try await channel.close()
    }

    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}

package final class RequestCounter: Sendable {
    private let value = Locked(0)

    package var count: Int { value.withLock { $0 } }

    package func increment() { value.withLock { $0 += 1 } }
}

private final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let counter: RequestCounter
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(counter: RequestCounter) {
        self.counter = counter
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            counter.increment()
            var text = "real \(head.method.rawValue) \(head.uri)"
            if body.readableBytes > 0 {
                text += " body=" + String(buffer: body)
            }
            var headers = HTTPHeaders([
                ("Content-Type", "text/plain"), ("Content-Length", "\(text.utf8.count)"), ("X-Request-Number", "\(counter.count)"),
            ])
            if let probe = head.headers.first(name: "X-Probe") {
                headers.add(name: "X-Probe-Echo", value: probe)
            }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

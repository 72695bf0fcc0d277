// A minimal HTTP/2 server (h2c with prior knowledge) on swift-nio-http2's standard pipeline: the
// anchor for `airlock serve`'s speed over HTTP/2. Each stream is mapped onto HTTP/1's request and
// response parts by `HTTP2FramePayloadToHTTP1ServerCodec` — as `airlock serve` maps them — and gets
// the same JSON body as the HTTP/1.1 anchor (Benchmarks/NIOAnchor), written in `channelRead` and
// flushed in `channelReadComplete`.
//
//     NIOAnchorHTTP2 PORT [THREADS]
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix

let body = #"{"id":1,"name":"Alice","email":"alice@example.com","roles":["admin","editor"],"active":true}"#

final class FixedAnswer: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.utf8.count))
        let head = HTTPResponseHead(version: .http2, status: .ok, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

let arguments = CommandLine.arguments.dropFirst()
let port = arguments.first.flatMap { Int($0) } ?? 18086
let threads = arguments.dropFirst().first.flatMap { Int($0) } ?? 1

let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.configureHTTP2Pipeline(mode: .server) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try stream.pipeline.syncOperations.addHandler(FixedAnswer())
            }
        }.map { _ in }
    }
    .bind(host: "127.0.0.1", port: port)
    .wait()
print("NIOAnchorHTTP2 listening on http://127.0.0.1:\(port) (h2c, prior knowledge; \(threads) thread(s))")
try channel.closeFuture.wait()

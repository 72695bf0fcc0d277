// A minimal HTTP/1.1 server on SwiftNIO's standard pipeline (`configureHTTPServerPipeline`): the
// anchor for `airlock serve`'s speed. Every request gets the same JSON body; the head, body and end
// are written in `channelRead`, and flushed once per read in `channelReadComplete`.
//
//     NIOAnchor PORT [THREADS] [--pipelining]
//
// THREADS defaults to 1 (as nginx's one worker); `--pipelining` turns on the pipeline's
// pipelining assistance (HTTPServerPipelineHandler), which airlock serve uses.
import NIOCore
import NIOHTTP1
import NIOPosix

let body = #"{"id":1,"name":"Alice","email":"alice@example.com","roles":["admin","editor"],"active":true}"#

final class FixedAnswer: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let request) = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        let head = HTTPResponseHead(version: request.version, status: .ok, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

let arguments = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("--") }
let port = arguments.first.flatMap { Int($0) } ?? 18085
let threads = arguments.dropFirst().first.flatMap { Int($0) } ?? 1
let pipelining = CommandLine.arguments.contains("--pipelining")

let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: pipelining)
            try channel.pipeline.syncOperations.addHandler(FixedAnswer())
        }
    }
    .bind(host: "127.0.0.1", port: port)
    .wait()
print("NIOAnchor listening on http://127.0.0.1:\(port) (\(threads) thread(s), pipelining assistance \(pipelining ? "on" : "off"))")
try channel.closeFuture.wait()

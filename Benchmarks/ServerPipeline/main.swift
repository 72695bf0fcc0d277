// ServerPipeline: what `airlock serve`'s pipeline costs per request in user space, beside
// SwiftNIO's bare standard pipeline, with no socket and no kernel — the part of a request's cost
// that is the server's own code.
//
//     swift run -c release ServerPipeline [--requests N] [--rounds R]
//
// Each side is an `EmbeddedChannel`: the anchor is `configureHTTPServerPipeline` (no pipelining
// assistance) with the handler of Benchmarks/NIOAnchor (head, body and end written in
// `channelRead`, flushed in `channelReadComplete`), as Benchmarks/NIOAnchor runs by default; airlock is the pipeline `MockServer` gives every accepted connection,
// answering from a registry holding the stub `Benchmarks/servers.py` serves (the same 92-byte
// JSON, `lifetime: eternal`), with `airlock serve`'s journal capacity. Both read the same
// keep-alive `GET` and write the same response. The rounds alternate, each timing N requests by
// the thread's CPU clock, so a neighbour that slows one side slows the other alike; the medians
// and their ratio are printed. On a socket the kernel adds the same cost to both (`servers.py cpu`
// measures that whole).
import Foundation
@_spi(Benchmarks) import MockServer
import NIOCore
import NIOEmbedded
import NIOHTTP1

let body = #"{"id":1,"name":"Alice","email":"alice@example.com","roles":["admin","editor"],"active":true}"#
let request = "GET /bench.json HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: wrk\r\n\r\n"

/// Benchmarks/NIOAnchor's handler.
final class FixedAnswer: ChannelInboundHandler {
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

let arguments = CommandLine.arguments
let requests = arguments.firstIndex(of: "--requests").flatMap { Int(arguments[$0 + 1]) } ?? 200_000
let rounds = arguments.firstIndex(of: "--rounds").flatMap { Int(arguments[$0 + 1]) } ?? 7

let address = try SocketAddress(ipAddress: "127.0.0.1", port: 8080)

func anchorChannel() throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    channel.localAddress = address
    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false)
    try channel.pipeline.syncOperations.addHandler(FixedAnswer())
    try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
    return channel
}

let server = MockServer()
server.journalCapacity = .server
server.addResponses(forPath: "/bench.json", host: "**", responses: [MockResponse(data: Data(body.utf8), contentType: "application/json", lifetime: .eternal)])

func airlockChannel() throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    channel.localAddress = address
    try server.configureConnectionPipeline(of: channel)
    try channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 40001)).wait()
    return channel
}

/// The CPU time this thread has used, in nanoseconds.
func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}

/// Serves `count` requests on `channel`; returns the CPU time per request, in nanoseconds, and
/// the response bytes of the last one.
func serve(_ channel: EmbeddedChannel, count: Int) throws -> (nanoseconds: Double, response: String) {
    let bytes = ByteBuffer(string: request)
    var last = ByteBuffer()
    let start = threadCPUTime()
    for _ in 0..<count {
        try channel.writeInbound(bytes)
        last.clear()
        while let part = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(var buffer) = part else { fatalError("a file region in a fixed answer") }
            last.writeBuffer(&buffer)
        }
    }
    let elapsed = threadCPUTime() - start
    return (elapsed / Double(count), String(buffer: last))
}

let anchor = try anchorChannel()
let airlock = try airlockChannel()
// Both answer the same body, or the comparison means nothing.
for (name, channel) in [("anchor", anchor), ("airlock", airlock)] {
    let response = try serve(channel, count: 1).response
    guard response.hasPrefix("HTTP/1.1 200 OK\r\n"), response.hasSuffix("\r\n\r\n" + body) else {
        fatalError("\(name) answered something else:\n\(response)")
    }
}
_ = try serve(anchor, count: requests / 4)
_ = try serve(airlock, count: requests / 4)

var anchorTimes: [Double] = []
var airlockTimes: [Double] = []
for round in 0..<rounds {
    // The side that goes first alternates.
    if round.isMultiple(of: 2) {
        anchorTimes.append(try serve(anchor, count: requests).nanoseconds)
        airlockTimes.append(try serve(airlock, count: requests).nanoseconds)
    } else {
        airlockTimes.append(try serve(airlock, count: requests).nanoseconds)
        anchorTimes.append(try serve(anchor, count: requests).nanoseconds)
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let anchorMedian = median(anchorTimes)
let airlockMedian = median(airlockTimes)
print("User-space CPU per request on an EmbeddedChannel, \(requests.formatted()) requests × \(rounds) rounds interleaved; medians")
print("")
print("| pipeline | CPU per request | each round |")
print("|---|---:|---|")
print("| swift-nio (anchor): configureHTTPServerPipeline + a fixed answer | \(String(format: "%.2f µs", anchorMedian / 1000)) | \(anchorTimes.map { String(format: "%.2f", $0 / 1000) }.joined(separator: ", ")) |")
print("| airlock: MockServer's connection pipeline, journal on | \(String(format: "%.2f µs", airlockMedian / 1000)) | \(airlockTimes.map { String(format: "%.2f", $0 / 1000) }.joined(separator: ", ")) |")
print("")
print(String(format: "airlock / anchor: %.2f×; airlock's own: %.2f µs per request", airlockMedian / anchorMedian, (airlockMedian - anchorMedian) / 1000))

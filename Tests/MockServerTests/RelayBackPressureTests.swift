import AirlockBase
import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOPosix
import Testing

/// A relayed stream goes no faster than its client reads: a client that stops reading stops the
/// server reading the upstream, so what the upstream sends waits in the upstream's own buffers,
/// not in the server's memory; once the client reads again it gets every byte, intact.
///
/// By construction, not by time: the upstream (`Upstream/sse_upstream.py`, `/flood`) counts the
/// bytes its kernel took. Without back-pressure the server would read the whole flood into memory
/// and the count would reach the total; with it, the count stops below what the buffers between
/// the two ends can hold. The test waits until the count has stopped moving (a lower bound on
/// time only) or passed that bound.
@Suite struct RelayBackPressureTests {
    /// The flood: far more than every socket buffer on the way can hold.
    static let total = 128 << 20
    /// What the buffers between the upstream and a client that reads nothing can hold at most:
    /// the upstream's send buffer (64 KiB), the server's receive buffer from it and send buffer to
    /// the client (the kernel's `tcp_rmem`/`tcp_wmem` maxima here: 32 MiB and 4 MiB), the
    /// client's receive buffer (64 KiB), and the server's outbound buffer and one read.
    static let bound = 48 << 20

    @Test func aClientThatStopsReadingStopsTheUpstreamAndThenGetsEveryByte() async throws {
        try await withPythonUpstream("sse_upstream.py") { upstream in
            let mock = HTTPMock()
            mock.unmockedPolicy = .passthrough
            var configuration = MockServer.Configuration(upstream: URL(string: "http://127.0.0.1:\(upstream)"))
            // Relayed, not recorded: a stream over the body limit is not kept in the journal.
            configuration.maxRequestBodySize = 1 << 20
            try await withServer(mock, configuration: configuration) { server in
                try await withClient { client in
                    try await withSlowReader(port: server.port) { reader in
                        try await reader.send("GET /flood?bytes=\(Self.total)&name=stall HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                        // The head and the first bytes of the body: the stream is under way.
                        try await reader.read { $0.bodyBytes > 0 }
                        // The client reads nothing more; the upstream sends until it cannot.
                        var sent = 0
                        var unchanged = 0
                        while sent < Self.bound, unchanged < 10 {
                            try await Task.sleep(for: .milliseconds(100))
                            let now = Int(try await send(client, "http://127.0.0.1:\(upstream)/sent?name=stall").text) ?? 0
                            unchanged = now == sent ? unchanged + 1 : 0
                            sent = now
                        }
                        #expect(sent < Self.bound, "the upstream sent \(sent) of \(Self.total) bytes to a client that read \(reader.body.bodyBytes): the server buffered them")
                        // The client reads again: every byte arrives, in order.
                        try await reader.read { $0.isComplete }
                        #expect(reader.body.bodyBytes == Self.total)
                        #expect(reader.body.mismatch == nil, "byte \(reader.body.mismatch ?? -1) differs from what the upstream sent")
                        #expect(reader.body.status == 200)
                    }
                }
            }
        }
    }
}

/// A raw loopback client with a small receive buffer that reads only when told to (SwiftNIO's
/// async channel stops reading the socket while nobody consumes its stream), and checks the flood
/// it reads as it goes instead of keeping it.
private struct SlowReader {
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private(set) var body = FloodBody()

    fileprivate init(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    func send(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Reads until `isEnough` holds, or fails when the connection ends first.
    mutating func read(until isEnough: (FloodBody) -> Bool) async throws {
        while !isEnough(body) {
            guard let buffer = try await inbound.next() else {
                Issue.record("the connection ended after \(body.bodyBytes) body bytes")
                return
            }
            body.take(buffer)
        }
    }
}

/// Opens a ``SlowReader`` to the server on `port`, runs `body`, and closes it.
private func withSlowReader(port: Int, _ body: (inout SlowReader) async throws -> Void) async throws {
    let channel = try await ClientBootstrap(group: testEventLoops)
        .connectTimeout(hangGuard)
        .channelOption(ChannelOptions.socketOption(.so_rcvbuf), value: 65536)
        .connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: port)) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                    wrappingChannelSynchronously: channel,
                    configuration: .init(backPressureStrategy: .init(lowWatermark: 1, highWatermark: 2))
                )
            }
        }
    try await channel.executeThenClose { inbound, outbound in
        var reader = SlowReader(inbound, outbound)
        try await body(&reader)
    }
}

/// The flood's response as it arrives: the head, then a chunked body whose byte `i` must be
/// `i % 251`. Keeps counts, not bytes.
private struct FloodBody {
    private enum Stage {
        case head([UInt8])
        case size([UInt8])
        case data(remaining: Int)
        case dataEnd(remaining: Int)
        case done
    }

    private var stage = Stage.head([])
    private(set) var status = 0
    private(set) var bodyBytes = 0
    /// The offset of the first body byte that is not what the upstream sent, if any.
    private(set) var mismatch: Int?
    var isComplete: Bool {
        if case .done = stage { return true }
        return false
    }

    /// The pattern, long enough to compare any buffer in one call at any phase.
    private static let pattern: [UInt8] = (0..<(1 << 20) + 251).map { UInt8($0 % 251) }

    mutating func take(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            while index < bytes.count {
                switch stage {
                case .head(var seen):
                    seen.append(bytes[index])
                    index += 1
                    if seen.suffix(4) == [13, 10, 13, 10] {
                        let line = String(decoding: seen.prefix { $0 != 13 }, as: UTF8.self)
                        status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
                        stage = .size([])
                    } else {
                        stage = .head(seen)
                    }
                case .size(var line):
                    let byte = bytes[index]
                    index += 1
                    guard byte == 10 else {
                        if byte != 13 { line.append(byte) }
                        stage = .size(line)
                        continue
                    }
                    let size = Int(String(decoding: line, as: UTF8.self), radix: 16) ?? 0
                    stage = size == 0 ? .done : .data(remaining: size)
                case .data(let remaining):
                    let count = min(remaining, bytes.count - index, 1 << 20)
                    let phase = bodyBytes % 251
                    let same = Self.pattern.withUnsafeBufferPointer { expected in
                        memcmp(bytes.baseAddress! + index, expected.baseAddress! + phase, count) == 0
                    }
                    if !same, mismatch == nil { mismatch = bodyBytes }
                    bodyBytes += count
                    index += count
                    stage = remaining == count ? .dataEnd(remaining: 2) : .data(remaining: remaining - count)
                case .dataEnd(let remaining):
                    index += 1
                    stage = remaining == 1 ? .size([]) : .dataEnd(remaining: remaining - 1)
                case .done:
                    index = bytes.count
                }
            }
        }
    }
}

import AirlockBase
import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOPosix
import Testing

/// A relayed stream (and a relayed WebSocket) goes no faster than its client reads: a client that
/// stops reading stops the server reading the upstream, so what the upstream sends waits in the
/// upstream's own buffers, not in the server's memory; once the client reads again it gets every
/// byte, intact.
///
/// By construction, not by time: the upstream (`Upstream/sse_upstream.py`, `/flood` and
/// `/ws-flood`) counts the bytes its kernel took. Without back-pressure the server would read the
/// whole flood into memory and the count would reach the total; with it, the count stops below
/// what the buffers between the two ends can hold. The test waits until the count has stopped
/// moving (a lower bound on time only) or passed that bound.
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
                        let sent = try await sentOnceStalled(client, upstream: upstream, name: "stall")
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

extension RelayBackPressureTests {
    /// The same for a relayed WebSocket: a client that stops reading stops the relay reading the
    /// upstream's frames; reading again, it gets every message, intact, and the upstream's close.
    @Test func aWebSocketClientThatStopsReadingStopsTheUpstreamAndThenGetsEveryByte() async throws {
        try await withPythonUpstream("sse_upstream.py") { upstream in
            let mock = HTTPMock()
            mock.unmockedPolicy = .passthrough
            // The journal and the relay's recording keep a megabyte of frames, not the flood.
            mock.journalCapacity = JournalCapacity(entries: 10, bytes: 1 << 20, bodyBytes: 1 << 20)
            var configuration = MockServer.Configuration(upstream: URL(string: "http://127.0.0.1:\(upstream)"))
            configuration.maxRequestBodySize = 1 << 20
            try await withServer(mock, configuration: configuration) { server in
                try await withClient { client in
                    try await withSlowReader(port: server.port, framing: .webSocket) { reader in
                        try await reader.send(
                            "GET /ws-flood?bytes=\(Self.total)&name=ws-stall HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
                        )
                        try await reader.read { $0.bodyBytes > 0 }
                        let sent = try await sentOnceStalled(client, upstream: upstream, name: "ws-stall")
                        #expect(sent < Self.bound, "the upstream sent \(sent) of \(Self.total) bytes to a client that read \(reader.body.bodyBytes): the server buffered them")
                        try await reader.read { $0.isComplete }
                        #expect(reader.body.status == 101)
                        #expect(reader.body.bodyBytes == Self.total)
                        #expect(reader.body.mismatch == nil, "byte \(reader.body.mismatch ?? -1) differs from what the upstream sent")
                    }
                }
            }
            // Nothing recorded this passthrough, so nothing went unrecorded: the journal keeps the
            // `101` (its own limit counts the frames it dropped), and the relay kept no copy.
            let entry = try #require(mock.requests.first { $0.path == "/ws-flood" })
            #expect(entry.response?.status == 101, "\(entry.response?.error ?? "no response")")
            #expect(entry.webSocketFramesDropped > 0)
        }
    }
}

/// How many bytes the upstream's flood `name` has handed its kernel once that count has stopped
/// moving for a second (a lower bound on time only), or once it has passed the bound.
private func sentOnceStalled(_ client: HTTPClient, upstream: Int, name: String) async throws -> Int {
    var sent = 0
    var unchanged = 0
    while sent < RelayBackPressureTests.bound, unchanged < 10 {
        try await Task.sleep(for: .milliseconds(100))
        let now = Int(try await send(client, "http://127.0.0.1:\(upstream)/sent?name=\(name)").text) ?? 0
        unchanged = now == sent ? unchanged + 1 : 0
        sent = now
    }
    return sent
}

/// A raw loopback client with a small receive buffer that reads only when told to (SwiftNIO's
/// async channel stops reading the socket while nobody consumes its stream), and checks the flood
/// it reads as it goes instead of keeping it.
private struct SlowReader {
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private(set) var body: FloodBody

    fileprivate init(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, framing: FloodBody.Framing) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
        body = FloodBody(framing: framing)
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
private func withSlowReader(port: Int, framing: FloodBody.Framing = .chunked, _ body: (inout SlowReader) async throws -> Void) async throws {
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
        var reader = SlowReader(inbound, outbound, framing: framing)
        try await body(&reader)
    }
}

/// The flood's response as it arrives: the head, then the body — chunks of a chunked response, or
/// the messages of a WebSocket, ended by its close — whose byte `i` must be `i % 251`. Keeps
/// counts, not bytes.
private struct FloodBody {
    /// How the body is framed.
    enum Framing {
        case chunked
        case webSocket
    }

    private enum Stage {
        case head([UInt8])
        /// A chunk's size line, or a WebSocket frame's header, as far as it came.
        case frameHead([UInt8])
        case data(remaining: Int, then: Stage.After)
        case skip(remaining: Int)
        case done

        enum After {
            case chunkEnd
            case nextFrame
        }
    }

    private let framing: Framing
    private var stage = Stage.head([])
    private(set) var status = 0
    private(set) var bodyBytes = 0
    /// The offset of the first body byte that is not what the upstream sent, if any.
    private(set) var mismatch: Int?
    var isComplete: Bool {
        if case .done = stage { return true }
        return false
    }

    init(framing: Framing) {
        self.framing = framing
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
                        stage = .frameHead([])
                    } else {
                        stage = .head(seen)
                    }
                case .frameHead(var seen):
                    seen.append(bytes[index])
                    index += 1
                    stage = framing == .chunked ? chunkHead(seen) : frameHead(seen)
                case .data(let remaining, let after):
                    let count = min(remaining, bytes.count - index, 1 << 20)
                    let phase = bodyBytes % 251
                    let same = Self.pattern.withUnsafeBufferPointer { expected in
                        memcmp(bytes.baseAddress! + index, expected.baseAddress! + phase, count) == 0
                    }
                    if !same, mismatch == nil { mismatch = bodyBytes }
                    bodyBytes += count
                    index += count
                    guard remaining == count else {
                        stage = .data(remaining: remaining - count, then: after)
                        continue
                    }
                    stage = after == .chunkEnd ? .skip(remaining: 2) : .frameHead([])
                case .skip(let remaining):
                    index += 1
                    stage = remaining == 1 ? .frameHead([]) : .skip(remaining: remaining - 1)
                case .done:
                    index = bytes.count
                }
            }
        }
    }

    /// A chunk's size line: the size once its line feed came (0 ends the body).
    private func chunkHead(_ line: [UInt8]) -> Stage {
        guard line.last == 10 else { return .frameHead(line) }
        let size = Int(String(decoding: line.filter { $0 != 13 && $0 != 10 }, as: UTF8.self), radix: 16) ?? 0
        return size == 0 ? .done : .data(remaining: size, then: .chunkEnd)
    }

    /// A WebSocket frame's header (server frames are not masked): the payload once its length
    /// is complete. A close frame ends the body.
    private func frameHead(_ header: [UInt8]) -> Stage {
        guard header.count >= 2 else { return .frameHead(header) }
        let length7 = Int(header[1] & 0x7F)
        let extra = length7 == 126 ? 2 : length7 == 127 ? 8 : 0
        guard header.count == 2 + extra else { return .frameHead(header) }
        let length = extra == 0 ? length7 : header[2...].reduce(0) { $0 << 8 | Int($1) }
        if header[0] & 0x0F == 0x8 { return .done }
        return length == 0 ? .frameHead([]) : .data(remaining: length, then: .nextFrame)
    }
}

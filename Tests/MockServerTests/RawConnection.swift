import AirlockBase
import AirlockCore
import Foundation
import MockServer
import NIOCore
import NIOPosix

/// A plain TCP connection to a server: bytes go out exactly as written, and what comes back is
/// kept as bytes, so tests see the wire itself rather than what an HTTP client makes of it.
///
/// Every connection has a deadline: when it passes, the connection is closed and ``ending`` says
/// ``Ending/timedOut``, so a test that waits for the server fails instead of hanging, and a
/// connection closed by the deadline is never taken for one closed by the server.
struct RawConnection {
    /// How the byte stream from the server ended.
    enum Ending: Equatable, CustomStringConvertible {
        /// The server closed the connection (end of file).
        case closedByServer
        /// Reading failed, for instance with a reset from the server.
        case failed(String)
        /// The connection's deadline passed first.
        case timedOut

        var description: String {
            switch self {
            case .closedByServer: "closed by the server"
            case .failed(let error): "failed: \(error)"
            case .timedOut: "timed out"
            }
        }
    }

    /// Everything received so far, in order.
    private(set) var received: [UInt8] = []
    /// How the stream ended; `nil` while it is open (as far as reads so far have seen).
    private(set) var ending: Ending?

    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let deadlinePassed: Locked<Bool>

    fileprivate init(
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        deadlinePassed: Locked<Bool>
    ) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
        self.deadlinePassed = deadlinePassed
    }

    /// The complete responses received so far, in order.
    var responses: [RawResponse] { RawResponse.parse(received) }

    /// What was received, as text (for failure messages).
    var text: String { String(decoding: received, as: UTF8.self) }

    /// Writes `text` in one write.
    func send(_ text: String) async throws {
        do {
            try await outbound.write(ByteBuffer(string: text))
        } catch where deadlinePassed.withLock({ $0 }) {
            throw DeadlinePassed(error: error)
        }
    }

    /// Writes `bytes` in one write (binary protocols: HTTP/2 frames).
    func send(bytes: [UInt8]) async throws {
        do {
            try await outbound.write(ByteBuffer(bytes: bytes))
        } catch where deadlinePassed.withLock({ $0 }) {
            throw DeadlinePassed(error: error)
        }
    }

    /// A handle that writes to the connection from another task, while this one reads.
    var sender: Sender { Sender(outbound: outbound) }

    /// Writes to a raw connection; sendable, so a task can trickle bytes while another reads.
    struct Sender: Sendable {
        fileprivate let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

        /// Writes `text` in one write.
        func send(_ text: String) async throws {
            try await outbound.write(ByteBuffer(string: text))
        }
    }

    /// Writing failed because the connection's deadline (a hang guard) had passed and closed it.
    struct DeadlinePassed: Error, CustomStringConvertible {
        let error: any Error
        var description: String { "the raw connection's deadline passed before this write (a hang guard, not a performance limit): \(error)" }
    }

    /// Reads until `isEnough` holds for everything received, or the stream ends.
    mutating func read(until isEnough: ([UInt8]) -> Bool) async {
        while ending == nil, !isEnough(received) {
            do {
                if let chunk = try await inbound.next() {
                    received.append(contentsOf: chunk.readableBytesView)
                } else {
                    ending = deadlinePassed.withLock { $0 } ? .timedOut : .closedByServer
                }
            } catch {
                ending = deadlinePassed.withLock { $0 } ? .timedOut : .failed("\(error)")
            }
        }
    }

    /// Reads until `count` complete responses have arrived (or the stream ends) and returns all
    /// complete responses received.
    mutating func readResponses(_ count: Int) async -> [RawResponse] {
        await read { RawResponse.parse($0).count >= count }
        return responses
    }

    /// Reads until the stream ends.
    mutating func readToEnd() async {
        await read { _ in false }
    }
}

/// Opens a raw connection to `server`, runs `body` with it, and closes it.
/// - Parameters:
///   - server: A started server.
///   - deadline: When the connection is closed whatever happens; reads then end with
///     ``RawConnection/Ending/timedOut``.
///   - body: What to do with the connection.
func withRawConnection<Result: Sendable>(
    to server: MockServer,
    deadline: TimeAmount = .seconds(180),
    _ body: (inout RawConnection) async throws -> Result
) async throws -> Result {
    let deadlinePassed = Locked(false)
    let channel = try await ClientBootstrap(group: testEventLoops)
        .connectTimeout(deadline)
        .connect(to: try server.loopbackAddress) { channel in
            channel.eventLoop.makeCompletedFuture {
                let timer = channel.eventLoop.scheduleTask(in: deadline) {
                    deadlinePassed.withLock { $0 = true }
                    channel.close(promise: nil)
                }
                channel.closeFuture.whenComplete { _ in timer.cancel() }
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        var connection = RawConnection(inbound: inbound, outbound: outbound, deadlinePassed: deadlinePassed)
        return try await body(&connection)
    }
}

extension MockServer {
    /// The server's address, given as an address so that connecting resolves no name.
    var loopbackAddress: SocketAddress {
        get throws { try SocketAddress(ipAddress: "127.0.0.1", port: port) }
    }
}

/// One HTTP/1.1 response as it came over the wire.
struct RawResponse: Sendable, CustomStringConvertible {
    /// The status code from the status line.
    var status: Int
    /// The header fields in order.
    var headers: [(name: String, value: String)]
    /// The body (as many bytes as `Content-Length` says), as text.
    var body: String

    /// The first value of the header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var description: String { "\(status) \(headers.map { "\($0.name): \($0.value)" }) \(body.prefix(200))" }

    /// The complete responses at the start of `bytes`, in order. A response that has not fully
    /// arrived, or one without `Content-Length` (whose end the bytes cannot show), ends the list.
    static func parse(_ bytes: [UInt8]) -> [RawResponse] {
        var responses: [RawResponse] = []
        var rest = bytes[...]
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while let headEnd = rest.firstRange(of: separator) {
            let headLines = String(decoding: rest[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let statusParts = headLines[0].split(separator: " ", maxSplits: 2)
            guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else { break }
            let headers = headLines.dropFirst().compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            let response = RawResponse(status: status, headers: headers, body: "")
            guard let length = response.header("Content-Length").flatMap(Int.init) else { break }
            let bodyStart = headEnd.upperBound
            guard rest.distance(from: bodyStart, to: rest.endIndex) >= length else { break }
            let bodyEnd = rest.index(bodyStart, offsetBy: length)
            responses.append(RawResponse(status: status, headers: headers, body: String(decoding: rest[bodyStart..<bodyEnd], as: UTF8.self)))
            rest = rest[bodyEnd...]
        }
        return responses
    }
}

/// A raw connection that tests hold open by the hundred: driven on its event loop rather than by
/// a Swift task of its own, so that many of them do not crowd the small shared task pool that
/// other tests' timing depends on.
struct HeldConnection: Sendable {
    /// The connection.
    let channel: any Channel
    /// The first complete response; `nil` if the connection closed (or its deadline passed) first.
    let firstResponse: EventLoopFuture<RawResponse?>

    /// Writes `text` in one write.
    func send(_ text: String) -> EventLoopFuture<Void> {
        channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Opens `count` connections to `server` at once.
    /// - Parameters:
    ///   - count: How many.
    ///   - server: A started server.
    ///   - eventLoopGroup: The event loops the connections run on.
    ///   - deadline: When each connection is closed whatever happens.
    /// - Returns: Each connection, or why it could not be opened.
    static func open(
        _ count: Int,
        to server: MockServer,
        on eventLoopGroup: any EventLoopGroup,
        deadline: TimeAmount
    ) async throws -> [Result<HeldConnection, any Error>] {
        await open(count, to: try server.loopbackAddress, on: eventLoopGroup, deadline: deadline)
    }

    /// Opens `count` connections to `address` at once (a server in another process, say).
    static func open(
        _ count: Int,
        to address: SocketAddress,
        on eventLoopGroup: any EventLoopGroup,
        deadline: TimeAmount
    ) async -> [Result<HeldConnection, any Error>] {
        let connections = (0..<count).map { _ in
            ClientBootstrap(group: eventLoopGroup)
                .connectTimeout(deadline)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let timer = channel.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
                        channel.closeFuture.whenComplete { _ in timer.cancel() }
                        try channel.pipeline.syncOperations.addHandler(FirstResponseHandler(eventLoop: channel.eventLoop))
                    }
                }
                .connect(to: address)
                .flatMap { channel in
                    channel.eventLoop.submit {
                        let handler = try channel.pipeline.syncOperations.handler(type: FirstResponseHandler.self)
                        return HeldConnection(channel: channel, firstResponse: handler.firstResponse)
                    }
                }
        }
        // `whenAllComplete` never fails: each result is in the array.
        return (try? await EventLoopFuture.whenAllComplete(connections, on: eventLoopGroup.next()).get()) ?? []
    }
}

extension [HeldConnection] {
    /// Sends each connection its text and waits until all are written; returns how many were.
    func send(_ text: (Int) -> String) async -> Int {
        guard let eventLoop = first?.channel.eventLoop else { return 0 }
        let writes = enumerated().map { index, connection in connection.send(text(index)) }
        let results = (try? await EventLoopFuture.whenAllComplete(writes, on: eventLoop).get()) ?? []
        return results.filter { if case .success = $0 { true } else { false } }.count
    }

    /// Waits for each connection's first response (`nil` where there was none).
    func firstResponses() async -> [RawResponse?] {
        guard let eventLoop = first?.channel.eventLoop else { return [] }
        let results = (try? await EventLoopFuture.whenAllComplete(map(\.firstResponse), on: eventLoop).get()) ?? []
        return results.map { (try? $0.get()) ?? nil }
    }

    /// Closes every connection and waits until all are closed.
    func closeAll() async {
        guard let eventLoop = first?.channel.eventLoop else { return }
        try? await EventLoopFuture.andAllComplete(map { $0.channel.close() }, on: eventLoop).get()
    }
}

/// Collects what a connection receives and completes ``firstResponse`` with the first complete
/// response, or with `nil` when the connection closes before one arrives.
final class FirstResponseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    let firstResponse: EventLoopFuture<RawResponse?>
    private var promise: EventLoopPromise<RawResponse?>?
    private var received: [UInt8] = []

    init(eventLoop: any EventLoop) {
        let promise = eventLoop.makePromise(of: RawResponse?.self)
        self.promise = promise
        firstResponse = promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received.append(contentsOf: unwrapInboundIn(data).readableBytesView)
        if let response = RawResponse.parse(received).first {
            complete(with: response)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // Called when the connection closes, however it closes.
    func handlerRemoved(context: ChannelHandlerContext) {
        complete(with: nil)
    }

    private func complete(with response: RawResponse?) {
        promise?.succeed(response)
        promise = nil
    }
}

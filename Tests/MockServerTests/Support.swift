import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOPosix
import NIOHTTP1
import ProcessSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Event loops of these tests' own: tests elsewhere in the process (Airgap's) may hold the
/// shared singleton group's threads, for instance while symbolicating a violation's stack.
let testEventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

/// Starts a server for `mock`, runs `body`, and always shuts the server down.
func withServer(
    _ mock: HTTPMock,
    configuration: MockServer.Configuration = .init(),
    _ body: (MockServer) async throws -> Void
) async throws {
    var configuration = configuration
    configuration.eventLoopGroup = testEventLoops
    // A test that does not test the timeouts gets far-off ones: on a loaded machine (the suite
    // under ThreadSanitizer beside a build) a pause between two steps of a test can outlast the
    // default 30 s and 75 s, and the server would close a connection the test still uses.
    let defaults = MockServer.ConnectionLimits()
    if configuration.limits.headerTimeout == defaults.headerTimeout, configuration.limits.idleTimeout == defaults.idleTimeout {
        configuration.limits.headerTimeout = 3_600
        configuration.limits.idleTimeout = 3_600
    }
    let server = MockServer(mock: mock, configuration: configuration)
    try await withStarted(server) { try await body(server) }
}

/// Starts a server that records `upstream` into `cassette` as its reverse proxy (with a body limit
/// of `maxBodySize`, if given), runs `body`, and always shuts the server down.
func withRecordingServer(
    _ cassette: Cassette,
    upstream: MockServer,
    maxBodySize: Int? = nil,
    _ body: (MockServer) async throws -> Void
) async throws {
    var configuration = MockServer.Configuration(upstream: upstream.baseURL)
    configuration.eventLoopGroup = testEventLoops
    if let maxBodySize { configuration.maxRequestBodySize = maxBodySize }
    let recorder = MockServer(cassette: cassette, configuration: configuration)
    try await withStarted(recorder) { try await body(recorder) }
}

/// Starts `server`, runs `body`, and always shuts the server down: after `body`, so that what ends
/// with the server (a stream or a WebSocket a recording keeps) has ended when this returns.
func withStarted(_ server: MockServer, _ body: () async throws -> Void) async throws {
    try await server.start()
    do {
        try await body()
        try await server.shutdown()
    } catch {
        try? await server.shutdown()
        throw error
    }
}

/// How long a client waits for a connection, a response or a child process before it gives up.
///
/// A hang guard, not a performance limit: far above anything here takes on a loaded machine, it
/// only turns a wait that would never end into a failure. No test asserts how fast anything is.
let hangGuard: TimeAmount = .seconds(300)  // as ProcessSupport's, for the same reason

/// An AsyncHTTPClient, in origin mode or with the server as its HTTP proxy; always shut down.
func withClient(
    proxyPort: Int? = nil,
    retryingConnections: Bool = true,
    _ body: (HTTPClient) async throws -> Void
) async throws {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .init(connect: hangGuard, read: hangGuard)
    configuration.connectionPool.retryConnectionEstablishment = retryingConnections
    if let proxyPort {
        configuration.proxy = .server(host: "127.0.0.1", port: proxyPort)
    }
    let client = HTTPClient(eventLoopGroup: testEventLoops, configuration: configuration)
    do {
        try await body(client)
        try await client.shutdown()
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// Sends a request with AsyncHTTPClient and collects the whole response.
func send(_ client: HTTPClient, _ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: String? = nil) async throws -> (status: Int, headers: HTTPHeaders, text: String) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(ByteBuffer(string: body)) }
    let response = try await client.execute(request, timeout: hangGuard)
    let bytes = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), response.headers, String(buffer: bytes))
}

/// Sends a request with URLSession.
func fetch(_ url: URL, method: String = "GET", body: Data? = nil, headers: [String: String] = [:]) async throws -> (status: Int, text: String) {
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.httpBody = body
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = TimeInterval(hangGuard.nanoseconds / 1_000_000_000)
    configuration.timeoutIntervalForResource = TimeInterval(hangGuard.nanoseconds / 1_000_000_000)
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

/// Connects a client to 127.0.0.1:`port` with the handlers `configure` adds. `pending` is the
/// promise those handlers complete: when connecting fails it is failed here, because NIO stops
/// the process when a promise is dropped uncompleted.
func connectToLoopback<Value: Sendable>(
    port: Int,
    completing pending: EventLoopPromise<Value>,
    _ configure: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void
) async throws -> any Channel {
    do {
        return try await ClientBootstrap(group: testEventLoops)
            .connectTimeout(hangGuard)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try configure(channel.pipeline.syncOperations) }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
    } catch {
        pending.fail(error)
        throw error
    }
}

/// Sends `request` as raw bytes to 127.0.0.1:`port` and returns everything the server sends back
/// until it closes the connection (or the read time-out of ``hangGuard`` passes).
func rawExchange(port: Int, _ request: String) async throws -> String {
    String(decoding: try await rawBytesExchange(port: port, Array(request.utf8)), as: UTF8.self)
}

/// ``rawExchange(port:_:)`` with bytes both ways, for bodies that are not text.
func rawBytesExchange(port: Int, _ request: [UInt8]) async throws -> [UInt8] {
    let received = testEventLoops.next().makePromise(of: ByteBuffer.self)
    let channel = try await connectToLoopback(port: port, completing: received) { pipeline in
        try pipeline.addHandler(ReadUntilClose(received))
    }
    let deadline = channel.eventLoop.scheduleTask(in: hangGuard) { channel.close(promise: nil) }
    defer { deadline.cancel() }
    // A server that refuses a request may answer and close before it has read all of it; the
    // write then fails, and what the test wants is the answer, which the close hands over.
    try? await channel.writeAndFlush(ByteBuffer(bytes: request))
    return Array(try await received.futureResult.get().readableBytesView)
}

/// Collects what a connection reads and hands it over when the connection closes.
private final class ReadUntilClose: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let received: EventLoopPromise<ByteBuffer>
    private var buffer = ByteBuffer()

    init(_ received: EventLoopPromise<ByteBuffer>) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        buffer.writeBuffer(&chunk)
    }

    func channelInactive(context: ChannelHandlerContext) {
        received.succeed(buffer)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        received.fail(error)
        context.close(promise: nil)
    }
}

/// Starts a server script of `Tests/Tools` (`grpc_client.py serve`, `http2_clients.py
/// serve-http1`) and waits for its `listening on 127.0.0.1:PORT` line; returns the process (for
/// the caller to stop) and the address. Fails the test when the script printed no address.
func startListeningTool(_ script: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> (process: TestProcess, address: String) {
    let process = TestProcess()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", Repository.root.appendingPathComponent("Tests/Tools/\(script)").path] + arguments
    let output = Pipe()
    process.standardOutput = output
    _ = try ChildProcess(running: process)
    let lines = LineReader(output.fileHandleForReading)
    var address: String?
    while let line = await lines.next() {
        if let range = line.range(of: "listening on ") {
            address = line[range.upperBound...].split(separator: " ").first.map(String.init)
            break
        }
    }
    if address == nil { process.stop() }
    return (process, try #require(address, "\(script) printed no address", sourceLocation: sourceLocation))
}

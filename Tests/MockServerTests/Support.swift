import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOPosix
import NIOHTTP1
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
    let server = MockServer(mock: mock, configuration: configuration)
    try await server.start()
    do {
        try await body(server)
        try await server.shutdown()
    } catch {
        try? await server.shutdown()
        throw error
    }
}

/// An AsyncHTTPClient, in origin mode or with the server as its HTTP proxy; always shut down.
func withClient(proxyPort: Int? = nil, _ body: (HTTPClient) async throws -> Void) async throws {
    var configuration = HTTPClient.Configuration()
    configuration.timeout = .init(connect: .seconds(5), read: .seconds(10))
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
    let response = try await client.execute(request, timeout: .seconds(10))
    let bytes = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), response.headers, String(buffer: bytes))
}

/// Sends a request with URLSession.
func fetch(_ url: URL, method: String = "GET", body: Data? = nil, headers: [String: String] = [:]) async throws -> (status: Int, text: String) {
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.httpBody = body
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import Testing

// The Swift samples of MockServer's articles and of the README, verbatim; compiled, not run.

// ServingMocksOverASocket.md, README.md.
func servingOverASocket() async throws {
    let server = MockServer()                   // binds 127.0.0.1, port 0 (a free one)
    server.addResponses(forPath: "/users", host: "**") { MockResponse.plaintext("[]") }
    try await server.start()
    // GET \(server.baseURL)/users → 200 "[]"
    try await server.shutdown()
}

// MockServer.md.
func serverOverAMock() async throws {
    let mock = HTTPMock()
    mock.addResponses(forPath: "/users", host: "**") { MockResponse.plaintext("[]") }
    let server = MockServer(mock: mock)         // the mock's stubs, also over a socket
    try await server.start()                    // 127.0.0.1, a free port: server.baseURL
    // … URLSession clients use mock.urlSession, every other client server.baseURL …
    try await server.shutdown()
}

// HTTPS.md.
func https() async throws {
    let server = MockServer(configuration: .init(tls: .init()))   // or .init(certificateAuthorityDirectory: url)
    server.addResponses(forPath: "/users", host: "api.example.com") { MockResponse.plaintext(#"[{"id":1}]"#) }
    try await server.start()

    // One line: the server as the proxy, and its CA in tlsConfiguration.additionalTrustRoots.
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: server.httpClientConfiguration())
    let response = try await client.execute(HTTPClientRequest(url: "https://api.example.com/users"), timeout: .seconds(5))
    // → 200 [{"id":1}], the certificate for api.example.com checked against the Airlock CA
    #expect(response.status == .ok)
    try await client.shutdown()
    try await server.shutdown()
}

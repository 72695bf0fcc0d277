import AsyncHTTPClient
import MockServer
import MockServerHTTPClient   // the MockServerHTTPClient product: server.httpClientConfiguration()
import Testing

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this). Compiled, not run.

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

import AsyncHTTPClient
import MockServer
import Testing

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this).

// TestingWithAMockServer.md: the test. Run here through a real socket and AsyncHTTPClient (and
// again, as the page shows it, in a package of its own by MockServerGuideTests).
@Suite struct MockServerGuideSample {
    @Test func fetchesUsersFromTheMockServer() async throws {
        let server = MockServer()                         // 127.0.0.1, a free port
        server.addResponses(forPath: "/users", host: "api.example.com") {
            MockResponse.plaintext(#"[{"id":1,"name":"Alice"}]"#)
        }
        // Started here, shut down when the block returns or throws: a failing test frees its port.
        let body = try await server.whileServing {
            // The client calls the server's own address; the stub for api.example.com answers.
            let request = HTTPClientRequest(url: "\(server.baseURL)/users")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(response.status == .ok)
            return String(decoding: try await response.body.collect(upTo: 1 << 20).readableBytesView, as: UTF8.self)
        }
        #expect(body == #"[{"id":1,"name":"Alice"}]"#)
        #expect(server.requestCount == 1)
    }
}

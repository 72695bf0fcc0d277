import AsyncHTTPClient
import Foundation
import MockServer
import MockServerHTTPClient
import NIOCore
import Testing

/// `server.httpClientConfiguration()` through a real AsyncHTTPClient and a real loopback socket:
/// the client calls its real URLs and the server's stubs answer, the configuration it was given
/// keeps its own settings. (With the `HTTPS` trait, MockServerTests' TLS suite adds the CA side.)
struct HTTPClientConfigurationTests {
    /// A server with one stub for a host the client names, started for `body` and shut down after.
    private func withServer(_ body: (MockServer) async throws -> Void) async throws {
        let server = MockServer()
        server.addResponses(forPath: "/users", host: "api.example.test") {
            MockResponse.plaintext("users through the proxy", lifetime: .eternal)
        }
        try await server.whileServing { try await body(server) }
    }

    private func withClient(_ configuration: HTTPClient.Configuration, _ body: (HTTPClient) async throws -> Void) async throws {
        var configuration = configuration
        // A hang guard, not a performance limit.
        configuration.timeout = .init(connect: .seconds(300), read: .seconds(300))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await body(client)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test func aClientMadeWithItIsServedTheStubsForItsRealURLs() async throws {
        try await withServer { server in
            try await withClient(server.httpClientConfiguration()) { client in
                let response = try await client.execute(HTTPClientRequest(url: "http://api.example.test/users"), timeout: .seconds(60))
                #expect(response.status == .ok)
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(String(buffer: body) == "users through the proxy")
            }
            #expect(server.requests.map(\.url) == ["http://api.example.test/users"])
        }
    }

    @Test func itSetsTheProxyAndKeepsTheConfigurationItWasGiven() async throws {
        try await withServer { server in
            var given = HTTPClient.Configuration()
            given.redirectConfiguration = .disallow
            given.decompression = .enabled(limit: .ratio(10))
            let made = server.httpClientConfiguration(given)
            #expect(made.proxy?.host == server.configuration.host)
            #expect(made.proxy?.port == server.port)
            #expect("\(made.redirectConfiguration)" == "\(given.redirectConfiguration)")
            #expect("\(made.decompression)" == "\(given.decompression)")
            // Without TLS on the server there is no CA to trust: the TLS configuration is left as given.
            #expect(made.tlsConfiguration == nil)
        }
    }
}

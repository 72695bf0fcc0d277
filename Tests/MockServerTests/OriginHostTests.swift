import AsyncHTTPClient
import Foundation
import MockServer
import Testing

/// Stubs registered for a named host, called at the server's own address (origin mode): when no
/// stub of that address (or `**`) matches, the stubs of every host answer; a request that names
/// another host, or comes through the proxy, keeps its host. Real sockets, AsyncHTTPClient.
struct OriginHostTests {
    func server() -> MockServer {
        MockServer(configuration: .init(eventLoopGroup: testEventLoops))
    }

    @Test func aStubForANamedHostAnswersARequestToTheServersOwnAddress() async throws {
        let server = server()
        server.addResponses(forPath: "/users", host: "api.example.com") {
            MockResponse.plaintext("api")
            MockResponse.plaintext("api")
        }
        try await server.whileServing {
            try await withClient { client in
                let answer = try await send(client, "\(server.baseURL)/users")
                #expect(answer.status == 200 && answer.text == "api", "\(answer.text)")
                let localhost = try await send(client, "http://localhost:\(server.port)/users")
                #expect(localhost.status == 200 && localhost.text == "api", "\(localhost.status) \(localhost.headers) \(localhost.text)")
            }
        }
    }

    @Test func stubsOfTheServersAddressAndAnyHostComeFirst() async throws {
        let server = server()
        server.addResponses(forPath: "/users", host: "api.example.com") { MockResponse.plaintext("api") }
        server.addResponses(forPath: "/users", host: "**") { MockResponse.plaintext("any") }
        server.addResponses(forPath: "/status", host: "127.0.0.1") { MockResponse.plaintext("own") }
        server.addResponses(forPath: "/status", host: "api.example.com") { MockResponse.plaintext("api") }
        try await server.whileServing {
            try await withClient { client in
                let users = try await send(client, "\(server.baseURL)/users")
                let status = try await send(client, "\(server.baseURL)/status")
                #expect(users.text == "any")
                #expect(status.text == "own")
            }
        }
    }

    @Test func aRequestNamingAnotherHostKeepsItsHost() async throws {
        let server = server()
        server.addResponses(forPath: "/users", host: "api.example.com") { MockResponse.plaintext("api") }
        try await server.whileServing {
            try await withClient { client in
                let other = try await send(client, "\(server.baseURL)/users", headers: [("Host", "other.example.com")])
                #expect(other.status == 404, "\(other.text)")
                let named = try await send(client, "\(server.baseURL)/users", headers: [("Host", "api.example.com")])
                #expect(named.status == 200 && named.text == "api")
            }
            try await withClient(proxyPort: server.port) { client in
                let proxied = try await send(client, "http://other.example.com/users")
                #expect(proxied.status == 404)
            }
        }
    }

    @Test(arguments: [
        ("127.0.0.1:8080", true), ("localhost:8080", true), ("LOCALHOST:8080", true), ("[::1]:8080", true),
        ("127.1.2.3:8080", true), (" 127.0.0.1:8080 ", true), ("10.0.0.5:8080", true),
        ("127.0.0.1:8081", false), ("127.0.0.1", false), ("api.example.com:8080", false), ("api.example.com", false),
        ("127.evil.test:8080", false), ("[::1]x:8080", false),
    ])
    func aHostHeaderNamesTheServerWhenItIsItsAddressAndPort(header: String, expected: Bool) {
        #expect(IncomingRequest.isAddressedToServer(hostHeader: header, port: 8080, boundAddress: "10.0.0.5") == expected)
    }

    @Test func noHostHeaderOrPortEightyOnPortEightyNamesTheServer() {
        #expect(IncomingRequest.isAddressedToServer(hostHeader: nil, port: 8080, boundAddress: nil))
        #expect(IncomingRequest.isAddressedToServer(hostHeader: "localhost", port: 80, boundAddress: nil))
    }

    struct Failure: Error {}

    @Test func whileServingShutsTheServerDownWhenTheBlockThrows() async throws {
        let server = server()
        server.addResponses(forPath: "/users", host: "**") { MockResponse.plaintext("[]") }
        var port = 0
        await #expect(throws: Failure.self) {
            try await server.whileServing {
                port = server.port
                try await withClient { client in
                    let answer = try await send(client, "\(server.baseURL)/users")
                    #expect(answer.status == 200)
                }
                throw Failure()
            }
        }
        #expect(port != 0)
        // Shut down: nothing listens on the port any more.
        await #expect(throws: (any Error).self) {
            try await withClient(retryingConnections: false) { client in
                _ = try await send(client, "http://127.0.0.1:\(port)/users")
            }
        }
    }
}

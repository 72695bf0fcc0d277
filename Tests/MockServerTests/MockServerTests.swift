import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOHTTP1
import HTTPTypes
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct MockServerTests {
    @Test func urlSessionCallsTheBaseURLAndSharesTheMocksQueuesAndJournal() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("127.0.0.1") {
                Path("/users") {
                    MockResponse.plaintext("first")
                    MockResponse.plaintext("second", status: .created)
                }
            }
        }
        try await withServer(mock) { server in
            #expect(server.port > 0)
            #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
            let first = try await fetch(server.baseURL.appendingPathComponent("users"))
            #expect(first.status == 200 && first.text == "first")
            // The same queue serves the in-process session next.
            let second = try await mock.urlSession.data(from: URL(string: "http://127.0.0.1/users")!)
            #expect(String(decoding: second.0, as: UTF8.self) == "second")
            let third = try await fetch(server.baseURL.appendingPathComponent("users"))
            #expect(third.status == 404)
            #expect(third.text.hasPrefix("Airlock: no stub for GET http://127.0.0.1:\(server.port)/users"))
            #expect(mock.requests.map(\.path) == ["/users", "/users", "/users"])
            #expect(mock.requests.first?.response?.status == 200)
        }
    }

    @Test func asyncHTTPClientInOriginModeMatchesTheHostHeader() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/v1/items", host: "api.example.com") { MockResponse.plaintext("by host header", lifetime: .eternal) }
        mock.addResponses(forPath: "/v1/items", host: "**") { MockResponse.plaintext("any host", lifetime: .eternal) }
        try await withServer(mock) { server in
            try await withClient { client in
                let byHost = try await send(client, "\(server.baseURL.absoluteString)/v1/items", headers: [("Host", "api.example.com")])
                #expect(byHost.status == 200 && byHost.text == "by host header")
                let anyHost = try await send(client, "\(server.baseURL.absoluteString)/v1/items")
                #expect(anyHost.text == "any host")
            }
        }
    }

    @Test func asyncHTTPClientInProxyModeKeepsTheOriginalHost() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/v1/users", query: ["page": "2"]) { MockResponse.encodable(["proxied": true]) }
            }
        }
        try await withServer(mock) { server in
            try await withClient(proxyPort: server.port) { client in
                let response = try await send(client, "http://api.example.com/v1/users?page=2")
                #expect(response.status == 200)
                #expect(response.text == #"{"proxied":true}"#)
                #expect(response.headers.first(name: "Content-Type") == "application/json")
            }
            #expect(mock.requests.first?.url == "http://api.example.com/v1/users?page=2")
            #expect(mock.requests.first?.host == "api.example.com")
        }
    }

    @Test func manyConcurrentKeepAliveRequests() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/n/*", host: "**") { MockResponse.plaintext("n", lifetime: .eternal) }
        try await withServer(mock) { server in
            try await withClient { client in
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<200 {
                        group.addTask { try await send(client, "\(server.baseURL.absoluteString)/n/\(index)").status }
                    }
                    var statuses: [Int] = []
                    for try await status in group { statuses.append(status) }
                    #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 })
                }
            }
            #expect(mock.requests.count == 200)
        }
    }

    @Test func delaysAndPoliciesWorkOverTheSocket() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .mock(.plaintext("fallback", status: .serviceUnavailable))
        mock.addResponses(forPath: "/slow", host: "**") { MockResponse.plaintext("slow", delivery: .delayed(0.3)) }
        try await withServer(mock) { server in
            try await withClient { client in
                let clock = ContinuousClock()
                let start = clock.now
                #expect(try await send(client, "\(server.baseURL.absoluteString)/slow").text == "slow")
                #expect(clock.now - start >= .milliseconds(280))
                let fallback = try await send(client, "\(server.baseURL.absoluteString)/other")
                #expect(fallback.status == 503 && fallback.text == "fallback")
            }
        }
    }

    @Test func headRequestsGetHeadersWithoutABody() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/doc", host: "**") { MockResponse.plaintext("twelve bytes", lifetime: .eternal) }
        try await withServer(mock) { server in
            try await withClient { client in
                let head = try await send(client, "\(server.baseURL.absoluteString)/doc", method: .HEAD)
                let get = try await send(client, "\(server.baseURL.absoluteString)/doc")
                #expect(head.status == 200 && head.text.isEmpty)
                #expect(head.headers.first(name: "Content-Length") == "12")
                #expect(get.text == "twelve bytes")
            }
        }
    }

    /// A fixed answer is prepared once and written as kept: served again on one connection it is
    /// the same bytes each time, a `HEAD` gets its head alone, and the last answer of a
    /// connection that closes says so, with the fields in their order.
    @Test func aFixedAnswerServedAgainIsTheSameBytesEachTime() async throws {
        let mock = HTTPMock()
        let fields: HTTPFields = [.contentType: "text/plain", HTTPField.Name("X-Twice")!: "a", HTTPField.Name("X-Twice")!: "b"]
        mock.addResponses(forPath: "/same", host: "**") { MockResponse(data: Data("same body".utf8), status: .ok, lifetime: .eternal, headerFields: fields) }
        try await withServer(mock) { server in
            let get = "GET /same HTTP/1.1\r\nHost: a.test\r\n\r\n"
            let answer = try await rawExchange(
                port: server.port,
                get + get + "HEAD /same HTTP/1.1\r\nHost: a.test\r\n\r\n" + "GET /same HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
            )
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Twice: a\r\nX-Twice: b\r\nContent-Length: 9\r\n"
            let expected = head + "\r\nsame body" + head + "\r\nsame body" + head + "\r\n" + head + "Connection: close\r\n\r\nsame body"
            #expect(answer == expected)
        }
    }

    #if !HTTPS
    @Test func tlsWithoutTheHTTPSTraitIsRefusedAtStartSayingHowToTurnItOn() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-no-https-\(UUID().uuidString)")
        let server = MockServer(configuration: .init(tls: .init(certificateAuthorityDirectory: folder)))
        let error = await #expect(throws: MockServerError.self) { try await server.start() }
        #expect(error?.code == .httpsUnavailable)
        #expect(error?.description.contains(#"traits: ["HTTPS"]"#) == true, "\(String(describing: error))")
        #expect(server.certificateAuthority == nil)
        // Nothing was made on disk for a CA that cannot exist.
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
    #endif

    @Test func connectIsAnsweredWithAnExplanation() async throws {
        try await withServer(HTTPMock()) { server in
            // What a proxy client sees: the tunnel is refused. Without retries, the client reports
            // the refusal at once instead of retrying until its connect time-out passes.
            try await withClient(proxyPort: server.port, retryingConnections: false) { client in
                await #expect(throws: HTTPClientError.invalidProxyResponse) { _ = try await send(client, "https://api.example.com/secure") }
            }
            // What the server says: a 501 that explains itself, then it closes the connection.
            let answer = try await rawExchange(
                port: server.port,
                "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n"
            )
            #expect(answer.hasPrefix("HTTP/1.1 501"), "\(answer)")
            #expect(answer.contains("HTTPS through CONNECT (api.example.com:443) needs TLS, which is off"), "\(answer)")
            #expect(answer.contains("airlock serve --tls"), "\(answer)")
        }
    }

    @Test func bindingBeyondLoopbackNeedsAFlagAndAToken() async throws {
        let refused = MockServer(configuration: .init(host: "0.0.0.0"))
        await #expect(throws: MockServerError.self) { try await refused.start() }
        let noToken = MockServer(configuration: .init(host: "0.0.0.0", allowsNonLoopbackBinding: true))
        do {
            try await noToken.start()
            Issue.record("binding 0.0.0.0 without an admin token should fail")
            try await noToken.shutdown()
        } catch let error as MockServerError {
            #expect(error.description.contains("adminToken"))
        }
    }
}

/// Over a socket real time passes: a URLSession client times out by itself on a response delayed
/// past its timeout, and the server needs to do nothing (the 600 s delay can only end that way).
struct SocketDelayTimeoutTests {
    @Test func aURLSessionClientTimesOutOnADelayedResponseByItself() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/slow", host: "**") { MockResponse.plaintext("too late", delivery: .delayed(600)) }
        try await withServer(mock) { server in
            var request = URLRequest(url: server.baseURL.appendingPathComponent("slow"))
            request.timeoutInterval = 1
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            do {
                _ = try await session.data(for: request)
                Issue.record("the delayed response arrived")
            } catch let error as URLError {
                #expect(error.code == .timedOut)
            }
        }
    }
}

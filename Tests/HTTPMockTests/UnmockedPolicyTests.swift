import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct UnmockedPolicyTests {
    @Test func notFoundIsTheDefaultAndSaysHowToStub() async throws {
        let mock = HTTPMock()
        guard case .notFound = mock.unmockedPolicy else {
            Issue.record("the default policy should be .notFound")
            return
        }
        let fetched = try await mock.fetch("https://api.example.com/users?page=2")
        #expect(fetched.status == 404)
        #expect(fetched.header("Content-Type") == "text/plain")
        #expect(fetched.text.hasPrefix("Airlock: no stub for GET https://api.example.com/users?page=2\n"))
        #expect(fetched.text.contains(#"Path("/users", query: ["page": "2"])"#))
        #expect(fetched.data.count < 1024)
    }

    @Test func aDepletedQueueFallsBackToThePolicy() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .mock(.plaintext("fallback", status: .serviceUnavailable))
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.plaintext("real mock") }
        #expect(try await mock.fetch("https://a.test/x").text == "real mock")
        let fallback = try await mock.fetch("https://a.test/x")
        #expect(fallback.status == 503)
        #expect(fallback.text == "fallback")
    }

    @Test func mockPolicyIsServedForeverWhateverItsLifetime() async throws {
        let mock = HTTPMock()
        mock.unmockedPolicy = .mock(
            .dictionary(["error": "endpoint_not_found"], status: .notFound, lifetime: .single, headers: ["X-Error-Source": "HTTPMock"])
        )
        for path in ["/a", "/b", "/a"] {
            let fetched = try await mock.fetch("https://anything.test\(path)")
            #expect(fetched.status == 404)
            #expect(fetched.header("X-Error-Source") == "HTTPMock")
            #expect(fetched.text == #"{"error":"endpoint_not_found"}"#)
        }
    }

    @Test func passthroughReachesARealServer() async throws {
        try await LoopbackServer.with { server in
            let mock = HTTPMock()
            mock.unmockedPolicy = .passthrough
            mock.addResponses(forPath: "/mocked", host: "127.0.0.1") { MockResponse.plaintext("mocked") }

            #expect(try await mock.fetch(server.url("/mocked")).text == "mocked")
            let real = try await mock.fetch(server.url("/unmocked?x=1"))
            #expect(real.status == 200)
            #expect(real.text == "real GET /unmocked?x=1")
            let post = try await mock.fetch(server.url("/items"), method: "POST", headers: ["X-Probe": "p"])
            #expect(post.text == "real POST /items")
            #expect(post.header("X-Probe-Echo") == "p")
        }
    }

    @Test func passthroughUsesTheInstancesOwnSession() async throws {
        try await LoopbackServer.with { server in
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 60
            configuration.httpAdditionalHeaders = ["X-Probe": "custom-session"]
            let custom = HTTPMock(passthroughSession: URLSession(configuration: configuration))
            custom.unmockedPolicy = .passthrough
            let plain = HTTPMock()
            plain.unmockedPolicy = .passthrough

            let throughCustom = try await custom.fetch(server.url("/a"))
            let throughDefault = try await plain.fetch(server.url("/a"))
            #expect(throughCustom.header("X-Probe-Echo") == "custom-session")
            #expect(throughDefault.header("X-Probe-Echo") == nil)
        }
    }

    @Test func passthroughCanChainToAnotherMock() async throws {
        let inner = HTTPMock()
        inner.addResponses(forPath: "/chained", host: "a.test") { MockResponse.plaintext("from the inner mock") }
        let outer = HTTPMock(passthroughSession: inner.urlSession)
        outer.unmockedPolicy = .passthrough
        #expect(try await outer.fetch("https://a.test/chained").text == "from the inner mock")
        #expect(try await outer.fetch("https://a.test/chained").status == 404)
    }

    @Test func manyConcurrentPassthroughRequestsComplete() async throws {
        try await LoopbackServer.with { server in
            let mock = HTTPMock()
            mock.unmockedPolicy = .passthrough
            try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<50 {
                    group.addTask { try await mock.fetch(server.url("/n/\(index)")).text }
                }
                var bodies = Set<String>()
                for try await body in group { bodies.insert(body) }
                #expect(bodies == Set((0..<50).map { "real GET /n/\($0)" }))
            }
        }
    }

    @Test func fatalErrorStopsTheProcessNamingTheRequest() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let mock = HTTPMock()
            mock.unmockedPolicy = .fatalError
            _ = try? await mock.urlSession.data(from: URL(string: "https://api.example.com/missing")!)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Airlock: no stub for GET https://api.example.com/missing"))
    }
}

@testable import AirlockCassettes
@testable import AirlockStubFiles
@testable import AirlockWireMock
@testable import AirlockBase
@testable import AirlockCore
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing

/// The core alone, without URLSession: what a loopback server will rely on.
struct RegistryTests {
    private func request(_ host: String, _ path: String, query: [(String, String?)] = []) -> IncomingRequest {
        IncomingRequest(
            method: "GET",
            url: "https://\(host)\(path)",
            host: host,
            path: path,
            queryItems: query.map { .init(name: $0.0, value: $0.1) }
        )
    }

    private func body(_ exchange: ExchangeStateMachine<URLSessionTransport>) -> String? {
        guard exchange.stub != nil, let data = exchange.plannedResponse?.body.bytesInMemory else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    @Test func matchesAmongManyStubsPickTheRightOne() {
        let registry = MockRegistry(snippetStyle: .swift)
        let registrations = (0..<10_000).map { index in
            Registration(host: "api\(index % 10).example.com", path: "/v1/items/\(index)/*", responses: [.plaintext("\(index)", lifetime: .eternal)])
        }
        #expect(registry.register(registrations).isEmpty)
        #expect(body(registry.resolve(request("api7.example.com", "/v1/items/4567/details"), for: .urlSession)) == "4567")
        #expect(body(registry.resolve(request("api7.example.com", "/v1/items/4568/details"), for: .urlSession)) == nil)
    }

    @Test func unmatchedRequestsGetTheTransportsSnippet() throws {
        let registry = MockRegistry(snippetStyle: .swift)
        let unmatched = request("a.test", "/x", query: [("q", "1"), ("q", "2")])
        func expectSnippet<Kind>(_ snippet: String, for transport: Transport<Kind>) {
            let exchange = registry.resolving(unmatched, for: transport)
            guard let response = exchange.plannedResponse, let data = response.body.bytesInMemory else {
                Issue.record("expected a 404 response")
                return
            }
            #expect(response.status.code == 404)
            #expect(String(decoding: data, as: UTF8.self).contains(snippet))
        }
        expectSnippet(#"Path("/x", query: ["q": ["1", "2"]])"#, for: .urlSession)
        expectSnippet(#""query": { "q": ["1", "2"] }"#, for: .socket)
    }

    @Test func thePassthroughPolicyForwards() {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.unmockedPolicy = .passthrough
        var exchange = registry.resolve(request("a.test", "/x"), for: .socket)
        guard case .forward(recording: false, target: nil, _, _, _)? = exchange.start(idleTimeout: nil, takesBodyInPieces: true).delivery else {
            Issue.record("expected the request to be forwarded")
            return
        }
    }

    /// A proxying stub's forwarded request is decided in the core: the URL, the request's fields
    /// without Host and the removed ones (any case), then the added ones in place of the sent.
    @Test func aProxyingStubsForwardedFieldsAreDecidedByTheCore() {
        let registry = MockRegistry(snippetStyle: .json)
        let proxy = MockResponse.Proxy(
            baseURL: "http://127.0.0.1:8081/api/",
            removingPrefix: "/v1",
            removingHeaders: ["X-SECRET"],
            addingHeaders: [
                .init(name: "X-Added", value: .text("fixed")),
                .init(name: "X-Path", value: .template(MockResponse.RequestTemplate { "path=" + $0.path })),
            ]
        )
        let response = MockResponse(body: .proxy(proxy), contentType: nil, status: .ok, lifetime: .eternal, delivery: .instant, headers: [:])
        #expect(registry.register([Registration(host: "a.test", path: "/v1/**", responses: [response])]).isEmpty)
        var incoming = request("a.test", "/v1/items")
        incoming.headers = [("Host", "a.test"), ("x-secret", "s"), ("X-Kept", "1"), ("x-added", "sent"), ("X-Kept", "2")]
        var exchange = registry.resolve(incoming, for: .socket)
        guard case .forward(recording: false, let target?, _, _, _)? = exchange.start(idleTimeout: nil, takesBodyInPieces: true).delivery else {
            Issue.record("expected the request to be forwarded to the proxy's target")
            return
        }
        #expect(target.url == "http://127.0.0.1:8081/api/items")
        #expect(target.headers.map { "\($0.name): \($0.value)" } == ["X-Kept: 1", "X-Kept: 2", "X-Added: fixed", "X-Path: path=/v1/items"])
    }

    @Test(arguments: [
        ("api-*", "api-x", true), ("api-*", "api-", true), ("api-*", "web-x", false),
        ("*-v1", "a-v1", true), ("*-v1", "a-v2", false), ("a*b*c", "abc", true), ("a*b*c", "aXbYc", true),
        ("a*b*c", "acb", false), ("report-*.pdf", "report-1.pdf", true), ("*.*", "a.b", true), ("*.*", "ab", false),
    ])
    func globsMatchWithinASegment(pattern: String, segment: String, matches: Bool) {
        #expect(Glob(Substring(pattern)).matches(Substring(segment)) == matches)
    }

    @Test func specificityScoresFollowTheDocument() throws {
        let exact = try Pattern.host("api.example.com")
        let single = try Pattern.host("*.example.com")
        let multi = try Pattern.host("**.example.com")
        let twoSingles = try Pattern.host("*.example.*")
        let root = try Pattern.path("/")
        func rank(_ host: Pattern) -> MockRegistry.Rank { .init(host: host, path: root, query: nil, order: 0) }
        #expect(rank(exact) < rank(single))
        #expect(rank(single) < rank(multi))
        #expect(rank(multi) < rank(twoSingles))
    }

    @Test func clearingAHostLeavesPatternsOfOtherHosts() {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.register([
            Registration(host: "*.example.com", path: "/x", responses: [.plaintext("wild", lifetime: .eternal)]),
            Registration(host: "api.example.com", path: "/x", responses: [.plaintext("exact", lifetime: .eternal)]),
        ])
        #expect(body(registry.resolve(request("api.example.com", "/x"), for: .urlSession)) == "exact")
        registry.removeAll(forHost: "API.example.com")
        #expect(body(registry.resolve(request("api.example.com", "/x"), for: .urlSession)) == "wild")
        #expect(registry.queuedResponseCount == 1)
    }
}

struct TrieTests {
    private func body(_ registry: MockRegistry, _ host: String, _ path: String) -> String? {
        let request = IncomingRequest(method: "GET", url: "https://\(host)\(path)", host: host, path: path, query: nil)
        let exchange = registry.resolve(request, for: .urlSession)
        guard exchange.stub != nil, let data = exchange.plannedResponse?.body.bytesInMemory else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    @Test func everyOneOfManyLiteralSiblingsIsFoundAfterTheTableGrows() {
        let registry = MockRegistry(snippetStyle: .swift)
        let count = 5_000
        registry.register((0..<count).map { Registration(host: "h\($0 % 7).test", path: "/s/\($0)", responses: [.plaintext("\($0)", lifetime: .eternal)]) })
        for index in stride(from: 0, to: count, by: 37) {
            #expect(body(registry, "h\(index % 7).test", "/s/\(index)") == "\(index)")
        }
        #expect(body(registry, "h1.test", "/s/0") == nil)
        #expect(body(registry, "h0.test", "/s/\(count)") == nil)
    }

    @Test func registeringTheSameStubAgainAppendsToItsQueue() {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.register([Registration(host: "a.test", path: "/x", responses: [.plaintext("1")])])
        registry.register([Registration(host: "A.test", path: "/x", responses: [.plaintext("2")])])
        registry.register([Registration(host: "a.test", path: "/x", query: ["q": ["1"]], responses: [.plaintext("query")])])
        #expect(registry.queuedResponseCount == 3)
        #expect(body(registry, "a.test", "/x") == "1")
        #expect(body(registry, "a.test", "/x") == "2")
        #expect(body(registry, "a.test", "/x") == nil)
    }

    @Test func aClearedHostCanBeRegisteredAgain() {
        let registry = MockRegistry(snippetStyle: .swift)
        registry.register([Registration(host: "a.test", path: "/x", responses: [.plaintext("old", lifetime: .eternal)])])
        registry.removeAll(forHost: "a.test")
        #expect(body(registry, "a.test", "/x") == nil)
        registry.register([Registration(host: "a.test", path: "/x", responses: [.plaintext("new")])])
        #expect(body(registry, "a.test", "/x") == "new")
    }

    @Test func queryStringsArePercentDecodedLazily() {
        let request = IncomingRequest(method: "get", url: "", host: "A.Test", path: "", query: "q=a%20b&flag&q=c%2Bd&broken=%zz")
        #expect(request.method == "GET")
        #expect(request.host == "a.test")
        #expect(request.path == "/")
        #expect(request.queryItems.map(\.name) == ["q", "flag", "q", "broken"])
        #expect(request.queryItems.map(\.value) == ["a b", nil, "c+d", "%zz"])
    }
}

struct HostPatternTests {
    @Test(arguments: [
        ("api.example.com", "API.example.com", true), ("*.example.com", "a.example.com", true),
        ("*.example.com", "a.b.example.com", false), ("**.example.com", "example.com", true),
        ("**.example.com", "a.b.example.com", true), ("api-*.example.com", "api-x.example.com", true),
        ("localhost", "localhost", true), ("localhost", "localhost.example", false),
    ])
    func matchesOnItsOwn(pattern: String, host: String, matches: Bool) throws {
        #expect(try HostPattern(pattern).matches(host) == matches)
    }

    @Test func rejectsInvalidPatterns() {
        #expect(throws: PatternSyntaxError.self) { try HostPattern("") }
        #expect(throws: PatternSyntaxError.self) { try HostPattern("https://x") }
    }

    @Test func patternErrorsNameTheHostOrThePath() {
        do {
            _ = try PathPattern("users")
            Issue.record("a path without a leading slash was accepted")
        } catch {
            #expect(error.part == .path)
            #expect(error.description.hasPrefix(#"invalid path pattern "users""#))
        }
        do {
            _ = try HostPattern("a..b")
            Issue.record("a host with an empty label was accepted")
        } catch {
            #expect(error.part == .host)
            #expect(error.description.hasPrefix(#"invalid host pattern "a..b""#))
        }
        let request = RecordedRequest(sequence: 1, request: IncomingRequest(method: "GET", absoluteURL: "https://a.test/x")!, date: .distantPast)
        #expect(RequestMatcher.path("nope").mismatches(request).first?.hasPrefix("invalid path pattern") == true)
    }
}

struct URLSplittingTests {
    @Test(arguments: [
        ("https://api.example.com/users?page=2#top", "api.example.com", "/users", "page=2"),
        ("http://user:pw@API.Example.com:8080/a%20b/c", "api.example.com", "/a b/c", nil),
        ("http://[::1]:9000/x?y", "::1", "/x", "y"),
        ("https://a.test", "a.test", "/", nil),
        ("https://a.test?q=1", "a.test", "/", "q=1"),
        ("http://127.0.0.1:8080/users/%2F", "127.0.0.1", "/users//", nil),
    ])
    func absoluteURLsSplitInOnePass(url: String, host: String, path: String, query: String?) throws {
        let request = try #require(IncomingRequest(method: "get", absoluteURL: url))
        #expect(request.method == "GET")
        #expect(request.host == host)
        #expect(request.path == path)
        #expect(request.queryText == query)
        #expect(request.url == url)
    }

    @Test(arguments: ["not a url", "mailto:someone@example.com", "http://", "http:///path"])
    func urlsWithoutAHostAreRejected(url: String) {
        #expect(IncomingRequest(method: "GET", absoluteURL: url) == nil)
    }
}

@testable import AirlockBase
@testable import AirlockCassettes
@testable import AirlockStubFiles
@testable import AirlockWireMock
@testable import AirlockCore
@_spi(AirlockTransport) import AirlockCore
import Testing

/// The one request parser every transport uses: URL strings (URLSession) and request heads (the
/// server), against targets that trip parsers up.
struct RequestParsingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let input: String
        let host: String
        let path: String
        let query: String?

        var testDescription: String { input }
    }

    static let urls: [Case] = [
        Case(input: "https://api.example.com/users?page=2", host: "api.example.com", path: "/users", query: "page=2"),
        Case(input: "https://API.Example.COM/Users", host: "api.example.com", path: "/Users", query: nil),
        Case(input: "http://a.test:8080/x", host: "a.test", path: "/x", query: nil),
        Case(input: "https://a.test", host: "a.test", path: "/", query: nil),
        Case(input: "https://a.test?x=1", host: "a.test", path: "/", query: "x=1"),
        Case(input: "https://a.test/p?q=1#access_token=abc", host: "a.test", path: "/p", query: "q=1"),
        Case(input: "https://a.test/p#frag?not=query", host: "a.test", path: "/p", query: nil),
        Case(input: "https://a.test/a%20b/caf%C3%A9", host: "a.test", path: "/a b/café", query: nil),
        Case(input: "https://a.test/search?q=a%26b&x=%3D", host: "a.test", path: "/search", query: "q=a%26b&x=%3D"),
        Case(input: "http://[::1]:8080/x", host: "::1", path: "/x", query: nil),
        Case(input: "http://[2001:db8::1]/", host: "2001:db8::1", path: "/", query: nil),
        Case(input: "https://user:s3cret@api.example.com/me", host: "api.example.com", path: "/me", query: nil),
        Case(input: "https://user@host.test:99/p@q", host: "host.test", path: "/p@q", query: nil),
        Case(input: "https://a.test//double//slash", host: "a.test", path: "//double//slash", query: nil),
    ]

    @Test(arguments: urls)
    func urlStringsSplitIntoHostPathAndQuery(_ item: Case) throws {
        let request = try #require(IncomingRequest(method: "get", absoluteURL: item.input))
        #expect(request.method == "GET")
        #expect(request.host == item.host)
        #expect(request.path == item.path)
        #expect(request.queryText == item.query)
    }

    struct Head: Sendable, CustomTestStringConvertible {
        let target: String
        let hostHeader: String?
        let host: String
        let path: String
        let query: String?

        var testDescription: String { "\(target) Host: \(hostHeader ?? "-")" }
    }

    static let heads: [Head] = [
        // origin form: the host comes from the Host header
        Head(target: "/users?x=1", hostHeader: "api.example.com:8080", host: "api.example.com", path: "/users", query: "x=1"),
        Head(target: "/", hostHeader: "[::1]:9000", host: "::1", path: "/", query: nil),
        Head(target: "/a%2Fb", hostHeader: "a.test", host: "a.test", path: "/a/b", query: nil),
        Head(target: "/p", hostHeader: nil, host: "localhost", path: "/p", query: nil),
        Head(target: "/p", hostHeader: "  spaced.test ", host: "spaced.test", path: "/p", query: nil),
        // absolute form (proxy mode): the target's host wins over the header
        Head(target: "http://api.example.com/users?id=7", hostHeader: "127.0.0.1:9", host: "api.example.com", path: "/users", query: "id=7"),
        Head(target: "HTTP://Upper.Test/P", hostHeader: nil, host: "upper.test", path: "/P", query: nil),
        Head(target: "http://u:p@a.test/x", hostHeader: nil, host: "a.test", path: "/x", query: nil),
        // asterisk form (OPTIONS *)
        Head(target: "*", hostHeader: "a.test", host: "a.test", path: "*", query: nil),
    ]

    @Test(arguments: heads)
    func requestHeadsResolveTheirHost(_ item: Head) throws {
        let request = try #require(IncomingRequest(method: "OPTIONS", target: item.target, hostHeader: item.hostHeader))
        #expect(request.host == item.host)
        #expect(request.path == item.path)
        #expect(request.queryText == item.query)
    }

    @Test(arguments: [
        ("users", "a.test"),  // neither origin nor absolute form
        ("ftp://a.test/x", "a.test"),  // not HTTP
        ("http://", nil),  // no host
        ("/x", "evil.test/../admin"),  // a path in the Host header
        ("/x", "user@evil.test"),  // user info in the Host header
        ("/x", "a.test?x"),
        ("/x", "a b"),
    ] as [(String, String?)])
    func malformedHeadsAreRejected(_ target: String, _ hostHeader: String?) {
        #expect(IncomingRequest(method: "GET", target: target, hostHeader: hostHeader) == nil)
    }

    @Test func aURLAndTheSameRequestAsAHeadAgree() throws {
        let fromURL = try #require(IncomingRequest(method: "GET", absoluteURL: "http://api.example.com/a%20b?q=1"))
        let fromHead = try #require(IncomingRequest(method: "GET", target: "/a%20b?q=1", hostHeader: "api.example.com"))
        #expect(fromURL.host == fromHead.host)
        #expect(fromURL.path == fromHead.path)
        #expect(fromURL.queryText == fromHead.queryText)
        #expect(fromURL.url == fromHead.url)
    }

    @Test func anAsteriskTargetMatchesNoStub() {
        let registry = MockRegistry(snippetStyle: .json)
        registry.register([Registration(host: "**", path: "/**", responses: [.plaintext("any", lifetime: .eternal)])])
        let request = IncomingRequest(method: "OPTIONS", target: "*", hostHeader: "a.test")!
        #expect(registry.resolve(request, for: .socket).stub == nil)
    }
}

/// The authority an absolute-form target names, as the server compares it with its own address
/// (a proxy never forwards a request addressed to itself).
struct ServerAuthorityTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/x", "127.0.0.1:8080"),
        ("http://user:secret@127.0.0.1:8080/x?y#z", "127.0.0.1:8080"),
        ("https://host.test/", "host.test:443"),
        ("HTTPS://host.test", "host.test:443"),
        ("http://host.test?q", "host.test:80"),
        ("http://[::1]:9000/", "[::1]:9000"),
        ("http://[::1]/", "[::1]:80"),
    ])
    func anAbsoluteURLNamesItsServerWithThePort(url: String, authority: String) {
        #expect(IncomingRequest.serverAuthority(ofAbsolute: url) == authority)
    }

    @Test(arguments: ["/origin/form", "http://", "http:/one-slash", "no scheme"])
    func textThatNamesNoServerHasNoAuthority(text: String) {
        #expect(IncomingRequest.serverAuthority(ofAbsolute: text) == nil)
    }
}

import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

struct WildcardTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let host: String
        let path: String
        let url: String
        let matches: Bool
        var testDescription: String { "\(host)\(path) \(matches ? "matches" : "misses") \(url)" }
    }

    static let cases: [Case] = [
        // Single-segment host wildcard.
        Case(host: "*.example.com", path: "/users", url: "https://api.example.com/users", matches: true),
        Case(host: "*.example.com", path: "/users", url: "https://staging.example.com/users", matches: true),
        Case(host: "*.example.com", path: "/users", url: "https://api.staging.example.com/users", matches: false),
        Case(host: "*.example.com", path: "/users", url: "https://example.com/users", matches: false),
        // Single-segment path wildcard.
        Case(host: "api.example.com", path: "/api/*/users", url: "https://api.example.com/api/v1/users", matches: true),
        Case(host: "api.example.com", path: "/api/*/users", url: "https://api.example.com/api/v2/users", matches: true),
        Case(host: "api.example.com", path: "/api/*/users", url: "https://api.example.com/api/v1/beta/users", matches: false),
        Case(host: "api.example.com", path: "/api/*/users", url: "https://api.example.com/api//users", matches: false),
        // Multi-segment wildcards.
        Case(host: "**.example.com", path: "/x", url: "https://api.example.com/x", matches: true),
        Case(host: "**.example.com", path: "/x", url: "https://api.staging.example.com/x", matches: true),
        Case(host: "**.example.com", path: "/x", url: "https://example.com/x", matches: true),
        Case(host: "**.example.com", path: "/x", url: "https://example.org/x", matches: false),
        Case(host: "a.test", path: "/api/**/data", url: "https://a.test/api/data", matches: true),
        Case(host: "a.test", path: "/api/**/data", url: "https://a.test/api/v1/data", matches: true),
        Case(host: "a.test", path: "/api/**/data", url: "https://a.test/api/v1/beta/data", matches: true),
        Case(host: "a.test", path: "/api/**/data", url: "https://a.test/api/v1/beta/other", matches: false),
        Case(host: "a.test", path: "/**", url: "https://a.test/anything/at/all", matches: true),
        // Wildcards inside a segment; other characters are literal.
        Case(host: "api-*.example.com", path: "/api/**/users/*", url: "https://api-staging.example.com/api/v1/beta/users/123", matches: true),
        Case(host: "api-*.example.com", path: "/x", url: "https://web-staging.example.com/x", matches: false),
        Case(host: "a.test", path: "/files/report-*.pdf", url: "https://a.test/files/report-2024.pdf", matches: true),
        Case(host: "a.test", path: "/files/report-*.pdf", url: "https://a.test/files/report-2024.txt", matches: false),
        Case(host: "a.test", path: "/v1.0/(x)+", url: "https://a.test/v1.0/(x)+", matches: true),
        Case(host: "a.test", path: "/v1.0/x", url: "https://a.test/v1a0/x", matches: false),
        // Hosts compare case-insensitively, paths do not.
        Case(host: "API.Example.COM", path: "/Users", url: "https://api.EXAMPLE.com/Users", matches: true),
        Case(host: "api.example.com", path: "/Users", url: "https://api.example.com/users", matches: false),
    ]

    @Test(arguments: cases)
    func patternMatching(_ testCase: Case) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: testCase.path, host: testCase.host) { MockResponse.plaintext("hit") }
        #expect(mock.registrationErrors.isEmpty)
        let fetched = try await mock.fetch(testCase.url)
        #expect((fetched.text == "hit") == testCase.matches)
    }

    /// The document's table: exact beats wildcard, fewer wildcards beat more.
    @Test(arguments: [
        ("https://api.example.com/", "exact"),
        ("https://api-test.example.com/", "single"),
        ("https://api.staging.example.com/", "multi"),
    ])
    func specificityPicksTheMostSpecificHost(url: String, winner: String) async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("**.example.com") { Path("/") { MockResponse.plaintext("multi", lifetime: .eternal) } }
            Host("*.example.com") { Path("/") { MockResponse.plaintext("single", lifetime: .eternal) } }
            Host("api.example.com") { Path("/") { MockResponse.plaintext("exact", lifetime: .eternal) } }
        }
        #expect(try await mock.fetch(url).text == winner)
    }

    @Test func longerLiteralBreaksTies() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("*.example.*") { Path("/") { MockResponse.plaintext("two single wildcards", lifetime: .eternal) } }
            Host("**.example.com") { Path("/") { MockResponse.plaintext("multi wildcard", lifetime: .eternal) } }
        }
        #expect(try await mock.fetch("https://api.example.com/").text == "multi wildcard")
        #expect(try await mock.fetch("https://api.example.org/").text == "two single wildcards")
    }

    @Test func specificityAppliesToPaths() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/users/**") { MockResponse.plaintext("multi", lifetime: .eternal) }
                Path("/users/*") { MockResponse.plaintext("single", lifetime: .eternal) }
                Path("/users/me") { MockResponse.plaintext("exact", lifetime: .eternal) }
                Path("/users/*/posts") { MockResponse.plaintext("posts", lifetime: .eternal) }
            }
        }
        #expect(try await mock.fetch("https://a.test/users/me").text == "exact")
        #expect(try await mock.fetch("https://a.test/users/42").text == "single")
        #expect(try await mock.fetch("https://a.test/users/42/posts").text == "posts")
        #expect(try await mock.fetch("https://a.test/users/42/likes").text == "multi")
    }

    @Test func aQueryConstraintBeatsNoneAtEqualSpecificity() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/s") { MockResponse.plaintext("any query", lifetime: .eternal) }
                Path("/s", query: ["q": "x"], matching: .contains) { MockResponse.plaintext("contains", lifetime: .eternal) }
                Path("/s", query: ["q": "x"]) { MockResponse.plaintext("exact", lifetime: .eternal) }
            }
        }
        #expect(try await mock.fetch("https://a.test/s?q=x").text == "exact")
        #expect(try await mock.fetch("https://a.test/s?q=x&p=1").text == "contains")
        #expect(try await mock.fetch("https://a.test/s?p=1").text == "any query")
    }

    @Test func aDepletedStubGivesWayToTheNextMostSpecific() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/users/*") { MockResponse.plaintext("fallback", lifetime: .eternal) }
                Path("/users/1") { MockResponse.plaintext("specific") }
            }
        }
        #expect(try await mock.texts("https://a.test/users/1", count: 2) == ["specific", "fallback"])
    }

    @Test func regexCharactersAreLiteral() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/a.b", host: "x.test") { MockResponse.plaintext("dot", lifetime: .eternal) }
        #expect(try await mock.fetch("https://x.test/a.b").text == "dot")
        #expect(try await mock.fetch("https://x.test/aXb").status == 404)
    }
}

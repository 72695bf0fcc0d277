import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

struct DSLTests {
    @Test func headersCascadeAsTheDocumentDescribes() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Headers(["X-Env": "Test"], cascade: true)

                Path("/profile") {
                    MockResponse.plaintext("profile")
                }

                Path("/admin") {
                    Headers(["X-Env": "AdminOnly"], cascade: false)
                    MockResponse.empty(status: .unauthorized)

                    Path("/audit") {
                        MockResponse.plaintext("audit")
                    }
                }
            }
        }
        let profile = try await mock.fetch("https://api.example.com/profile")
        #expect(profile.header("X-Env") == "Test")
        let admin = try await mock.fetch("https://api.example.com/admin")
        #expect(admin.status == 401)
        #expect(admin.header("X-Env") == "AdminOnly")
        let audit = try await mock.fetch("https://api.example.com/admin/audit")
        #expect(audit.text == "audit")
        #expect(audit.header("X-Env") == "Test")
    }

    @Test func nonCascadingHostHeadersReachOnlyTopLevelPaths() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Headers(["X-Top": "yes"])
                Path("/top") {
                    MockResponse.plaintext("top")
                    Path("/nested") { MockResponse.plaintext("nested") }
                }
            }
        }
        #expect(try await mock.fetch("https://a.test/top").header("X-Top") == "yes")
        #expect(try await mock.fetch("https://a.test/top/nested").header("X-Top") == nil)
    }

    @Test func laterHeadersInAScopeOverrideEarlierOnes() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Headers(["X-A": "first", "X-B": "kept"], cascade: true)
                Headers(["x-a": "second"], cascade: true)
                Path("/p") { MockResponse.plaintext("p") }
            }
        }
        let fetched = try await mock.fetch("https://a.test/p")
        #expect(fetched.header("X-A") == "second")
        #expect(fetched.header("X-B") == "kept")
    }

    @Test func responseHeadersOverrideInheritedOnes() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Headers(["X-Env": "Test", "Content-Type": "application/vnd.inherited"], cascade: true)
                Path("/p") {
                    MockResponse.plaintext("own", headers: ["X-Env": "Own"])
                    MockResponse.plaintext("inherits")
                }
            }
        }
        let own = try await mock.fetch("https://a.test/p")
        #expect(own.header("X-Env") == "Own")
        // An inherited Content-Type beats the factory's default, not an explicit one.
        #expect(own.header("Content-Type") == "application/vnd.inherited")
        #expect(try await mock.fetch("https://a.test/p").header("X-Env") == "Test")
    }

    @Test func nestedPathsJoin() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/root") {
                    MockResponse.plaintext("root")
                    Path("/child") {
                        MockResponse.plaintext("child")
                        Path("/grand-child") { MockResponse.plaintext("grand-child") }
                    }
                }
                Path("/") {
                    Path("/under-root") { MockResponse.plaintext("under-root") }
                }
            }
        }
        #expect(try await mock.fetch("https://a.test/root").text == "root")
        #expect(try await mock.fetch("https://a.test/root/child").text == "child")
        #expect(try await mock.fetch("https://a.test/root/child/grand-child").text == "grand-child")
        #expect(try await mock.fetch("https://a.test/under-root").text == "under-root")
    }

    @Test func exactQueryAcceptsOnlyTheseParameters() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/search", query: ["q": "swift", "page": "1"], matching: .exact) {
                    MockResponse.plaintext("ok-exact", lifetime: .eternal)
                }
            }
        }
        #expect(try await mock.fetch("https://a.test/search?page=1&q=swift").text == "ok-exact")
        #expect(try await mock.fetch("https://a.test/search?q=swift&page=1&extra=1").status == 404)
        #expect(try await mock.fetch("https://a.test/search?q=swift").status == 404)
        #expect(try await mock.fetch("https://a.test/search").status == 404)
    }

    @Test func containsQueryIgnoresOtherParameters() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/search", query: ["q": "swift"], matching: .contains) {
                    MockResponse.plaintext("ok-contains-1")
                    MockResponse.plaintext("ok-contains-2")
                }
            }
        }
        #expect(try await mock.fetch("https://a.test/search?q=swift&page=2").text == "ok-contains-1")
        #expect(try await mock.fetch("https://a.test/search?sort=asc&q=swift").text == "ok-contains-2")
        #expect(try await mock.fetch("https://a.test/search?q=kotlin").status == 404)
    }

    @Test func repeatedQueryKeysAreListsNotCollapsed() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/items", query: ["id": ["1", "2"]]) { MockResponse.plaintext("both", lifetime: .eternal) }
                Path("/items", query: ["id": "2"]) { MockResponse.plaintext("only two", lifetime: .eternal) }
                Path("/tags", query: ["tag": ["a"]], matching: .contains) { MockResponse.plaintext("has a", lifetime: .eternal) }
            }
        }
        #expect(try await mock.fetch("https://a.test/items?id=1&id=2").text == "both")
        #expect(try await mock.fetch("https://a.test/items?id=2&id=1").text == "both")
        // Collapsing repeated keys (last one wins) would wrongly answer "only two" here.
        #expect(try await mock.fetch("https://a.test/items?id=2").text == "only two")
        #expect(try await mock.fetch("https://a.test/items?id=1&id=2&id=3").status == 404)
        #expect(try await mock.fetch("https://a.test/tags?tag=b&tag=a").text == "has a")
        #expect(try await mock.fetch("https://a.test/tags?tag=b").status == 404)
    }

    @Test func imperativeQueryItemsWork() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/s", host: "a.test", queryItems: ["q": "x"], queryMatching: .contains) {
            MockResponse.plaintext("single")
        }
        mock.addResponses(forPath: "/s", host: "a.test", queryItems: ["id": ["1", "2"]], responses: [.plaintext("list")])
        #expect(try await mock.fetch("https://a.test/s?q=x&z=1").text == "single")
        #expect(try await mock.fetch("https://a.test/s?id=1&id=2").text == "list")
    }

    @Test func queriesAreNotInherited() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/p", query: ["v": "1"]) {
                    MockResponse.plaintext("parent")
                    Path("/c") { MockResponse.plaintext("child") }
                }
            }
        }
        #expect(try await mock.fetch("https://a.test/p/c?anything=else").text == "child")
    }

    @Test func builderSupportsControlFlow() async throws {
        let mock = HTTPMock()
        let includeBeta = true
        mock.registerResponses {
            for index in 1...3 {
                Host("h\(index).test") {
                    Path("/n") { MockResponse.plaintext("\(index)") }
                }
            }
            Host("a.test") {
                if includeBeta {
                    Path("/beta") { MockResponse.plaintext("beta") }
                } else {
                    Path("/stable") { MockResponse.plaintext("stable") }
                }
                Path("/many") {
                    for index in 1...2 {
                        MockResponse.plaintext("many-\(index)")
                    }
                }
            }
        }
        #expect(try await mock.fetch("https://h2.test/n").text == "2")
        #expect(try await mock.fetch("https://a.test/beta").text == "beta")
        #expect(try await mock.texts("https://a.test/many", count: 2) == ["many-1", "many-2"])
    }

    @Test func emptyScopesRegisterNothing() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {}
            Host("b.test") { Path("/p") {} }
        }
        #expect(mock.registrationErrors.isEmpty)
        #expect(try await mock.fetch("https://b.test/p").status == 404)
    }
}

import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct User: Codable, Equatable {
    let id: Int
    let name: String
}

/// The quick-start samples (README, Getting Started article) and the seed document's, run through a real URLSession.
struct QuickStartTests {
    @Test func imperativeRegistrationServesResponsesInOrder() async throws {
        let mock = HTTPMock()
        mock.addResponses(
            forPath: "/user",
            host: "api.example.com",
            responses: [
                .encodable(User(id: 1, name: "Alice")),
                .empty(status: .notFound),
            ]
        )

        let url = URL(string: "https://api.example.com/user")!
        let (data, response) = try await mock.urlSession.boundedData(from: url)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(try JSONDecoder().decode(User.self, from: data) == User(id: 1, name: "Alice"))

        let second = try await mock.fetch("https://api.example.com/user")
        #expect(second.status == 404)
        #expect(second.data.isEmpty)
    }

    @Test func builderRegistrationIsEquivalent() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/user", host: "api.example.com") {
            MockResponse.encodable(User(id: 1, name: "Alice"))
            MockResponse.empty(status: .notFound)
        }

        #expect(try await mock.fetch("https://api.example.com/user").text == #"{"id":1,"name":"Alice"}"#)
        #expect(try await mock.fetch("https://api.example.com/user").status == 404)
    }

    @Test func declarativeDSLIsEquivalent() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("api.example.com") {
                Path("/user") {
                    MockResponse.encodable(User(id: 1, name: "Alice"))
                    MockResponse.empty(status: .notFound)
                }
            }
        }

        #expect(try await mock.fetch("https://api.example.com/user").status == 200)
        #expect(try await mock.fetch("https://api.example.com/user").status == 404)
    }

    @Test func sharedInstanceWorksAndResets() async throws {
        // The only test that touches HTTPMock.shared, on a host no other test uses.
        HTTPMock.shared.registerResponses {
            Host("shared.quickstart.test") {
                Path("/user") {
                    MockResponse.plaintext("Hello from singleton!")
                }
            }
        }
        let fetched = try await HTTPMock.shared.fetch("https://shared.quickstart.test/user")
        #expect(fetched.text == "Hello from singleton!")

        HTTPMock.shared.addResponses(forPath: "/user", host: "shared.quickstart.test") {
            MockResponse.plaintext("never served")
        }
        HTTPMock.shared.clearQueue(forHost: "shared.quickstart.test")
        #expect(try await HTTPMock.shared.fetch("https://shared.quickstart.test/user").status == 404)
    }

    @Test func aRequestCanCarryAnyMethodAndHeaders() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/items", host: "api.example.com") {
            MockResponse.plaintext("created", status: .created)
        }
        let fetched = try await mock.fetch("https://api.example.com/items", method: "POST", headers: ["X-Trace": "1"])
        #expect(fetched.status == 201)
        #expect(fetched.text == "created")
    }
}

struct MadeSessionTests {
    final class Redirects: NSObject, URLSessionTaskDelegate, Sendable {}

    @Test func madeSessionsAreAnsweredByTheirMock() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.plaintext("from a made session") }
        let session = mock.makeURLSession(configuration: .default, delegate: Redirects())
        defer { session.invalidateAndCancel() }
        let (data, _) = try await session.boundedData(from: URL(string: "https://a.test/x")!)
        #expect(String(decoding: data, as: UTF8.self) == "from a made session")
    }
}

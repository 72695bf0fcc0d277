import Foundation
import HTTPMock
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this).

// GettingStarted.md: the quick start. Compiled, not run.
@Suite(.disabled("a documentation sample: compiled, not run"))
struct QuickStartSample {
    struct User: Codable { let id: Int; let name: String }

    @Test func loadsTheUser() async throws {
        let mock = HTTPMock()                       // one per test: tests run in parallel

        // 1) Queue responses for a host + path
        mock.addResponses(forPath: "/user", host: "api.example.com") {
            MockResponse.encodable(User(id: 1, name: "Alice"))   // 200, application/json
            MockResponse.empty(status: .notFound)                // the second call gets 404
        }

        // 2) Hand the mock's real URLSession to the code under test
        let (data, response) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/user")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONDecoder().decode(User.self, from: data).name == "Alice")
    }
}

// MigratingFromWireMock.md: the team's mappings in a Swift test. Run, from the package root
// (where `swift test` runs), against Examples/wiremock.
struct WireMockMappingsSample {
@Test func showsTheUserFromTheTeamsMappings() async throws {
    let mock = HTTPMock()
    try mock.registerStubs(WireMockMappings(directory: URL(fileURLWithPath: "Examples/wiremock")))
    let (data, _) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/users/1")!)
    #expect(String(decoding: data, as: UTF8.self).contains("Alice"))
}
}

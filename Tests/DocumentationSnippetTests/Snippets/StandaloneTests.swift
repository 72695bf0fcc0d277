import Foundation
import HTTPMock
import HTTPMockTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this). Compiled, not run.

// README.md: HTTPMockTesting quick start.
@Suite(.disabled("a documentation sample: compiled, not run"))
struct VerificationQuickStartSample {
    @Test func createsOneUser() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users", host: "api.example.com", requiring: .post) {
            MockResponse.empty(status: .created)
        }
        var request = URLRequest(url: URL(string: "https://api.example.com/users")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"name":"Alice"}"#.utf8)
        _ = try await mock.urlSession.data(for: request)

        mock.verify(.post && .path("/users") && .json(#"{"name":"Alice"}"#), .exactly(1))
        mock.verifyAllStubsUsed()          // fails listing stubs that never served
        mock.verifyNoUnmatchedRequests()   // one failure per unmatched request, with its diagnostic
    }
}

// Recording.md, README.md: a cassette per test. Compiled here; run by RecordOnceSampleTests in a
// child process of this test binary (with CI set and not), never in this process: it would record.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AIRLOCK_SAMPLE"] == "CassetteSample", "a documentation sample: RecordOnceSampleTests runs it in a child process"))
struct CassetteSample {
    @Test(.cassette) func listsUsers() async throws {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "https://api.example.com/users")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let users = try JSONDecoder().decode([User].self, from: data)
        #expect(!users.isEmpty)
    }
}

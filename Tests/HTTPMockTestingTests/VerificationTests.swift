import HTTPTestSupport
import Foundation
import HTTPMock
import HTTPMockTesting
import Testing

struct VerificationTests {
    private func mockWithTraffic() async throws -> HTTPMock {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users", host: "api.example.com") { MockResponse.plaintext("users", lifetime: .eternal) }
        mock.addResponses(forPath: "/never", host: "api.example.com") { MockResponse.plaintext("unused") }
        _ = try await mock.fetch("https://api.example.com/users")
        _ = try await mock.fetch("https://api.example.com/users?page=2")
        _ = try await mock.fetch("https://api.example.com/user/1", method: "POST")
        return mock
    }

    @Test func countsThatHoldPass() async throws {
        let mock = try await mockWithTraffic()
        #expect(mock.verify(.get && .path("/users"), .exactly(2)))
        #expect(mock.verify(.path("/users"), .atLeast(1)))
        #expect(mock.verify(.path("/users"), .atMost(2)))
        #expect(mock.verify(.delete, .never))
        #expect(mock.verify(.query(["page": "2"]), .once))
        #expect(mock.verify(.post))
    }

    @Test func aWrongCountFailsListingTheRequestsMadeInstead() async throws {
        let mock = try await mockWithTraffic()
        withKnownIssue {
            mock.verify(.post && .path("/users"), .exactly(1))
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("Expected exactly 1 request matching method POST and path /users, but got 0.\nRequests made (3):")
                && text.contains("#1 GET https://api.example.com/users (stub host \"api.example.com\", path \"/users\")\n     method GET vs POST")
                && text.contains("#3 POST https://api.example.com/user/1 (no stub matched)\n     path /user/1 vs /users")
                && issue.sourceLocation?.fileName == "VerificationTests.swift"
        }
    }

    @Test func neverFailsWhenARequestWasMade() async throws {
        let mock = try await mockWithTraffic()
        withKnownIssue {
            mock.verify(.get, .never)
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().hasPrefix("Expected no request matching method GET, but got 2.")
        }
    }

    @Test func unusedStubsFailTheCheck() async throws {
        let mock = try await mockWithTraffic()
        #expect(mock.unusedStubs == [#"host "api.example.com", path "/never""#])
        withKnownIssue {
            mock.verifyAllStubsUsed()
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains(#"  - host "api.example.com", path "/never""#)
        }
    }

    @Test func unmatchedRequestsFailTheStrictCheckWithTheirDiagnostic() async throws {
        let mock = try await mockWithTraffic()
        withKnownIssue {
            mock.verifyNoUnmatchedRequests()
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("Airlock: no stub for POST https://api.example.com/user/1") && text.contains("Nearest registered stubs:")
        }
        let clean = HTTPMock()
        #expect(clean.verifyNoUnmatchedRequests())
        #expect(clean.verifyAllStubsUsed())
    }
}

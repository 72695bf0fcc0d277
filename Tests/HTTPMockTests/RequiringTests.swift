import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `requiring:` matcher is the user's code: it runs outside the mock's lock, so it may use the
/// mock itself, and lifetimes stay exact however many requests run at once.
struct RequiringTests {
    @Test func aMatcherMayReadTheMocksUnusedStubs() async throws {
        let mock = HTTPMock()
        let seen = LockedList()
        mock.addResponses(forPath: "/x", host: "a.test", requiring: RequestMatcher("reads unused stubs") { _ in
            seen.append(mock.unusedStubs.count)
            return true
        }) {
            MockResponse.plaintext("answered")
        }
        // Before, the matcher ran under the mock's lock and reading the mock deadlocked: the
        // request's hang guard turns that into a failure instead of a hung test run.
        let answer = try await mock.fetch("https://a.test/x")
        #expect(answer.text == "answered")
        #expect(seen.values == [1])
    }

    @Test func aMatcherMayRegisterAStub() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test", requiring: RequestMatcher("registers /y") { _ in
            mock.addResponses(forPath: "/y", host: "a.test") { MockResponse.plaintext("y") }
            return true
        }) {
            MockResponse.plaintext("x")
        }
        #expect(try await mock.fetch("https://a.test/x").text == "x")
        #expect(try await mock.fetch("https://a.test/y").text == "y")
    }

    @Test func anUnmatchedRequestsDiagnosisMayAskAMatcherThatReadsTheMock() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test", requiring: RequestMatcher("a journal of three") { _ in
            mock.requests.count == 3
        }) {
            MockResponse.plaintext("x")
        }
        let answer = try await mock.fetch("https://a.test/x")
        #expect(answer.status == 404)
        #expect(answer.text.contains("a journal of three: not satisfied"))
    }

    @Test func aSingleResponseGoesToExactlyOneOfManyConcurrentRequests() async throws {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/x", requiring: RequestMatcher("reads the journal") { _ in mock.requests.count >= 0 }) {
                    MockResponse.plaintext("once")
                }
                Path("/x") { MockResponse.plaintext("fallback", lifetime: .eternal) }
            }
        }
        let texts = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 {
                group.addTask { try await mock.fetch("https://a.test/x").text }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(texts.filter { $0 == "once" }.count == 1)
        #expect(texts.filter { $0 == "fallback" }.count == 31)
    }
}

/// Integers appended from a matcher, which may run on any thread.
private final class LockedList: @unchecked Sendable {
    // @unchecked Sendable: `storage` is only read and written while holding `lock`.
    private let lock = NSLock()
    private var storage: [Int] = []

    func append(_ value: Int) { lock.withLock { storage.append(value) } }
    var values: [Int] { lock.withLock { storage } }
}

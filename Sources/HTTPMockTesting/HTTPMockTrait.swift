#if canImport(Testing)
import AirlockCore
import HTTPMock
import Testing

/// Gives each test a fresh `HTTPMock` of its own, `HTTPMock.current`, that answers every
/// request the test makes through `URLSession.shared` — with nothing injected into the code
/// under test.
///
/// ```swift
/// @Test(.httpMock) func showsTheUser() async throws {
///     let mock = try #require(HTTPMock.current)
///     mock.addResponses(forPath: "/user", host: "api.example.com", responses: [.encodable(User(id: 1, name: "Alice"))])
///     let user = try await APIClient().user()   // calls URLSession.shared
///     #expect(user.name == "Alice")
/// }
/// ```
///
/// Tests with the trait run in parallel, each against its own mock: the mock is found from the
/// test's task (a task-local value), not from anything process-wide, so two tests queuing
/// different answers for the same URL each get their own. Each case of a parameterized test is
/// a test of its own, with its own mock. On a suite, every test in it gets its own mock.
public struct HTTPMockTrait: TestTrait, SuiteTrait, TestScoping {
    /// The policy of each test's mock for requests no stub matches; `nil` keeps the mock's
    /// default, `.notFound`.
    public var unmockedPolicy: UnmockedPolicy?

    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// Runs the test inside the intercepting scope of a new mock.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let mock = HTTPMock()
        if let unmockedPolicy {
            mock.unmockedPolicy = unmockedPolicy
        }
        try await mock.intercepting { try await function() }
    }
}

extension Trait where Self == HTTPMockTrait {
    /// A fresh mock for each test, answering its `URLSession.shared` requests.
    public static var httpMock: Self {
        HTTPMockTrait(unmockedPolicy: nil)
    }

    /// A fresh mock for each test with the policy you choose for unmatched requests.
    ///
    /// ```swift
    /// @Test(.httpMock(unmockedPolicy: .passthrough)) func readsTheRealFeedToo() async throws { … }
    /// ```
    ///
    /// - Parameter unmockedPolicy: What each test's mock does with a request no stub matches.
    public static func httpMock(unmockedPolicy: UnmockedPolicy) -> Self {
        HTTPMockTrait(unmockedPolicy: unmockedPolicy)
    }
}
#endif

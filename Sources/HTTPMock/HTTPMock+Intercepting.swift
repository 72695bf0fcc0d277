import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPMock {
    /// The mock answering `URLSession.shared` here: the one of the innermost open
    /// ``intercepting(isolation:_:)`` scope (or `.httpMock` test) of the current task, or `nil`
    /// outside every scope.
    ///
    /// ```swift
    /// @Test(.httpMock) func showsTheUser() async throws {
    ///     let mock = try #require(HTTPMock.current)
    ///     mock.addResponses(forPath: "/user", host: "api.example.com", responses: [.encodable(User(id: 1, name: "Alice"))])
    ///     #expect(try await APIClient().user().name == "Alice")   // calls URLSession.shared
    /// }
    /// ```
    ///
    /// A task-local value: each test, and each task it starts with `async let`, a task group or
    /// `Task { }`, sees its own; a `Task.detached` or a callback on a `DispatchQueue` sees none.
    public static var current: HTTPMock? {
        InterceptionScope.innermostOpen?.mock
    }

    /// Runs `body` with this mock answering every request the current task tree makes through
    /// `URLSession.shared` — the code under test needs no session handed to it.
    ///
    /// ```swift
    /// let mock = HTTPMock()
    /// mock.addResponses(forPath: "/greeting", host: "api.example.com", responses: [.plaintext("hello")])
    /// let greeting = try await mock.intercepting {
    ///     try await URLSession.shared.data(from: URL(string: "https://api.example.com/greeting")!).0
    /// }
    /// ```
    ///
    /// The scope is the current task and the tasks it starts (`async let`, task groups,
    /// `Task { }`), so tests running in parallel each reach only their own mock. Everything
    /// works as through ``urlSession``: queues, the ``unmockedPolicy``, the journal, verification.
    ///
    /// - Scopes nest: inside another scope, the innermost one answers.
    /// - Leaving the scope ends its reach, also for a `Task { }` started inside it that runs on.
    /// - Requests outside every scope go where they would without Airlock: the network, or
    ///   Airgap when it guards the test. So do requests that leave the task tree: a
    ///   `Task.detached`, or a callback on a `DispatchQueue` (an SDK's own queue). They are
    ///   never answered by another test's mock.
    /// - Sessions the code makes for itself (`URLSession(configuration: .default)`) are not
    ///   reached on Linux; give such code ``urlSession`` or ``makeURLSession(configuration:delegate:delegateQueue:)``.
    ///
    /// In XCTest, wrap each test in `invokeTest()`:
    ///
    /// ```swift
    /// final class ProfileTests: XCTestCase {
    ///     let mock = HTTPMock()
    ///     override func invokeTest() {
    ///         try! mock.intercepting { super.invokeTest() }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on; the caller's by default.
    ///   - body: The code whose `URLSession.shared` requests this mock answers.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``InterceptionError`` when this platform's Foundation does
    ///   not let `URLSession.shared` be reached.
    public func intercepting<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        try SharedSessionInterception.install()
        let scope = InterceptionScope(mock: self, enclosing: InterceptionScope.current)
        defer { scope.close() }
        return try await InterceptionScope.$current.withValue(scope, operation: body, isolation: isolation)
    }

    /// Runs `body` with this mock answering every request made through `URLSession.shared` on the
    /// current thread or task, and by the tasks `body` starts: the synchronous form of
    /// ``intercepting(isolation:_:)``, for XCTest's `invokeTest()` and other synchronous code.
    ///
    /// - Parameter body: The code whose `URLSession.shared` requests this mock answers.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``InterceptionError`` when this platform's Foundation does
    ///   not let `URLSession.shared` be reached.
    public func intercepting<Result>(_ body: () throws -> Result) throws -> Result {
        try SharedSessionInterception.install()
        let scope = InterceptionScope(mock: self, enclosing: InterceptionScope.current)
        defer { scope.close() }
        return try InterceptionScope.$current.withValue(scope, operation: body)
    }
}

#if canImport(Testing)
import Testing

/// A Swift Testing trait that activates Airgap around each test it applies to.
///
/// ```swift
/// @Suite(.airgapped(allowedHosts: ["localhost", "127.0.0.1"]))
/// struct MyFeatureTests {
///     @Test func fetchData() async throws {
///         // Any other network access here records an Issue
///     }
/// }
/// ```
///
/// Around each test the trait opens a scope of its own: its mode, the hosts it adds to
/// ``Airgap/allowedHosts``, the test's name and the violations it collects travel with the test's
/// task (a task-local value), and the guard is active while at least one scope is open. Scopes
/// run in parallel, as Swift Testing runs tests: requests a test starts through
/// `URLSession.shared` (or an ``Airgap/protect(_:)``ed session) and calls made on its own thread
/// are judged by its rules and attributed to it. Violations are recorded when the test ends, on
/// its own task: as an `Issue` in ``Airgap/Mode/fail``, as a known issue (`withKnownIssue`) in
/// ``Airgap/Mode/warn``.
///
/// Settings changed inside the test (``Airgap/mode``, ``Airgap/allowedHosts``,
/// ``Airgap/violationReporter``, ``Airgap/errorCode`` and the others) are its scope's and end
/// with it; ``Airgap/violations`` there lists the test's own. Inside a scope,
/// ``Airgap/violationHandler`` is managed by the trait; set ``Airgap/violationReporter`` for
/// your own reporting.
///
/// > Warning: A connection made on a thread no test owns — libcurl's, behind a
/// > `URLSession(configuration: .default)` session; a SwiftNIO event loop; a child process — is
/// > allowed when any open scope allows it, and when blocked it is recorded by every open scope.
/// > Keep tests that reach blocked hosts through such clients from running beside other guarded
/// > tests, or make their requests through `URLSession.shared`.
public struct AirgapTrait: TestTrait, SuiteTrait, TestScoping {
    /// The mode inside the scope; `nil` keeps ``Airgap/mode``.
    public let mode: Airgap.Mode?
    /// Hosts added to ``Airgap/allowedHosts`` inside the scope.
    public let allowedHosts: Set<String>

    /// Creates the trait; prefer `.airgapped`, `.airgapped(mode:)`,
    /// `.airgapped(allowedHosts:)` or `.airgapped(mode:allowedHosts:)`.
    /// - Parameters:
    ///   - mode: The mode inside the scope; `nil` keeps ``Airgap/mode``.
    ///   - allowedHosts: Hosts added to ``Airgap/allowedHosts`` inside the scope.
    public init(mode: Airgap.Mode? = nil, allowedHosts: Set<String> = []) {
        self.mode = mode
        self.allowedHosts = allowedHosts
    }

    /// Applies to every test inside a suite.
    public var isRecursive: Bool { true }

    /// Runs `function` inside an Airgap scope.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await ScopeRunner.run(
            testName: DefaultReporting.testName(for: test),
            sourceLocation: test.sourceLocation,
            mode: mode,
            allowedHosts: allowedHosts,
            function
        )
    }
}

extension Trait where Self == AirgapTrait {
    /// Activates Airgap around each test, in the current ``Airgap/mode``.
    public static var airgapped: Self { Self() }

    /// Activates Airgap around each test, with `allowedHosts` added to ``Airgap/allowedHosts``.
    /// - Parameter allowedHosts: Hosts, patterns, IP literals or CIDR ranges to let through.
    public static func airgapped(allowedHosts: Set<String>) -> Self {
        Self(allowedHosts: allowedHosts)
    }

    /// Activates Airgap around each test in `mode`.
    /// - Parameter mode: ``Airgap/Mode/fail`` or ``Airgap/Mode/warn``.
    public static func airgapped(mode: Airgap.Mode) -> Self {
        Self(mode: mode)
    }

    /// Activates Airgap around each test in `mode`, with `allowedHosts` let through.
    /// - Parameters:
    ///   - mode: ``Airgap/Mode/fail`` or ``Airgap/Mode/warn``.
    ///   - allowedHosts: Hosts, patterns, IP literals or CIDR ranges to let through.
    public static func airgapped(mode: Airgap.Mode, allowedHosts: Set<String>) -> Self {
        Self(mode: mode, allowedHosts: allowedHosts)
    }
}
#endif

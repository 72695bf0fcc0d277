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
/// Around each test the trait saves every setting, applies its mode and adds its allowed hosts,
/// activates the guard, and afterwards restores everything. Violations are collected while the
/// test runs and recorded when it ends, on the test's own task, so each is attributed to the
/// test that caused it: as an `Issue` in ``Airgap/Mode/fail``, as a known issue
/// (`withKnownIssue`) in ``Airgap/Mode/warn``.
///
/// Scopes are serialised process-wide with an internal async lock, so suites using the trait
/// may run in parallel with each other safely (they wait for one another). Inside a scope,
/// ``Airgap/violationHandler`` is managed by the trait; set ``Airgap/violationReporter`` for
/// your own reporting.
///
/// > Warning: The guard is process-wide. A test *without* the trait that runs while a traited
/// > test runs is guarded too: its connections to hosts the scope does not allow fail, and the
/// > scope records them as its own violations. For suites that mix guarded and unguarded tests,
/// > prefer whole-run mode (`AIRGAP_MODE=fail`), or keep unguarded network tests out of the
/// > process's parallel run.
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

#if canImport(Testing)
import Foundation
import Testing

/// The scope behind the `.airgapped` trait and `Airgap.scoped`: serialised process-wide, it
/// saves every setting, activates the guard for one test, collects that test's violations and
/// records them as issues on the test's own task when it ends.
enum ScopeRunner {
    /// Serialises scopes: tests run in parallel, the guard is process-wide.
    static let lock = AsyncMutex()

    /// Whether this task already holds ``lock`` (a test-level trait inside a suite-level one,
    /// or `Airgap.scoped` inside a trait).
    @TaskLocal static var holdsLock = false

    static func run<T>(
        testName: String,
        sourceLocation: SourceLocation,
        mode: Airgap.Mode?,
        allowedHosts: Set<String>,
        _ body: () async throws -> T
    ) async rethrows -> T {
        if holdsLock {
            return try await runHoldingLock(testName: testName, sourceLocation: sourceLocation, mode: mode, allowedHosts: allowedHosts, body)
        }
        await lock.lock()
        defer { lock.unlock() }
        return try await $holdsLock.withValue(true) {
            try await runHoldingLock(testName: testName, sourceLocation: sourceLocation, mode: mode, allowedHosts: allowedHosts, body)
        }
    }

    private static func runHoldingLock<T>(
        testName: String,
        sourceLocation: SourceLocation,
        mode: Airgap.Mode?,
        allowedHosts: Set<String>,
        _ body: () async throws -> T
    ) async rethrows -> T {
        let saved = Settings.current()
        let sink = ScopeSink()
        let effectiveMode = mode ?? saved.mode
        let (wasActive, wasAllowed, previousName) = Airgap.state.withLock { state in
            (state.isActive, state.isAllowed, state.currentTestName)
        }
        // What child processes reported before the scope is not this test's.
        ViolationPipeline.settle()
        if !allowedHosts.isEmpty {
            Airgap.allowedHosts = saved.allowedHosts.union(allowedHosts)
        }
        Airgap.state.withLock { state in
            state.mode = effectiveMode
            state.violationHandler = { _ in }
            state.currentTestName = testName
            state.scopeSinks.append(sink)
            if !state.isWholeRun {
                state.violations.removeAll()
            }
        }
        Airgap.activate()
        defer {
            // Enforcement ends before the narrower rules come back: a connection another test
            // makes to a host only this scope allowed is not blocked in between.
            Airgap.state.withLock { state in
                state.isActive = wasActive
                state.isAllowed = wasAllowed
            }
            Airgap.synchronise()
            // What child processes reported belongs to this scope's test.
            ViolationPipeline.settle()
            Airgap.state.withLock { state in
                state.scopeSinks.removeAll { $0 === sink }
                state.currentTestName = previousName
            }
            saved.restore()
            report(sink.violations, mode: effectiveMode, at: sourceLocation)
        }
        return try await body()
    }

    /// Records each violation as an issue at the user's frame that made the call, when known,
    /// else at the test (or the `Airgap.scoped` call). Symbolicates each distinct stack once.
    private static func report(_ violations: [Violation], mode: Airgap.Mode, at scopeLocation: SourceLocation) {
        for violation in violations {
            let comment = Comment(rawValue: violation.message)
            let sourceLocation = DefaultReporting.sourceLocation(violation.userFrame) ?? scopeLocation
            switch mode {
            case .fail:
                Issue.record(comment, sourceLocation: sourceLocation)
            case .warn:
                withKnownIssue("Airgap violation (warning mode)") {
                    Issue.record(comment, sourceLocation: sourceLocation)
                }
            }
        }
    }
}
#endif
